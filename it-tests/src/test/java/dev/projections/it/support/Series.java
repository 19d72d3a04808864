package dev.projections.it.support;

import java.util.ArrayList;
import java.util.List;

/**
 * A derived table of the integers 0..last, in column {@code g}, that PostgreSQL and MariaDB both read: neither
 * {@code generate_series} (PostgreSQL only) nor a recursive CTE (MariaDB stops one after 1,000 iterations by
 * default) but cross joins of the ten digits.
 */
public final class Series {

    private static final String DIGITS = "(SELECT 0 AS n UNION ALL SELECT 1 UNION ALL SELECT 2 UNION ALL SELECT 3 "
            + "UNION ALL SELECT 4 UNION ALL SELECT 5 UNION ALL SELECT 6 UNION ALL SELECT 7 UNION ALL SELECT 8 "
            + "UNION ALL SELECT 9)";

    private Series() {
    }

    /** {@code (SELECT g …) series}: use as {@code SELECT … g … FROM } + {@code upTo(999)}. */
    public static String upTo(int last) {
        if (last < 0) {
            throw new IllegalArgumentException("a series needs last >= 0, was " + last);
        }
        List<String> terms = new ArrayList<>();
        List<String> tables = new ArrayList<>();
        long weight = 1;
        for (int place = 0; place < Integer.toString(last).length(); place++) {
            terms.add(weight + " * d" + place + ".n");
            tables.add(DIGITS + " d" + place);
            weight *= 10;
        }
        return "(SELECT g FROM (SELECT " + String.join(" + ", terms) + " AS g FROM " + String.join(" CROSS JOIN ", tables)
                + ") numbers WHERE g <= " + last + ") series";
    }
}
