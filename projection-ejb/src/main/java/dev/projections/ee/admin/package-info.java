/** Internal: the console's role-checked EJBs (docs/contract.md §12), actions and reads. */
package dev.projections.ee.admin;
