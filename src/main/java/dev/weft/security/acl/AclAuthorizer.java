package dev.weft.security.acl;

import dev.weft.core.Json;
import dev.weft.core.Settings;
import dev.weft.core.WeftException;
import dev.weft.query.Filter;
import dev.weft.query.QueryLimits;
import dev.weft.query.Sort;
import dev.weft.security.AccessRequest;
import dev.weft.security.Authorizer;
import dev.weft.security.DocumentPolicy;
import dev.weft.security.Permission;
import dev.weft.security.Principal;
import dev.weft.store.FindQuery;
import dev.weft.store.Namespace;
import dev.weft.store.Store;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import tools.jackson.databind.node.ObjectNode;

/**
 * The authorize stage over the access rules, as RESTHeart's two ACL authorizers: the rules in
 * {@code /weft/acl} (settings {@code acl-db}, {@code acl-collection}), tried as RESTHeart's mongo
 * ACL reads its collection, highest {@code priority} first (ties: highest {@code _id}), and the
 * rules of the optional {@code acl-file}, tried as its file ACL, lowest priority first. Deny by
 * default: a request is allowed only by the built-ins (role {@code admin} may do anything; anyone
 * may {@code GET /ping}), or else by the first matching file rule of the principal's roles, or
 * else by the first matching collection rule; no match is 401 for an anonymous request, 403
 * otherwise.
 *
 * <p>Rules are compiled into memory and reloaded when the collection's {@link Store#version}
 * changes, which is checked on every request (a map read), so a rule change applies to the next
 * request on this node, without a restart, and on other nodes as soon as their store sees the
 * commit. The version is read before the rules, so a write racing a reload only causes another
 * reload.
 */
public final class AclAuthorizer implements Authorizer {
    private static final Logger LOG = LoggerFactory.getLogger(AclAuthorizer.class);

    /** The built-in role that may do anything. */
    public static final String ADMIN_ROLE = "admin";

    private record Snapshot(long version, List<Rule> rules) {}

    private final Store store;
    private final Namespace ns;
    private final QueryLimits limits;
    private final Json json;
    private final Optional<AclFile> file;
    private volatile Snapshot snapshot = new Snapshot(Long.MIN_VALUE, List.of());

    private AclAuthorizer(Store store, Namespace ns, QueryLimits limits, Json json, Optional<AclFile> file) {
        this.store = store;
        this.ns = ns;
        this.limits = limits;
        this.json = json;
        this.file = file;
    }

    /**
     * The authorizer over {@code settings}' acl collection, creating it (and its database) if
     * missing, and its {@code acl-file} if set (400 naming the first bad rule of the file).
     */
    public static AclAuthorizer open(Store store, Settings settings) {
        Namespace ns = new Namespace(settings.aclDb(), settings.aclCollection());
        if (store.database(ns.db()).isEmpty()) {
            store.putDatabase(ns.db(), Json.NODES.objectNode(), Optional.empty());
        }
        if (store.collection(ns).isEmpty()) {
            store.putCollection(ns, Json.NODES.objectNode(), Optional.empty());
        }
        QueryLimits limits = QueryLimits.of(settings);
        Json json = new Json(settings.maxNestingDepth());
        Optional<AclFile> file = settings.aclFile().map(path -> AclFile.open(path, limits, json).watch());
        return new AclAuthorizer(store, ns, limits, json, file);
    }

    /** Reads the acl file again now (as a change of the file or SIGHUP does); false when it has a bad rule. */
    public boolean reloadAclFile() {
        return file.map(AclFile::reload).orElse(false);
    }

    @Override
    public Permission authorize(Principal principal, AccessRequest request) {
        return builtIn(principal, request.method(), request.segments())
                .orElseGet(() -> authorize(principal, request, rules()));
    }

    /**
     * A rule written by any path (POST, array, ndjson, PUT, PATCH, bulk PATCH) must compile, else
     * 400 naming the problem and nothing is stored: for an update, the document it leaves behind.
     */
    @Override
    public DocumentPolicy.Lookup policies() {
        DocumentPolicy rulesMustCompile = new DocumentPolicy() {
            @Override
            public ObjectNode stored(ObjectNode document) {
                updated(document);
                return document;
            }

            @Override
            public boolean checksUpdates() {
                return true;
            }

            @Override
            public void updated(ObjectNode document) {
                Rule rule = Rule.compile(document, limits, json);
                rule.broken().ifPresent(why -> {
                    throw WeftException.badRequest("access rule " + rule.id() + " is invalid: " + why);
                });
            }
        };
        return target -> target.equals(ns) ? rulesMustCompile : DocumentPolicy.NONE;
    }

