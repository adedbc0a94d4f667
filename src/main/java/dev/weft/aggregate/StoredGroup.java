package dev.weft.aggregate;

import dev.weft.aggregate.BlockingStages.Group;
import dev.weft.core.Json;
import dev.weft.query.PrunedReader;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.VarHandle;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.NullNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * A {@code $group} (or {@code $sortByCount}) evaluated on the stored bytes of each document, without the tree a pruned read
 * would build: for a group key that is a constant or a top-level field, and accumulators
 * {@code $sum $avg $count} of a constant, a top-level field or {@code $size} of a {@code $split}
 * of a top-level field by an ASCII constant. The top-level fields are found in one pass over the
 * bytes ({@link PrunedReader.TopFields}); a plain integer is added as a primitive, a string key
 * without escapes finds its group by its bytes ({@link SpelledKeys}), and the pieces of a string
 * without escapes are counted on its bytes. Any other value (a float, an escaped string, an
 * object, a wrong type that makes an error) is decoded as the pruned read decodes it and given to
 * the reference evaluator, so every answer and error is the reference's.
 */
final class StoredGroup {
    /** How one accumulator's argument is read: a constant, field {@code field}'s value, or the pieces of its split. */
    private record Arg(Expr expr, JsonNode constant, int field, byte[] separator) {}

    private final Group group;
    private final List<String> fieldNames;
    private final JsonNode constantKey;
    private final int keyField;
    private final Arg[] args;

    private StoredGroup(Group group, List<String> fieldNames, JsonNode constantKey, int keyField, Arg[] args) {
        this.group = group;
        this.fieldNames = fieldNames;
        this.constantKey = constantKey;
        this.keyField = keyField;
        this.args = args;
    }

    /** The evaluation on stored bytes of {@code stage}, when its key and accumulators are of the kinds above. */
    static Optional<StoredGroup> of(Mergeable stage) {
        Group group = stage instanceof Group g ? g : stage instanceof BlockingStages.SortByCount s ? s.group : null;
        if (group == null) {
            return Optional.empty();
        }
        List<String> names = new ArrayList<>(); // the fields read from every document (its _id only when named)
        JsonNode constantKey = null;
        int keyField = -1;
        if (group.id instanceof ExprParser.Constant c) {
            constantKey = AggValues.orNull(c.value());
        } else if (group.id instanceof ExprParser.TopField f) {
            keyField = indexOf(names, f.field());
        } else {
            return Optional.empty();
        }
        Arg[] args = new Arg[group.fields.size()];
        for (int i = 0; i < args.length; i++) {
            Accumulators.Spec spec = group.fields.get(i);
            Expr e = spec.argument();
            if (spec.ordered()) {
                return Optional.empty();
            }
            if (e instanceof ExprParser.Constant c) {
                args[i] = new Arg(e, c.value(), -1, null);
            } else if (e instanceof ExprParser.TopField f) {
                args[i] = new Arg(e, null, indexOf(names, f.field()), null);
            } else if (e instanceof ArrayOps.SplitSize size && size.split().text instanceof ExprParser.TopField f
                    && size.split().delimiter instanceof ExprParser.Constant d && asciiSeparator(d.value()) != null) {
                args[i] = new Arg(e, null, indexOf(names, f.field()), asciiSeparator(d.value()));
            } else {
                return Optional.empty();
            }
        }
        return Optional.of(new StoredGroup(group, List.copyOf(names), constantKey, keyField, args));
    }

    private static int indexOf(List<String> names, String name) {
        if (!names.contains(name)) {
            names.add(name);
        }
        return names.indexOf(name);
    }

    /**
     * A non-empty ASCII separator's bytes, else null: the pieces of a string's UTF-8 bytes cut at
     * ASCII bytes are exactly those of its characters (an ASCII byte is never inside another
     * character's encoding).
     */
    private static byte[] asciiSeparator(JsonNode d) {
        if (d == null || !d.isString() || d.stringValue().isEmpty()
                || !d.stringValue().chars().allMatch(ch -> ch < 0x80)) {
            return null;
        }
        return d.stringValue().getBytes(StandardCharsets.US_ASCII);
    }

