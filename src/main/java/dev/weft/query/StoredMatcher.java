package dev.weft.query;

import dev.weft.core.Json;
import java.util.HashSet;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * A filter (and sort) run on stored JSON bytes: each candidate is read once by a
 * {@link PrunedReader} keeping only the paths they name, and the reference evaluator runs on
 * that small tree. Whole documents are decoded only when returned, by whoever returns them.
 * It keeps no state between documents, so the readers of a split scan share one, and so do the
 * requests that read the same paths: the reader of a path set is made once ({@link #READERS}).
 */
public final class StoredMatcher {
    private final Filter filter;
    private final boolean everything;
    private final PrunedReader reader;

    /** Most path sets whose readers are kept; past it they are made again. */
    static final int MAX_READERS = 1024;
    /** The reader of each (writer, path set) asked for before: building its trie is per query, not per row. */
    private static final BoundedMemo<ReaderKey, PrunedReader> READERS = new BoundedMemo<>(MAX_READERS);

    /** A reader's key: {@code json} by identity (one per server), the paths by value. */
    private record ReaderKey(Json json, Set<String> paths) {
        PrunedReader reader() {
            return new PrunedReader(json, PathTrie.of(paths));
        }
    }

    private StoredMatcher(Filter filter, PrunedReader reader) {
        this.filter = filter;
        this.everything = filter == Filter.all();
        this.reader = reader;
    }

    /** For {@code filter} and, when not null, the keys {@code sort} compares. */
    public static StoredMatcher of(Json json, Filter filter, Sort sort) {
        Set<String> paths = new HashSet<>(filter.paths());
        if (sort != null) {
            for (IndexField f : sort.fields()) {
                paths.add(f.path());
            }
        }
        int chars = 0;
        for (String path : paths) {
            chars += path.length();
        }
        return new StoredMatcher(filter, READERS.get(new ReaderKey(json, paths), chars, ReaderKey::reader));
    }

    /** The document pruned to the paths the filter and sort read (enough for both). */
    public JsonNode read(byte[] body) {
        return reader.read(body);
    }

    public boolean matches(byte[] body) {
        return everything || filter.matches(reader.read(body));
    }

    /** {@link #read}'s tree when it matches, else null. */
    public JsonNode readIfMatches(byte[] body) {
        JsonNode doc = reader.read(body);
        return everything || filter.matches(doc) ? doc : null;
    }
}
