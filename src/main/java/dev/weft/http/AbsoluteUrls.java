package dev.weft.http;

import dev.weft.core.Settings;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.regex.Pattern;

/**
 * Absolute URLs for {@code Location}, as RESTHeart answers them (clients follow
 * {@code Location} as a URL): the {@code base-url} setting when set, else the request's scheme
 * and {@code Host}. {@code X-Forwarded-Proto} and {@code X-Forwarded-Host} are believed only from
 * the addresses in {@code trusted-proxies}: from anyone else they would let a client write the
 * host of a link the server hands out. A {@code Host} that is not a plain host[:port] gives a
 * relative {@code Location} instead.
 */
final class AbsoluteUrls {
    private static final Pattern AUTHORITY = Pattern.compile("[A-Za-z0-9.\\-]+(:\\d{1,5})?|\\[[0-9A-Fa-f:.]+](:\\d{1,5})?");

    private final Optional<String> baseUrl;
    private final Set<String> trustedProxies;

    AbsoluteUrls(Optional<String> baseUrl, List<String> trustedProxies) {
        this.baseUrl = baseUrl;
        this.trustedProxies = Set.copyOf(trustedProxies);
    }

    static AbsoluteUrls of(Settings settings) {
        return new AbsoluteUrls(settings.baseUrl(), settings.trustedProxies());
    }

    /** {@code path} (absolute, already encoded) as a URL for this request's client. */
    String of(Exchange ex, String path) {
        if (baseUrl.isPresent()) {
            return baseUrl.get() + path;
        }
        boolean proxied = trustedProxies.contains(ex.remoteAddress());
        String scheme = (proxied ? forwarded(ex, "X-Forwarded-Proto") : Optional.<String>empty())
                .filter(p -> p.equals("http") || p.equals("https"))
                .orElse(ex.secure() ? "https" : "http");
        Optional<String> host = (proxied ? forwarded(ex, "X-Forwarded-Host") : Optional.<String>empty())
                .or(() -> ex.header("Host").map(String::trim))
                .filter(h -> AUTHORITY.matcher(h).matches());
        return host.map(h -> scheme + "://" + h + path).orElse(path);
    }

    /** The first (client-side) value of a forwarded header. */
    private static Optional<String> forwarded(Exchange ex, String name) {
        return ex.header(name).map(v -> v.split(",", 2)[0].trim().toLowerCase(java.util.Locale.ROOT))
                .filter(v -> !v.isEmpty());
    }
}