    /** One part's evaluation into {@code groups} (that part's partial); used by one thread. */
    Pipeline.StoredPart part(Group.Groups groups, Json json) {
        return new Part(groups, json);
    }

    private final class Part implements Pipeline.StoredPart {
        private final Group.Groups groups;
        private final PrunedReader values;
        private final PrunedReader.TopFields fields;
        private final int[] starts;
        /** Finds the _id, which orders the inputs of a scan read in parts: read only for a group's position. */
        private final PrunedReader.TopFields id;
        private final int[] idStart = new int[1];
        private final SpelledKeys spelled;
        private Group.Entry constantEntry;
        private Group.Entry nullEntry;
        private long rank;

        Part(Group.Groups groups, Json json) {
            this.groups = groups;
            this.values = new PrunedReader(json, dev.weft.query.PathTrie.of(java.util.Set.of("_id")));
            this.fields = values.new TopFields(fieldNames);
            this.starts = new int[fieldNames.size()];
            this.id = values.new TopFields(List.of("_id"));
            this.spelled = new SpelledKeys(groups.budget);
        }

        @Override
        public void accept(byte[] b) {
            groups.run.tick();
            rank++;
            if (starts.length > 0) {
                fields.locate(b, starts);
            }
            Accumulators.Accumulator[] accs = entry(b).accs;
            for (int i = 0; i < args.length; i++) {
                add(accs[i], args[i], b);
            }
        }

        private Group.Entry entry(byte[] b) {
            if (keyField < 0) {
                if (constantEntry == null) {
                    constantEntry = groups.entry(constantKey, position(b));
                }
                return constantEntry;
            }
            int at = starts[keyField];
            if (at < 0 || b[at] == 'n') { // missing, or null: one group
                if (nullEntry == null) {
                    nullEntry = groups.entry(NullNode.getInstance(), position(b));
                }
                return nullEntry;
            }
            int end = PrunedReader.plainStringEnd(b, at);
            if (end < 0) {
                return groups.entry(values.valueAt(b, at), position(b));
            }
            Group.Entry known = spelled.get(b, at + 1, end);
            if (known == null) {
                known = groups.entry(values.valueAt(b, at), position(b));
                spelled.put(b, at + 1, end, known);
            }
            return known;
        }

        /** Where this input stands in a one-range scan, as {@link Pipeline.Parts} places it. */
        private Accumulators.Position position(byte[] b) {
            id.locate(b, idStart);
            return new Accumulators.Position(idStart[0] < 0 ? null : values.valueAt(b, idStart[0]), rank);
        }

        private void add(Accumulators.Accumulator acc, Arg arg, byte[] b) {
            if (arg.field < 0) {
                charge(acc.add(arg.constant, null));
                return;
            }
            int at = starts[arg.field];
            if (arg.separator != null) {
                int pieces = at < 0 ? -1 : piecesOfPlainString(b, at, arg.separator);
                if (pieces < 0) {
                    charge(acc.add(arg.expr.eval(groups.run.scope(document(b, arg.field))), null)); // its errors, or its answer
                } else {
                    ((Accumulators.Integral) acc).addIntegral(pieces, 0);
                }
                return;
            }
            if (at < 0) {
                acc.add(null, null);
                return;
            }
            byte first = b[at];
            if (first == '"' || first == 't' || first == 'f' || first == 'n' || first == '[' || first == '{') {
                return; // not a number: $sum and $avg pass over it
            }
            long v = integerAt(b, at);
            if (v == PrunedReader.NOT_PLAIN_INTEGER) {
                charge(acc.add(values.valueAt(b, at), null));
            } else {
                ((Accumulators.Integral) acc).addIntegral(v, v == (int) v ? 0 : 1);
            }
        }

