/**
 * What an operator or an application can do to the engine — retry, resume and skip marks, pause, suspend and resume
 * projections — as plain objects over the engine's parts, each action checked, named in its errors and attributed
 * to its caller (docs/contract.md §2, §6). The facade, the console's EJBs and the tests call the same classes; the EE
 * beans around them only check roles, demarcate transactions and write the console's audit.
 * <p>
 * Internal API: applications use {@link dev.projections.Projections}.
 */
package dev.projections.ops;
