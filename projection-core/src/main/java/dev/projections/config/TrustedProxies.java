package dev.projections.config;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * The reverse proxies whose {@code X-Forwarded-For} the console's login throttle believes
 * ({@value Settings#TRUSTED_PROXIES}): addresses and CIDR ranges, IPv4 or IPv6. A login that arrives from one of them
 * counts against the client the header names — the rightmost address in it that is not itself a trusted proxy, so a
 * client cannot choose the address it is counted under by sending a header of its own through the proxy. A login from
 * any other address counts against that address, whatever header it sends. None by default: the connection's address
 * counts (docs/contract.md §12, "Logins").
 */
public final class TrustedProxies {

    public static final TrustedProxies NONE = new TrustedProxies(List.of(), "");

    /* literal addresses only: a host name would make parsing the setting (or a header) a DNS lookup */
    private static final Pattern IPV4 = Pattern.compile("\\d{1,3}(\\.\\d{1,3}){3}");
    /* a hex digit or a colon first: InetAddress would take ".:" or "-:" for a host name and look it up */
    private static final Pattern IPV6 = Pattern.compile("[0-9A-Fa-f:][0-9A-Fa-f:.]*:[0-9A-Fa-f:.]*");

    private record Range(byte[] network, int prefix) {
        boolean contains(byte[] address) {
            if (address.length != network.length) {
                return false;
            }
            int whole = prefix / 8;
            for (int i = 0; i < whole; i++) {
                if (address[i] != network[i]) {
                    return false;
                }
            }
            int rest = prefix % 8;
            if (rest == 0) {
                return true;
            }
            int mask = (0xFF << (8 - rest)) & 0xFF;
            return (address[whole] & mask) == (network[whole] & mask);
        }
    }

    private final List<Range> ranges;
    private final String text;

    private TrustedProxies(List<Range> ranges, String text) {
        this.ranges = ranges;
        this.text = text;
    }

    /**
     * Parses a comma-separated list such as {@code 10.0.0.0/8, 192.168.1.7, fd00::/8}; an entry that is not a literal
     * address or a range of one throws {@link IllegalArgumentException} naming the entry.
     */
    public static TrustedProxies parse(String list) {
        if (list == null || list.isBlank()) {
            return NONE;
        }
        List<Range> ranges = new ArrayList<>();
        for (String entry : list.split(",")) {
            String trimmed = entry.trim();
            if (trimmed.isEmpty()) {
                continue;
            }
            int slash = trimmed.indexOf('/');
            byte[] network = literal(slash < 0 ? trimmed : trimmed.substring(0, slash));
            if (network == null) {
                throw new IllegalArgumentException("\"" + trimmed + "\" is not an IP address or a CIDR range");
            }
            int prefix = network.length * 8;
            if (slash >= 0) {
                String bits = trimmed.substring(slash + 1);
                if (!bits.matches("\\d{1,3}") || Integer.parseInt(bits) > network.length * 8) {
                    throw new IllegalArgumentException("\"" + trimmed + "\" has no prefix length of 0 to "
                            + network.length * 8);
                }
                prefix = Integer.parseInt(bits);
            }
            ranges.add(new Range(network, prefix));
        }
        return new TrustedProxies(List.copyOf(ranges), list.trim());
    }

    public boolean isEmpty() {
        return ranges.isEmpty();
    }

    /** Whether {@code address} (a literal; anything else is not) is one of the trusted proxies. */
    public boolean trusts(String address) {
        byte[] bytes = literal(address);
        return bytes != null && ranges.stream().anyMatch(range -> range.contains(bytes));
    }

    /**
     * The client a request stands for: {@code peer}, the address of the connection, unless it is a trusted proxy; then
     * the rightmost address of {@code forwardedFor} (every {@code X-Forwarded-For} header of the request, in order,
     * each possibly a list) that is not a trusted proxy — or the leftmost, when every hop is one. An entry that is not
     * an address (a proxy that writes {@code unknown}, or an obfuscated name) ends the walk: the hop that wrote it is
     * trusted, so it counts as the client. No header: the peer.
     */
    public String client(String peer, List<String> forwardedFor) {
        if (peer == null || !trusts(peer) || forwardedFor == null) {
            return peer;
        }
        List<String> hops = new ArrayList<>();
        for (String header : forwardedFor) {
            if (header != null) {
                for (String hop : header.split(",")) {
                    if (!hop.isBlank()) {
                        hops.add(hop.trim());
                    }
                }
            }
        }
        String client = peer;
        for (int i = hops.size() - 1; i >= 0; i--) {
            String hop = bare(hops.get(i));
            if (literal(hop) == null) {
                return client;
            }
            client = hop;
            if (!trusts(hop)) {
                return hop;
            }
        }
        return client;
    }

    /** {@code [2001:db8::1]:443} and {@code 192.0.2.1:80} as the address alone (some proxies append the port). */
    private static String bare(String hop) {
        if (hop.startsWith("[")) {
            int end = hop.indexOf(']');
            return end < 0 ? hop : hop.substring(1, end);
        }
        int colon = hop.indexOf(':');
        return colon > 0 && colon == hop.lastIndexOf(':') && IPV4.matcher(hop.substring(0, colon)).matches()
                ? hop.substring(0, colon) : hop;
    }

    /** The bytes of a literal IPv4 or IPv6 address, without any name lookup; null for anything else. */
    private static byte[] literal(String address) {
        if (address == null || !(IPV4.matcher(address).matches() || IPV6.matcher(address).matches())) {
            return null;
        }
        if (IPV4.matcher(address).matches()) {
            for (String part : address.split("\\.")) {
                if (Integer.parseInt(part) > 255) {
                    return null;
                }
            }
        }
        try {
            return InetAddress.getByName(address).getAddress(); // a literal: parsed, never looked up
        } catch (UnknownHostException e) {
            return null;
        }
    }

    @Override
    public String toString() {
        return text;
    }
}
