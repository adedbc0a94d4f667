package dev.weft.store.postgres;

import dev.weft.core.WeftException;
import java.net.URI;
import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;

/**
 * A {@code postgresql://USER[:PASSWORD]@HOST[:PORT]/DB[?param=value&...]} URL as JDBC wants it:
 * the JDBC URL (parameters kept, e.g. {@code currentSchema}), the user and the password.
 */
record PgUrl(String jdbc, String user, String password) {
    static PgUrl parse(String url) {
        URI uri;
        try {
            uri = URI.create(url.startsWith("postgres://") ? "postgresql" + url.substring("postgres".length()) : url);
        } catch (IllegalArgumentException e) {
            throw WeftException.badRequest("setting store: not a postgresql:// URL: " + e.getMessage());
        }
        if (!"postgresql".equals(uri.getScheme()) || uri.getHost() == null) {
            throw WeftException.badRequest("setting store must look like postgresql://USER@HOST:PORT/DB");
        }
        String db = uri.getPath() == null || uri.getPath().length() <= 1 ? "postgres" : uri.getPath().substring(1);
        String user = "postgres";
        String password = null;
        if (uri.getRawUserInfo() != null) {
            String[] parts = uri.getRawUserInfo().split(":", 2);
            user = URLDecoder.decode(parts[0], StandardCharsets.UTF_8);
            password = parts.length > 1 ? URLDecoder.decode(parts[1], StandardCharsets.UTF_8) : null;
        }
        String jdbc = "jdbc:postgresql://" + uri.getHost() + (uri.getPort() > 0 ? ":" + uri.getPort() : "") + "/" + db
                + (uri.getRawQuery() == null ? "" : "?" + uri.getRawQuery());
        return new PgUrl(jdbc, user, password);
    }
}
