package dev.weft.query;

import java.util.Collection;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The dotted paths a query reads, as a trie of field names: what {@link PrunedReader} keeps of a
 * document. A node that ends a path is {@link #whole} (its value is kept entire: the evaluator
 * may look at all of it, e.g. compare an object or count an array).
 *
 * <p>Arrays are kept with all their elements (their length and element types matter to the
 * traversal), each element pruned with the node of the array itself (MongoDB's paths look into
 * the object elements of an array by field name) merged with the node of its position (a
 * numeric segment also names an element: {@code a.0.b}).
 */
public final class PathTrie {
    private final Map<String, PathTrie> children = new HashMap<>();
    private boolean whole;
    private boolean hasPositions;
    /** This node merged with its child named by a position, made when first needed. */
    private final Map<Integer, PathTrie> forElement = new ConcurrentHashMap<>();
    /** The children's names, and the same as UTF-8, made on first use (the trie no longer changes then). */
    private String[] childKeys;
    private volatile byte[][] childNames;

    private PathTrie() {}

    /** The trie of these dotted paths; an empty path keeps the whole document. */
    public static PathTrie of(Collection<String> paths) {
        PathTrie root = new PathTrie();
        for (String path : paths) {
            root.add(path.isEmpty() ? new String[0] : path.split("\\.", -1), 0);
        }
        return root;
    }

    private void add(String[] segments, int i) {
        if (whole) {
            return;
        }
        if (i == segments.length) {
            whole = true;
            children.clear();
            return;
        }
        hasPositions |= Path.arrayIndex(segments[i]) >= 0;
        children.computeIfAbsent(segments[i], k -> new PathTrie()).add(segments, i + 1);
    }

    private void addAll(PathTrie other) {
        if (whole) {
            return;
        }
        if (other.whole) {
            whole = true;
            children.clear();
            return;
        }
        for (Map.Entry<String, PathTrie> e : other.children.entrySet()) {
            hasPositions |= Path.arrayIndex(e.getKey()) >= 0;
            children.computeIfAbsent(e.getKey(), k -> new PathTrie()).addAll(e.getValue());
        }
    }

    /** Whether everything below this node is kept. */
    boolean whole() {
        return whole;
    }

    /** How many field names below this node are kept. */
    int fieldCount() {
        return children.size();
    }

    /** The node of a field of an object at this node, or null when that field is dropped. */
    PathTrie child(String name) {
        return children.get(name);
    }

    /**
     * The index of the child named by the UTF-8 bytes {@code json[from, to)} (for
     * {@link #childName} and {@link #childAt}), or -1: compared without making a string (a trie
     * node has a few children; most fields of a document are none of them).
     */
    int childIndex(byte[] json, int from, int to) {
        byte[][] names = childNames();
        int length = to - from;
        for (int i = 0; i < names.length; i++) {
            byte[] name = names[i];
            if (name.length == length && (length == 0 || name[0] == json[from])
                    && java.util.Arrays.equals(name, 0, length, json, from, to)) {
                return i;
            }
        }
        return -1;
    }

    String childName(int index) {
        return childKeys[index];
    }

    PathTrie childAt(int index) {
        return children.get(childKeys[index]);
    }

    private byte[][] childNames() {
        byte[][] names = childNames;
        if (names == null) {
            String[] keys = children.keySet().toArray(String[]::new);
            names = new byte[keys.length][];
            for (int i = 0; i < keys.length; i++) {
                names[i] = keys[i].getBytes(java.nio.charset.StandardCharsets.UTF_8);
            }
            childKeys = keys;
            childNames = names;
        }
        return names;
    }

    /** The node of the element at {@code index} of an array at this node. */
    PathTrie element(int index) {
        if (!hasPositions) {
            return this;
        }
        PathTrie position = children.get(Integer.toString(index));
        if (position == null) {
            return this;
        }
        return forElement.computeIfAbsent(index, i -> {
            PathTrie merged = new PathTrie();
            merged.addAll(this);
            merged.addAll(position);
            return merged;
        });
    }
}
