package dev.projections.refresh;

/** What a drainer's turn came back with: nothing, fewer marks than a batch, a full batch, or back-pressure. */
enum Claim { EMPTY, SHORT, FULL, PRESSED }
