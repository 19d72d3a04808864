package dev.projections.inspect;

import java.text.NumberFormat;
import java.util.Locale;

/** A count that stops at {@code cap}: a list of a million marks does not count a million rows per page. */
public record CappedCount(long value, long cap) {

    public boolean capped() {
        return value > cap;
    }

    /** "1,234", or "10,000+" when capped. */
    public String display() {
        NumberFormat format = NumberFormat.getIntegerInstance(Locale.ENGLISH);
        return capped() ? format.format(cap) + "+" : format.format(value);
    }
}