        /** Charges what an accumulator grew by (a sum that became a double holds its exact total). */
        private void charge(long grown) {
            if (grown > 0) {
                groups.budget.charge(grown);
            }
        }

        /** The document as the reference sees it for an expression reading only field {@code field}. */
        private JsonNode document(byte[] b, int field) {
            ObjectNode doc = Json.NODES.objectNode();
            if (starts[field] >= 0) {
                doc.set(fieldNames.get(field), values.valueAt(b, starts[field]));
            }
            return doc;
        }
    }

    /**
     * The number starting at {@code at} (a value of JSON the server wrote) when it is an integer
     * of up to 18 digits, what the pruned read makes an int or a long of
     * ({@link PrunedReader#plainInteger}), else {@link PrunedReader#NOT_PLAIN_INTEGER}: read in
     * one pass over its digits, without finding its end first.
     */
    static long integerAt(byte[] b, int at) {
        int i = at;
        boolean negative = b[i] == '-';
        if (negative) {
            i++;
        }
        int first = i;
        long v = 0;
        for (; i < b.length; i++) {
            int d = b[i] - '0';
            if (d < 0 || d > 9) {
                break;
            }
            v = v * 10 + d;
        }
        int digits = i - first;
        if (digits < 1 || digits > 18 || (b[first] == '0' && digits > 1)
                || (i < b.length && (b[i] == '.' || b[i] == 'e' || b[i] == 'E'))) {
            return PrunedReader.NOT_PLAIN_INTEGER; // a fraction or an exponent follows, or too long
        }
        return negative ? -v : v;
    }

    private static final VarHandle LONGS = MethodHandles.byteArrayViewVarHandle(long[].class, ByteOrder.LITTLE_ENDIAN);
    private static final long ONES = 0x0101010101010101L;
    private static final long LOW7 = 0x7f7f7f7f7f7f7f7fL;

    /**
     * The pieces of splitting the value at {@code at} when it is a string without escapes, else
     * -1: one pass over its bytes that looks for its end and counts a one-byte separator eight
     * bytes at a time.
     */
    static int piecesOfPlainString(byte[] b, int at, byte[] separator) {
        if (b[at] != '"') {
            return -1;
        }
        if (separator.length > 1) {
            int end = PrunedReader.plainStringEnd(b, at);
            return end < 0 ? -1 : pieces(b, at + 1, end, separator);
        }
        byte sep = separator[0];
        long seps = ONES * (sep & 0xff);
        int n = 1;
        int i = at + 1;
        while (i + 8 <= b.length) {
            long w = (long) LONGS.get(b, i);
            if ((zeros(w ^ ONES * '"') | zeros(w ^ ONES * '\\')) != 0) {
                break;
            }
            n += Long.bitCount(zeros(w ^ seps));
            i += 8;
        }
        for (; ; i++) {
            byte x = b[i];
            if (x == '"') {
                return n;
            }
            if (x == '\\') {
                return -1; // escaped: the reference decodes it
            }
            if (x == sep) {
                n++;
            }
        }
    }

    /** The high bit of exactly each zero byte of {@code v}. */
    private static long zeros(long v) {
        return ~(((v & LOW7) + LOW7) | v | LOW7);
    }

    /** How many pieces splitting {@code b[from, to)} at every {@code separator} makes. */
    static int pieces(byte[] b, int from, int to, byte[] separator) {
        int n = 1;
        if (separator.length == 1) {
            byte s = separator[0];
            for (int i = from; i < to; i++) {
                if (b[i] == s) {
                    n++;
                }
            }
            return n;
        }
        int last = to - separator.length;
        for (int i = from; i <= last; ) {
            if (java.util.Arrays.equals(b, i, i + separator.length, separator, 0, separator.length)) {
                n++;
                i += separator.length;
            } else {
                i++;
            }
        }
        return n;
    }
}
