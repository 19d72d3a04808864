package dev.projections.inspect;

import java.util.Map;
import java.util.TreeMap;

/**
 * Failing marks whose last errors share a head (docs/contract.md §12), and how many there are.
 */
public record ErrorGroup(String head, long count) {

    /** Heads longer than this are cut: the prefix filters accept up to 500 characters. */
    static final int MAX_HEAD = 200;

    /**
     * The part of an error its group is known by: its first line up to the first digit, since what varies between
     * the failures of one cause is mostly numbers (ids, amounts, line numbers, timestamps). An error that starts
     * with a digit, or whose head would be shorter than a word, keeps its whole first line. Always a prefix of
     * {@code error}, so the marks of a group are those whose error starts with its head.
     */
    public static String headOf(String error) {
        if (error == null || error.isEmpty()) {
            return "";
        }
        int newline = error.indexOf('\n');
        String line = newline < 0 ? error : error.substring(0, newline);
        int digit = 0;
        while (digit < line.length() && !Character.isDigit(line.charAt(digit))) {
            digit++;
        }
        String head = digit >= 8 ? line.substring(0, digit) : line;
        return head.length() <= MAX_HEAD ? head : head.substring(0, MAX_HEAD);
    }

    /**
     * The counts of heads that start with another head added to that one: a group's link lists the marks whose error
     * starts with its head, so a group must count exactly those, or its bulk actions would touch marks of another.
     * In sorted order every head that starts with a head follows it directly.
     */
    static Map<String, Long> mergedByPrefix(Map<String, Long> counts) {
        Map<String, Long> merged = new TreeMap<>();
        String root = null;
        for (Map.Entry<String, Long> head : new TreeMap<>(counts).entrySet()) {
            if (root != null && !root.isEmpty() && head.getKey().startsWith(root)) {
                merged.merge(root, head.getValue(), Long::sum);
            } else {
                root = head.getKey();
                merged.put(root, head.getValue());
            }
        }
        return merged;
    }
}
