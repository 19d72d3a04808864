/**
 * Test helpers shared by the modules' tests: the PostgreSQL and MariaDB databases the tests run against.
 */
package dev.projections.testsupport;
