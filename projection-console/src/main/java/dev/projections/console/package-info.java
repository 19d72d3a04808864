/**
 * Internal: the Jakarta Faces console (docs/contract.md §12); the management API is {@code console.api}, health and
 * metrics are {@code projection-endpoints}.
 *
 * <p>One name per page: the page {@code marks.xhtml} has the bean {@code MarksPage}, named {@code projectionsMarks} in
 * EL — a bean's EL name is {@code projections} and its class name without a {@code Page} or {@code Console} affix
 * ({@code RebuildDialog} is {@code projectionsRebuildDialog}, {@code ConsoleUser} {@code projectionsUser}); the prefix
 * keeps the names apart from an application's own beans when the console is a fragment of its WAR. The overview is the
 * one page whose file is not its name: {@code index.xhtml}, the welcome page every link and bookmark opens, has
 * {@code OverviewPage}. A panel with state of its own is a bean of its own beside its page ({@code RebuildDialog} on the
 * overview, {@code MarkListActions} on the mark list); a table's line is a class ({@code ProjectionRow},
 * {@code MarkLine}, {@code RebuildLine}).
 *
 * <p>Pages read through {@code ConsoleReads} and act through {@code ConsoleAdmin}, and see only the API
 * ({@code dev.projections}) and {@code dev.projections.inspect} types, never the store's. What "now" is comes from
 * {@link dev.projections.console.ConsoleClock}.
 * <p>
 * The role-checked EJBs are injected with {@code @Inject}, never {@code @EJB}: Payara leaves {@code @EJB} fields of a
 * web-fragment jar null (docs/pitfalls.md #66).
 */
package dev.projections.console;
