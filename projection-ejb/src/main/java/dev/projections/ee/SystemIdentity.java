package dev.projections.ee;

/**
 * Every refresh runs as one fixed system identity, whichever path started it (docs/contract.md §5): the drainers and the
 * sweep run as role {@value #ROLE}, so a projection calling secured EJBs needs that role allowed, not the
 * roles of whichever user's commit happened to trigger the refresh.
 */
public final class SystemIdentity {

    public static final String ROLE = "projection-system";

    private SystemIdentity() {
    }
}
