package dev.projections.inspect;

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
}
