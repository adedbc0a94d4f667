package dev.weft.security;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.query.Filter;
import dev.weft.query.Sort;
import dev.weft.store.FindQuery;
import dev.weft.store.Metadata;
import dev.weft.store.Namespace;
import dev.weft.store.Store;
import dev.weft.store.WriteOp;
import dev.weft.store.WriteResult;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The users collection ({@code users-db}/{@code users-collection}): one document per user,
 * {@code _id} the name (a string), {@code roles} an array of strings, {@code password} a bcrypt
 * hash. As a {@link DocumentPolicy} it is the one place that keeps the collection's invariants:
 *
 * <ul>
 *   <li>every write path hashes {@code password} (after the strength rule): whole documents on
 *       insert and replace, {@code $set} or a plain PATCH body; any other operator touching
 *       {@code password}, or a path under it, is 400, so no clear-text value is ever stored;
 *   <li>no read shows it: {@link #readable} removes it from every document leaving the API;
 *   <li>no query reveals it bit by bit: filters, projections and sorts that name it are 400.
 * </ul>
 *
 * It also reads users for the authenticate stage and creates the first admin.
 */
final class UsersCollection implements DocumentPolicy {
    static final String TOKEN_KEY = "authTokenKey";
    static final String PASSWORD = "password";
    private static final byte[] PASSWORD_KEY = ("\"" + PASSWORD + "\"").getBytes(StandardCharsets.UTF_8);

    /**
     * A user as authentication needs it. {@code passwordHash} is empty for users without one;
     * {@code account} is the document without its password (access rules read it as {@code @user}).
     */
    record User(String name, Set<String> roles, Optional<String> passwordHash, JsonNode account) {
        User(String name, Set<String> roles, Optional<String> passwordHash) {
            this(name, roles, passwordHash, Json.NODES.objectNode());
        }

        Principal principal() {
            return new Principal(name, roles, account);
        }
    }

    private final Store store;
    private final Namespace ns;
    private final Json json;
    private final Passwords passwords;

    UsersCollection(Store store, Namespace ns, Json json, Passwords passwords) {
        this.store = store;
        this.ns = ns;
        this.json = json;
        this.passwords = passwords;
    }

    Namespace namespace() {
        return ns;
    }

    /** Changes whenever any user document changes. */
    long version() {
        return store.version(ns);
    }

    Optional<User> find(String name) {
        return store.get(ns, Json.NODES.stringNode(name)).map(doc -> user(name, json.parse(doc.json(), "user " + name)));
    }

    private static User user(String name, JsonNode doc) {
        Set<String> roles = new LinkedHashSet<>();
        JsonNode r = doc.get("roles");
        if (r != null && r.isArray()) {
            r.forEach(role -> {
                if (role.isString()) {
                    roles.add(role.asString());
                }
            });
        }
        JsonNode hash = doc.get(PASSWORD);
        JsonNode account = doc.deepCopy();
        if (account instanceof ObjectNode object) {
            object.remove(PASSWORD);
        }
        return new User(name, Set.copyOf(roles), hash != null && hash.isString() ? Optional.of(hash.asString()) : Optional.empty(),
                account);
    }

    // --- first start ---------------------------------------------------------------------

    /**
     * When the collection holds no user, creates {@code admin} with role {@code admin} and the
     * configured password, or a random one printed once to {@code console}. A configured password
     * must pass the strength rule (start-up fails otherwise).
     */
    void ensureAdmin(Optional<String> configured, PrintStream console) {
        if (store.database(ns.db()).isEmpty()) {
            store.putDatabase(ns.db(), Json.NODES.objectNode(), Optional.empty());
        }
        if (store.collection(ns).isEmpty()) {
            store.putCollection(ns, Json.NODES.objectNode(), Optional.empty());
        }
        boolean[] any = {false};
        store.find(ns, new FindQuery(Filter.all(), Sort.ID_DESCENDING, 0, 1, Optional.empty()), doc -> any[0] = true);
        if (any[0]) {
            return;
        }
        String password = configured.orElseGet(Passwords::random);
        ObjectNode admin = Json.NODES.objectNode();
        admin.put("_id", "admin");
        admin.putArray("roles").add("admin");
        admin.put(PASSWORD, password);
        WriteResult result = store.write(new WriteOp.InsertMany(ns, List.of(stored(admin))));
        if (result.ok() && configured.isEmpty()) {
            console.println("""
                    ==============================================================================
                    weft: first start: created user "admin" (role admin) in %s.
                    weft: its password, shown only this once:

                        %s

                    weft: change it with PATCH /%s/admin {"password": "..."}
                    ==============================================================================""".formatted(ns, password, ns));
            console.flush();
        }
    }

    /**
     * The key that signs auth tokens, shared by every node on the database: the users
     * collection's property {@value #TOKEN_KEY} (32 random bytes, base64), created by the first
     * node that finds none. Two nodes starting at once both try; the collection's etag lets one
     * win and the other read the winner's key. Replacing the collection's properties drops the
     * key: every node must then restart, and live tokens die.
     */
    byte[] tokenKey() {
        for (int attempt = 0; attempt < 3; attempt++) {
            Metadata meta = store.collection(ns).orElseThrow(() -> new IllegalStateException(ns + " is missing"));
            JsonNode stored = meta.properties().get(TOKEN_KEY);
            if (stored != null && stored.isString()) {
                return Base64.getDecoder().decode(stored.asString());
            }
            byte[] key = new byte[32];
            new SecureRandom().nextBytes(key);
            ObjectNode props = meta.properties().deepCopy();
            props.put(TOKEN_KEY, Base64.getEncoder().encodeToString(key));
            try {
                store.putCollection(ns, props, Optional.of(meta.etag()));
                return key;
            } catch (WeftException e) {
                if (e.status() != 412) {
                    throw e;
                }
            }
        }
        throw new IllegalStateException("could not agree on the auth token key of " + ns);
    }

    // --- the policy ----------------------------------------------------------------------

    @Override
    public ObjectNode stored(ObjectNode document) {
        checkId(document.get("_id"));
        JsonNode roles = document.get("roles");
        if (roles != null && !(roles.isArray() && allStrings(roles))) {
            throw WeftException.badRequest("a user's roles must be an array of strings");
        }
        JsonNode password = document.get(PASSWORD);
        if (password != null) {
            document.put(PASSWORD, hashed(password));
        }
        return document;
    }

    /** A name Basic auth can carry: it splits {@code name:password} at the first colon. */
    @Override
    public void checkId(JsonNode id) {
        if (id == null || !id.isString() || id.asString().isEmpty()) {
            throw WeftException.badRequest("a user's _id is its name, a non-empty string");
        }
        if (id.asString().indexOf(':') >= 0) {
            throw WeftException.badRequest("a user's name may not contain ':' (Basic auth splits name:password"
                    + " at the first colon, so the user could never log in)");
        }
    }

    private static boolean allStrings(JsonNode array) {
        for (JsonNode e : array) {
            if (!e.isString()) {
                return false;
            }
        }
        return true;
    }

    private String hashed(JsonNode password) {
        if (!password.isString()) {
            throw WeftException.badRequest("password must be a string");
        }
        return passwords.hash(password.asString());
    }

    @Override
    public ObjectNode update(ObjectNode body) {
        ObjectNode ops = body;
        boolean operators = ops.propertyNames().stream().anyMatch(k -> k.startsWith("$"));
        if (!operators) {
            checkSettable(ops);
            return body;
        }
        for (Map.Entry<String, JsonNode> op : ops.properties()) {
            JsonNode fields = op.getValue();
            if (!fields.isObject()) {
                continue; // the update parser reports it
            }
            if (op.getKey().equals("$set")) {
                checkSettable((ObjectNode) fields);
                continue;
            }
            for (Map.Entry<String, JsonNode> field : fields.properties()) {
                boolean renamedOnto = op.getKey().equals("$rename") && field.getValue().isString()
                        && touchesPassword(field.getValue().asString());
                if (touchesPassword(field.getKey()) || renamedOnto) {
                    throw WeftException.badRequest("password can only be changed with $set (or a plain PATCH body), not " + op.getKey());
                }
            }
        }
        return body;
    }

    /** A {@code $set} (or plain body): {@code password} itself is hashed, paths below it refused. */
    private void checkSettable(ObjectNode fields) {
        for (String path : List.copyOf(fields.propertyNames())) {
            if (path.equals(PASSWORD)) {
                fields.put(PASSWORD, hashed(fields.get(PASSWORD)));
            } else if (touchesPassword(path)) {
                throw WeftException.badRequest("password is a string; " + path + " cannot be set");
            }
        }
    }

    @Override
    public byte[] readable(byte[] stored) {
        if (!contains(stored, PASSWORD_KEY)) {
            return stored;
        }
        ObjectNode doc = json.parseObject(stored, "user");
        return doc.remove(PASSWORD) == null ? stored : json.bytes(doc);
    }

    @Override
    public ObjectNode readable(ObjectNode document) {
        List.copyOf(document.propertyNames()).stream().filter(UsersCollection::touchesPassword).forEach(document::remove);
        return document;
    }

    @Override
    public void checkQuery(String param, JsonNode spec) {
        if (spec.isObject()) {
            for (Map.Entry<String, JsonNode> e : spec.properties()) {
                checkPath(param, e.getKey());
                checkQuery(param, e.getValue());
            }
        } else if (spec.isArray()) {
            spec.forEach(e -> checkQuery(param, e));
        }
    }

    @Override
    public void checkPath(String param, String path) {
        if (touchesPassword(path)) {
            throw WeftException.badRequest(param + " may not use password in " + ns);
        }
    }

    static boolean touchesPassword(String path) {
        return path.equals(PASSWORD) || path.startsWith(PASSWORD + ".");
    }

    private static boolean contains(byte[] haystack, byte[] needle) {
        outer:
        for (int i = 0; i + needle.length <= haystack.length; i++) {
            for (int j = 0; j < needle.length; j++) {
                if (haystack[i + j] != needle[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }
}
