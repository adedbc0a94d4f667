package dev.weft.security.acl;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.query.QueryLimits;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.ClosedWatchServiceException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardWatchEventKinds;
import java.nio.file.WatchEvent;
import java.nio.file.WatchKey;
import java.nio.file.WatchService;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * RESTHeart's ACL file ({@code acl.yml}, setting {@code acl-file}): a {@code permissions:} list of
 * rules with {@code role} or {@code roles}, {@code predicate}, {@code priority} and a
 * {@code mongo} section, tried lowest priority first (of equal priorities the one written last
 * first; no priority: last), as RESTHeart's file authorizer does. The list may also sit under {@code /fileAclAuthorizer:} or
 * {@code fileAclAuthorizer:}, as in a RESTHeart configuration file.
 *
 * <p>Every rule must compile: a bad one stops the start with a message naming it. The file is
 * read again when it changes (a watcher thread) or on SIGHUP; a new version with a bad rule is
 * logged and the previous rules stay in force.
 */
final class AclFile implements AutoCloseable {
    private static final Logger LOG = LoggerFactory.getLogger(AclFile.class);
    /** YAML anchors can expand exponentially ("billion laughs"); an ACL needs few. */
    private static final int MAX_ALIASES = 50;
    private static final int MAX_FILE_BYTES = 4 << 20;

    private final Path path;
    private final QueryLimits limits;
    private final Json json;
    private volatile List<Rule> rules;
    private volatile WatchService watcher;

    private AclFile(Path path, QueryLimits limits, Json json) {
        this.path = path;
        this.limits = limits;
        this.json = json;
        this.rules = read(path, limits, json);
    }

    /** The file's rules; throws 400 naming the first bad rule. */
    static AclFile open(Path path, QueryLimits limits, Json json) {
        AclFile file = new AclFile(path, limits, json);
        LOG.info("acl file {}: {} rules", path, file.rules.size());
        return file;
    }

    List<Rule> rules() {
        return rules;
    }

    /** Reads the file again; keeps the rules in force when it has a bad rule. */
    boolean reload() {
        try {
            rules = read(path, limits, json);
            LOG.info("acl file {} reloaded: {} rules", path, rules.size());
            return true;
        } catch (WeftException e) {
            LOG.error("acl file {} not reloaded, the previous rules stay in force: {}", path, e.getMessage());
            return false;
        }
    }

    /** Reloads on every change of the file (and on SIGHUP), from a daemon thread. */
    AclFile watch() {
        try {
            Path dir = path.toAbsolutePath().getParent();
            WatchService service = dir.getFileSystem().newWatchService();
            dir.register(service, StandardWatchEventKinds.ENTRY_CREATE, StandardWatchEventKinds.ENTRY_MODIFY);
            watcher = service;
            Thread.ofPlatform().daemon().name("weft-acl-file").start(() -> watchLoop(service));
        } catch (IOException e) {
            LOG.warn("acl file {} is not watched ({}): reload with SIGHUP", path, e.getMessage());
        }
        onHangup();
        return this;
    }

    private void watchLoop(WatchService service) {
        Path name = path.getFileName();
        try {
            while (true) {
                WatchKey key = service.take();
                boolean ours = false;
                for (WatchEvent<?> event : key.pollEvents()) {
                    ours |= name.equals(event.context());
                }
                key.reset();
                if (ours) {
                    reload();
                }
            }
        } catch (InterruptedException | ClosedWatchServiceException e) {
            // closed: the server stops
        }
    }

    @SuppressWarnings("restriction")
    private void onHangup() {
        try {
            sun.misc.Signal.handle(new sun.misc.Signal("HUP"), signal -> reload());
        } catch (RuntimeException | LinkageError e) {
            LOG.debug("no SIGHUP handler: {}", e.toString());
        }
    }

    @Override
    public void close() {
        WatchService w = watcher;
        if (w != null) {
            try {
                w.close();
            } catch (IOException e) {
                // nothing left to release
            }
        }
    }

    static List<Rule> read(Path path, QueryLimits limits, Json json) {
        String text;
        try {
            if (Files.size(path) > MAX_FILE_BYTES) {
                throw WeftException.badRequest("acl file " + path + " is larger than " + MAX_FILE_BYTES + " bytes");
            }
            text = Files.readString(path, StandardCharsets.UTF_8);
        } catch (IOException e) {
            throw WeftException.badRequest("acl file " + path + " cannot be read: " + e.getMessage());
        }
        return parse(text, path.toString(), limits, json);
    }

    static List<Rule> parse(String yaml, String source, QueryLimits limits, Json json) {
        JsonNode permissions = permissions(yamlTree(yaml, source, json), source);
        List<Rule> rules = new ArrayList<>();
        int n = 0;
        for (JsonNode entry : permissions) {
            n++;
            Rule rule = Rule.compile(document(entry, source, n), limits, json, Rule.Order.LOWEST_FIRST);
            if (rule.broken().isPresent()) {
                throw WeftException.badRequest("acl file " + source + ", permission #" + n + " (roles " + rule.roles()
                        + ", predicate " + entry.path("predicate").asString("?").strip() + "): " + rule.broken().get());
            }
            rules.add(rule);
        }
        // RESTHeart's file authorizer reverses the list, then sorts stably: of equal priorities
        // the rule written last is tried first.
        java.util.Collections.reverse(rules);
        rules.sort(Comparator.comparingInt(Rule::priority));
        return List.copyOf(rules);
    }

    private static JsonNode yamlTree(String yaml, String source, Json json) {
        LoaderOptions options = new LoaderOptions();
        options.setMaxAliasesForCollections(MAX_ALIASES);
        options.setAllowDuplicateKeys(false);
        options.setNestingDepthLimit(json.mapper().tokenStreamFactory().streamReadConstraints().getMaxNestingDepth());
        try {
            Object tree = new Yaml(new SafeConstructor(options)).load(yaml);
            return json.mapper().valueToTree(tree);
        } catch (RuntimeException e) {
            throw WeftException.badRequest("acl file " + source + " is not valid YAML: " + e.getMessage());
        }
    }

    private static JsonNode permissions(JsonNode root, String source) {
        JsonNode list = root == null ? null : root.get("permissions");
        for (String section : List.of("/fileAclAuthorizer", "fileAclAuthorizer")) {
            if (list == null && root != null && root.path(section).isObject()) {
                list = root.path(section).get("permissions");
            }
        }
        if (list == null || !list.isArray()) {
            throw WeftException.badRequest("acl file " + source + " has no permissions: list");
        }
        return list;
    }

    /** RESTHeart's {@code role: r} or {@code roles: [...]} (not both), as a rule document. */
    private static ObjectNode document(JsonNode entry, String source, int n) {
        if (!entry.isObject()) {
            throw WeftException.badRequest("acl file " + source + ", permission #" + n + " is not a mapping");
        }
        ObjectNode doc = ((ObjectNode) entry).deepCopy();
        JsonNode role = doc.remove("role");
        if (role != null) {
            if (doc.has("roles")) {
                throw WeftException.badRequest("acl file " + source + ", permission #" + n
                        + " has both role and roles: give one");
            }
            ArrayNode roles = doc.putArray("roles");
            roles.add(role);
        }
        if (!doc.has("_id")) {
            doc.put("_id", "acl-file #" + n);
        }
        return doc;
    }
}
