package dev.weft.security.acl;

import dev.weft.core.Json;
import dev.weft.core.RelaxedJson;
import dev.weft.core.WeftException;
import dev.weft.security.AccessRequest;
import dev.weft.security.Principal;
import java.math.BigInteger;
import java.security.SecureRandom;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * RESTHeart's ACL variables, resolved per request: {@code @user} and {@code @user.<path>} (the
 * account; {@code @user._id} and {@code @user.userid} name the user), {@code @user.roles},
 * {@code @request} and {@code @request.<part>}, {@code @request.body} and
 * {@code @request.body.<path>}, {@code @qparams['name']}, {@code @filter},
 * {@code @mongoPermissions[.<path>]}, {@code @rnd(bits)}, {@code @now} / {@code %NOW},
 * {@code %USER}, {@code %ROLES}.
 *
 * <p>A variable that has no value for this request (an anonymous {@code @user}, a missing or
 * null property, a missing parameter or body field) is <em>unresolved</em>: {@link #resolve}
 * answers empty, and callers make it match nothing and write nothing. RESTHeart before 9.8.2
 * turned it into {@code null}, so {@code {"owner": "@user.team"}} matched every document
 * without an owner.
 */
final class Variables {
    private static final List<String> PREFIXES = List.of("@user", "@request", "@qparams", "@filter",
            "@mongoPermissions", "@rnd", "@now", "%NOW", "%USER", "%ROLES");
    private static final SecureRandom RANDOM = new SecureRandom();
    static final int MAX_RANDOM_BITS = 4096;

    private Variables() {}

    /** Whether {@code text} is meant as a variable (it is then checked by {@link #check}). */
    static boolean looksLikeVariable(String text) {
        for (String prefix : PREFIXES) {
            if (text.startsWith(prefix)) {
                return true;
            }
        }
        return false;
    }

    /** 400 naming {@code where} for a variable that is malformed or unknown, so a typo never reads as text. */
    static void check(String text, String where) {
        boolean known = text.equals("@user") || text.startsWith("@user.") && text.length() > 6
                || text.equals("@request") || text.startsWith("@request.") && text.length() > 9
                || qparam(text).isPresent() || text.equals("@filter")
                || text.equals("@mongoPermissions") || text.startsWith("@mongoPermissions.") && text.length() > 18
                || randomBits(text).isPresent() || text.equals("@now") || text.equals("%NOW")
                || text.equals("%USER") || text.equals("%ROLES");
        if (!known) {
            throw WeftException.badRequest(where + ": unknown variable " + text + " (@user, @user.<property>,"
                    + " @request, @request.<part>, @request.body.<path>, @qparams['name'], @filter,"
                    + " @mongoPermissions, @rnd(1.." + MAX_RANDOM_BITS + "), @now, %NOW, %USER, %ROLES)");
        }
    }

    /** The variable's value for this request, empty when unresolved; {@code rule} is the rule's restrictions. */
    static Optional<JsonNode> resolve(String name, RequestPredicate.Subject s, JsonNode rule) {
        Principal p = s.principal();
        boolean anonymous = p.name().isEmpty();
        if (name.equals("@now") || name.equals("%NOW")) {
            return Optional.of(Json.NODES.objectNode().put("$date", s.nowMillis()));
        }
        if (name.equals("%USER") || name.equals("@user._id") || name.equals("@user.userid") && !p.account().has("userid")) {
            return anonymous ? Optional.empty() : Optional.of(Json.NODES.stringNode(p.name()));
        }
        if (name.equals("%ROLES") || name.equals("@user.roles")) {
            ArrayNode roles = Json.NODES.arrayNode();
            p.roles().stream().sorted().forEach(roles::add);
            return Optional.of(roles);
        }
        if (name.equals("@user")) {
            return anonymous ? Optional.empty() : Optional.of(account(p));
        }
        if (name.startsWith("@user.")) {
            return anonymous ? Optional.empty() : at(account(p), name.substring(6));
        }
        if (name.equals("@request.body")) {
            return s.request().jsonBody().filter(b -> !b.isNull());
        }
        if (name.startsWith("@request.body.")) {
            return s.request().jsonBody().flatMap(b -> at(b, name.substring(14)));
        }
        if (name.equals("@request")) {
            return Optional.of(request(s));
        }
        if (name.startsWith("@request.")) {
            return at(request(s), name.substring(9));
        }
        Optional<String> qparam = qparam(name);
        if (qparam.isPresent()) {
            return s.request().param(qparam.get()).map(Json.NODES::stringNode);
        }
        if (name.equals("@filter")) {
            return filter(s.request());
        }
        if (name.equals("@mongoPermissions")) {
            return Optional.of(rule);
        }
        if (name.startsWith("@mongoPermissions.")) {
            return at(rule, name.substring(18));
        }
        return randomBits(name).map(Variables::random);
    }

    /** The value as predicates compare it: a string as itself, anything else as its JSON text. */
    static String text(JsonNode value) {
        return value.isString() ? value.asString() : value.isValueNode() ? value.asString() : value.toString();
    }

    private static JsonNode account(Principal p) {
        ObjectNode account = p.account().isObject() ? ((ObjectNode) p.account()).deepCopy() : Json.NODES.objectNode();
        account.put("_id", p.name());
        if (!account.has("userid")) {
            account.put("userid", p.name());
        }
        ArrayNode roles = account.putArray("roles");
        p.roles().stream().sorted().forEach(roles::add);
        return account;
    }

    /** RESTHeart's request object, without what Weft has no notion of. */
    private static JsonNode request(RequestPredicate.Subject s) {
        AccessRequest r = s.request();
        ObjectNode doc = Json.NODES.objectNode();
        List<String> seg = r.segments();
        doc.put("db", seg.isEmpty() ? null : seg.get(0));
        doc.put("collection", seg.size() < 2 ? null : seg.get(1));
        doc.put("_id", seg.size() < 3 ? null : seg.get(2));
        doc.put("userName", s.principal().name().isEmpty() ? null : s.principal().name());
        doc.putObject("epochTimeStamp").put("$date", s.nowMillis());
        doc.put("queryString", r.queryString());
        doc.put("relativePath", r.path());
        doc.put("remoteIp", r.remoteAddress());
        doc.put("method", r.method());
        return doc;
    }

    private static Optional<JsonNode> filter(AccessRequest r) {
        Optional<String> filter = r.param("filter");
        if (filter.isEmpty()) {
            return Optional.of(Json.NODES.objectNode());
        }
        try {
            return Optional.of(RelaxedJson.parse(filter.get(), "filter"));
        } catch (WeftException e) {
            return Optional.empty();
        }
    }

    /** A dotted path into {@code root}; missing or null is unresolved. */
    static Optional<JsonNode> at(JsonNode root, String path) {
        JsonNode node = root;
        for (String part : path.split("\\.", -1)) {
            if (node.isObject()) {
                node = node.get(part);
            } else if (node.isArray() && part.matches("\\d{1,9}")) {
                node = node.get(Integer.parseInt(part));
            } else {
                return Optional.empty();
            }
            if (node == null || node.isNull()) {
                return Optional.empty();
            }
        }
        return Optional.of(node);
    }

    private static Optional<String> qparam(String text) {
        for (String quote : List.of("'", "\"")) {
            String open = "@qparams[" + quote;
            String close = quote + "]";
            if (text.startsWith(open) && text.endsWith(close) && text.length() > open.length() + close.length()) {
                return Optional.of(text.substring(open.length(), text.length() - close.length()));
            }
        }
        return Optional.empty();
    }

    private static Optional<Integer> randomBits(String text) {
        if (!text.startsWith("@rnd(") || !text.endsWith(")") || !text.substring(5, text.length() - 1).matches("\\d{1,4}")) {
            return Optional.empty();
        }
        int bits = Integer.parseInt(text.substring(5, text.length() - 1));
        return bits >= 1 && bits <= MAX_RANDOM_BITS ? Optional.of(bits) : Optional.empty();
    }

    private static JsonNode random(int bits) {
        byte[] bytes = new byte[(bits + 7) / 8];
        RANDOM.nextBytes(bytes);
        String hex = new BigInteger(1, bytes).toString(16);
        return Json.NODES.stringNode("0".repeat(bytes.length * 2 - hex.length()) + hex);
    }
}