    @Override
    public Optional<Permission> authorizeFromMemory(Principal principal, AccessRequest request) {
        // built-ins first, as authorize does: they need no rules, and an admin-only workload never
        // loads them, so checking the rules' version first sent every admin request to the stages
        Optional<Permission> builtIn = builtIn(principal, request.method(), request.segments());
        if (builtIn.isPresent()) {
            return builtIn;
        }
        Snapshot s = snapshot;
        if (s.version() != store.version(ns)) {
            return Optional.empty();
        }
        try {
            return Optional.of(authorize(principal, request, s.rules()));
        } catch (WeftException e) {
            return Optional.empty();
        }
    }

    /**
     * Admin, {@code GET /ping} and a user's own {@code /tokens/{user}}, decided before the rules are even loaded, so that no stored
     * rule can make them unreachable (the admin must be able to repair the rules).
     */
    private static Optional<Permission> builtIn(Principal principal, String method, List<String> segments) {
        boolean anonymous = principal.name().isEmpty();
        if (principal.roles().contains(ADMIN_ROLE) && !anonymous) {
            return Optional.of(Permission.ALL);
        }
        boolean ping = method.equals("GET") && segments.size() == 1 && segments.getFirst().equals("ping");
        // RESTHeart's /tokens/{user}: every user may read and revoke their own token
        boolean ownToken = !anonymous && (method.equals("GET") || method.equals("DELETE")) && segments.size() == 2
                && segments.get(0).equals("tokens") && segments.get(1).equals(principal.name());
        if (ping || ownToken) {
            return Optional.of(new Permission(anonymous, Optional.empty(), Optional.empty(), Optional.empty(), List.of(),
                    Optional.empty(), Permission.Allowances.NONE, ""));
        }
        return Optional.empty();
    }

    /** The file's rules first, then the collection's: the first that matches decides. */
    private Permission authorize(Principal principal, AccessRequest request, List<Rule> collectionRules) {
        boolean anonymous = principal.name().isEmpty();
        RequestPredicate.Subject subject = new RequestPredicate.Subject(principal, request);
        Optional<Permission> granted = file.flatMap(f -> firstMatch(f.rules(), subject));
        if (granted.isEmpty()) {
            granted = firstMatch(collectionRules, subject);
        }
        return granted.orElseThrow(() -> Permission.denied(anonymous, anonymous
                ? "authentication required: no access rule allows anonymous " + request.method() + " on this path"
                : "no access rule allows " + principal.name() + " to " + request.method() + " this path"));
    }

    private Optional<Permission> firstMatch(List<Rule> rules, RequestPredicate.Subject subject) {
        for (Rule rule : rules) {
            if (rule.appliesTo(subject.principal()) && rule.predicate().test(subject)) {
                return Optional.of(rule.permission(subject, limits, json));
            }
            subject.vars().clear();
        }
        return Optional.empty();
    }

    @Override
    public long rulesVersion() {
        return store.version(ns);
    }

    /** The compiled rules in the order they are tried, reloaded when the collection changed. */
    List<Rule> rules() {
        long version = store.version(ns);
        Snapshot s = snapshot;
        if (s.version() == version) {
            return s.rules();
        }
        synchronized (this) {
            s = snapshot;
            if (s.version() != version) {
                s = new Snapshot(version, load());
                snapshot = s;
            }
        }
        return s.rules();
    }

    private List<Rule> load() {
        List<Rule> rules = new ArrayList<>();
        try {
            store.find(ns, new FindQuery(Filter.all(), Sort.ID_DESCENDING, 0, Long.MAX_VALUE, Optional.empty()), doc -> {
                Rule compiled;
                try {
                    compiled = Rule.compile(json.parseObject(doc.json(), "access rule"), limits, json);
                } catch (RuntimeException unreadable) {
                    compiled = Rule.broken("?", Set.of(), Rule.Order.HIGHEST_FIRST.first, "not a JSON object: "
                            + unreadable.getMessage());
                }
                Rule rule = compiled;
                rule.broken().ifPresent(why -> LOG.error("access rule {} is invalid and denies every request it "
                        + "could match for roles {}: {}", rule.id(), rule.roles(), why));
                rules.add(rule);
            });
        } catch (WeftException e) {
            LOG.warn("access rules not loaded ({}): only admin and GET /ping are allowed", e.getMessage());
        }
        // RESTHeart's mongo ACL: sort {priority: -1, _id: -1}.
        rules.sort(Comparator.comparingInt(Rule::priority).thenComparing(Rule::id).reversed());
        LOG.info("access rules loaded: {}", rules.size());
        return List.copyOf(rules);
    }
}
