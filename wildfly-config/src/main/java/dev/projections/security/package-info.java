/**
 * The demo server's: the Elytron realm of the console's two demo users (admin, viewer).
 */
package dev.projections.security;
