package dev.projections.inspect;

/** Marks of a projection no instance deploys any more (no {@code projection_instance} row seen recently). */
public record OrphanedMarks(String projection, long marks) {
}
