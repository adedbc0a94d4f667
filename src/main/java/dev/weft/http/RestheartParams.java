package dev.weft.http;

import dev.weft.core.WeftException;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;

/**
 * RESTHeart's query parameters that Weft does not honour are refused with 400 naming them,
 * never silently ignored: a client asking for {@code rep=hal} must not get the standard
 * representation as if it were what it asked for. {@code np} (no properties) is what Weft's
 * answers always are, so {@code np} and {@code np=true} are honoured and only {@code np=false} is
 * refused. The table of every RESTHeart parameter is in the README.
 */
final class RestheartParams {
    private static final Map<String, String> REFUSED = Map.ofEntries(
            Map.entry("hal", "the HAL representation is not supported"),
            Map.entry("checkEtag", "checkEtag is not supported: send If-Match to make a write conditional"),
            Map.entry("shardkey", "shardkey is not supported"),
            Map.entry("cache", "cache is not supported: there are no aggregations to cache"),
            Map.entry("sort_by", "sort_by is not supported: use sort"),
            Map.entry("writeMode", "writeMode is not supported: use wm"),
            Map.entry("writeConcern", "writeConcern is not supported: use durability"),
            Map.entry("readConcern", "readConcern is not supported: use readMode"),
            Map.entry("readPreference", "readPreference is not supported: use readMode"));

    private RestheartParams() {}

    /** 400 naming the first RESTHeart parameter of the request that Weft does not honour. */
    static void refuseUnsupported(Exchange ex) {
        if (ex.queryString().isEmpty()) {
            return;
        }
        for (String name : ex.paramNames()) {
            String why = REFUSED.get(name);
            if (why != null) {
                throw WeftException.badRequest("query parameter " + name + ": " + why);
            }
        }
        Optional<String> np = ex.param("np");
        if (np.isPresent() && !np.get().isEmpty() && !np.get().equalsIgnoreCase("true")) {
            throw WeftException.badRequest("query parameter np=" + np.get()
                    + ": properties are never listed: GET /db and /db/coll answer names and documents only (np=true)");
        }
        JsonMode.of(ex);
        Optional<String> rep = ex.param("rep");
        if (rep.isPresent() && !standard(rep.get())) {
            throw WeftException.badRequest("query parameter rep=" + rep.get()
                    + ": only the standard representation (rep=s) is supported");
        }
    }

    private static boolean standard(String rep) {
        String r = rep.trim().toLowerCase(Locale.ROOT);
        return r.equals("s") || r.equals("standard");
    }
}
