package dev.weft.http;

import java.util.Set;
import java.util.StringJoiner;

/**
 * The query string of the next page's {@code Link}: the request's own, without its {@code page},
 * its {@code after} and any {@code access_token} (a credential has no place in a header that
 * proxies log), and with {@code after} set to the new token.
 */
final class NextLink {
    private static final Set<String> DROPPED = Set.of("page", ReadParams.AFTER, "access_token");

    private NextLink() {}

    static String query(String raw, String token) {
        StringJoiner out = new StringJoiner("&");
        for (String part : raw.split("&")) {
            int eq = part.indexOf('=');
            String name = eq < 0 ? part : part.substring(0, eq);
            if (!part.isEmpty() && !DROPPED.contains(name)) {
                out.add(part);
            }
        }
        out.add(ReadParams.AFTER + "=" + token);
        return out.toString();
    }
}
