package dev.projections.console;

import dev.projections.inspect.PageCursor;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Base64;

/**
 * A mark list's keyset position in a URL ({@code marks.xhtml?after=…}): the sort key of a row — due instant, tenant,
 * id — as base64url of a small text form, {@code 1|<instant>|<tenant length>|<tenant><id>}. The length prefix, not a
 * separator, ends the tenant, so any character of a tenant or an id survives; base64url keeps the token one safe
 * URL word. A token is a position, not a permission: the list re-applies its filter to it, so a hand-made token can
 * only start a page somewhere else in the same list.
 */
public final class CursorToken {

    /** Longer than any real token (an id is at most 200 characters, a tenant 64): refused unread. */
    static final int MAX_LENGTH = 1_200;

    private static final String VERSION = "1";

    private CursorToken() {
    }

    public static String encode(PageCursor cursor) {
        String text = VERSION + "|" + cursor.availableAt() + "|" + cursor.tenant().length() + "|" + cursor.tenant()
                + cursor.id();
        return Base64.getUrlEncoder().withoutPadding().encodeToString(text.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * The cursor of {@code token}.
     *
     * @throws IllegalArgumentException naming what is wrong with a token that no list wrote (cut, edited, made up)
     */
    public static PageCursor decode(String token) {
        if (token == null || token.isEmpty() || token.length() > MAX_LENGTH) {
            throw new IllegalArgumentException("a page position must be 1.." + MAX_LENGTH + " characters, was "
                    + (token == null ? "none" : token.length()));
        }
        String text;
        try {
            text = new String(Base64.getUrlDecoder().decode(token), StandardCharsets.UTF_8);
        } catch (IllegalArgumentException notBase64) {
            throw new IllegalArgumentException("a page position is base64url, this is not");
        }
        String[] parts = text.split("\\|", 4);
        if (parts.length != 4 || !parts[0].equals(VERSION)) {
            throw new IllegalArgumentException("a page position has the form 1|due|length|tenant+id, this has not");
        }
        Instant due;
        try {
            due = Instant.parse(parts[1]);
        } catch (DateTimeParseException badInstant) {
            throw new IllegalArgumentException("a page position's due time must be an ISO instant, was " + parts[1]);
        }
        int tenantLength;
        try {
            tenantLength = Integer.parseInt(parts[2]);
        } catch (NumberFormatException badNumber) {
            tenantLength = -1;
        }
        if (tenantLength < 0 || tenantLength > parts[3].length() - 1) {
            throw new IllegalArgumentException("a page position's tenant length must leave an id, was " + parts[2]);
        }
        return new PageCursor(due, parts[3].substring(0, tenantLength), parts[3].substring(tenantLength));
    }
}
