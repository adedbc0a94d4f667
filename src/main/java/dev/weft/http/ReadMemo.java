package dev.weft.http;

import dev.weft.core.Json;
import dev.weft.query.PathTrie;
import dev.weft.query.PrunedReader;
import dev.weft.query.Sort;
import dev.weft.store.Metadata;
import dev.weft.store.Namespace;
import dev.weft.store.Store;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import tools.jackson.databind.JsonNode;

/**
 * What the read path derives from a collection's catalog entry or a query's shape and would
 * otherwise derive again on every request: the collection's existence and its {@code readMode}
 * and {@code durability} properties (which {@link dev.weft.store.Store#collection} parses from
 * JSON on every call), kept under the collection's {@link Store#version}, which every commit
 * to the collection and every change of its properties, its indexes or its existence replaces,
 * on every node; and per sort, the reader of what a page's last document needs for its cursor
 * position. Both maps are bounded: past {@link #MAX_ENTRIES} they start over (a flood of names
 * or sorts only costs deriving again).
 */
final class ReadMemo {
    static final int MAX_ENTRIES = 1024;

    /** An existing collection's facts at one version. */
    record Facts(long version, Optional<String> readMode, Optional<String> durability) {}

    private final Json json;
    private final ConcurrentHashMap<Namespace, Facts> collections = new ConcurrentHashMap<>();
    private final ConcurrentHashMap<Sort, PrunedReader> sortReaders = new ConcurrentHashMap<>();

    ReadMemo(Json json) {
        this.json = json;
    }

    /**
     * The facts of {@code ns} in {@code store} now; empty when it does not exist. The version is
     * read before the catalog (the stores replace their catalog before they bump the versions of
     * what changed), so a change landing in between leaves facts filed under the older version,
     * which the next request, seeing the newer one, derives again. A missing collection is not
     * remembered: the store's own lookup of a missing name is what notices one another node just
     * created.
     */
    Optional<Facts> collection(Store store, Namespace ns) {
        long version = store.version(ns);
        Facts facts = collections.get(ns);
        if (facts != null && facts.version() == version) {
            return Optional.of(facts);
        }
        Optional<Metadata> meta = store.collection(ns);
        if (meta.isEmpty()) {
            return Optional.empty();
        }
        facts = new Facts(version, stringProperty(meta.get(), Api.READ_MODE), stringProperty(meta.get(), Api.DURABILITY));
        bounded(collections).put(ns, facts);
        return Optional.of(facts);
    }

    private static Optional<String> stringProperty(Metadata meta, String name) {
        return Optional.ofNullable(meta.properties().get(name)).filter(JsonNode::isString).map(JsonNode::asString);
    }

    /** The reader of a stored document's {@code _id} and the paths of {@code sort}, and nothing else. */
    PrunedReader sortFields(Sort sort) {
        PrunedReader reader = sortReaders.get(sort);
        if (reader == null) {
            reader = newSortReader(sort);
            bounded(sortReaders).put(sort, reader);
        }
        return reader;
    }

    private PrunedReader newSortReader(Sort sort) {
        List<String> paths = new ArrayList<>();
        paths.add("_id");
        sort.fields().forEach(f -> paths.add(f.path()));
        return new PrunedReader(json, PathTrie.of(paths));
    }

    private static <K, V> ConcurrentHashMap<K, V> bounded(ConcurrentHashMap<K, V> map) {
        if (map.size() >= MAX_ENTRIES) {
            map.clear();
        }
        return map;
    }
}
