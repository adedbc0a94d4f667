package dev.weft.store.postgres;

import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * The stored bytes of documents this node wrote or read last, by table and encoded {@code _id},
 * up to a bound in bytes (least recently used first out): what a replace, an update or a delete
 * may assume is stored, to send its whole transaction in one round trip instead of reading the
 * locked document first ({@link PgPipeline#assumedBody}). An entry is only a guess: the write's
 * first statement locks the row and fails the transaction unless the stored bytes are these
 * ({@link PgWrites#EXPECT}, "version"), and the write is then run again reading the document.
 * So an entry made stale by another node or another connection costs one round trip, never a
 * wrong answer.
 */
final class KnownDocuments {
    private static final int STRIPES = 16;

    private record Key(String table, byte[] id) {
        @Override
        public boolean equals(Object o) {
            return o instanceof Key k && table.equals(k.table) && Arrays.equals(id, k.id);
        }

        @Override
        public int hashCode() {
            return 31 * table.hashCode() + Arrays.hashCode(id);
        }
    }

    /**
     * The entry of a document a write took ({@link #take}) and has not committed yet: not a guess
     * anyone may use, and not a gap a read may fill (the read's snapshot may be older than that
     * write's commit); the write's commit or rollback replaces it.
     */
    private static final byte[] TAKEN = new byte[0];

    private final Stripe[] stripes = new Stripe[STRIPES];
    private final long maxDocumentBytes;

    /** {@code maxBytes} of bodies in all, none larger than a sixteenth of a stripe; 0 keeps nothing. */
    KnownDocuments(long maxBytes) {
        long perStripe = maxBytes / STRIPES;
        this.maxDocumentBytes = perStripe / 16;
        for (int i = 0; i < STRIPES; i++) {
            stripes[i] = new Stripe(perStripe);
        }
    }

    /** The bytes last seen stored for this document, or null (none, or taken by a write under way). */
    byte[] get(String table, byte[] id) {
        Key key = new Key(table, id);
        byte[] body = stripe(key).get(key);
        return body == TAKEN ? null : body;
    }

    /** A write assumes this document's bytes: nobody else may until it commits or rolls back. */
    void take(String table, byte[] id) {
        Key key = new Key(table, id);
        stripe(key).put(key, TAKEN);
    }

    /** Remembers {@code body} as stored now (null: the document is gone, or unknown). */
    void put(String table, byte[] id, byte[] body) {
        Key key = new Key(table, id);
        Stripe stripe = stripe(key);
        if (body == null || body.length > maxDocumentBytes) {
            stripe.remove(key);
        } else {
            stripe.put(key, body);
        }
    }

    /**
     * After a read: {@code body} (null: not stored) becomes the entry only if the entry is still
     * {@code seen}, what it was when the read was asked for (compared by identity). A write of this
     * node that committed meanwhile put newer bytes, or took the entry for its burst; the read's
     * snapshot may predate that write, and its bytes would make the next write's check fail.
     */
    void replace(String table, byte[] id, byte[] seen, byte[] body) {
        Key key = new Key(table, id);
        stripe(key).replace(key, seen, body == null || body.length > maxDocumentBytes ? null : body);
    }

    /** Puts back an entry a write took and did not commit (its transaction rolled back), unless there is a newer one. */
    void restore(String table, byte[] id, byte[] body) {
        Key key = new Key(table, id);
        Stripe stripe = stripe(key);
        synchronized (stripe) {
            stripe.replace(key, TAKEN, body);
            stripe.replace(key, null, body);
        }
    }

    private Stripe stripe(Key key) {
        return stripes[Math.floorMod(key.hashCode(), STRIPES)];
    }

    /** One lock's share of the entries, in access order. */
    private static final class Stripe {
        private final long maxBytes;
        private final LinkedHashMap<Key, byte[]> entries = new LinkedHashMap<>(64, 0.75f, true);
        private long bytes;

        Stripe(long maxBytes) {
            this.maxBytes = maxBytes;
        }

        synchronized byte[] get(Key key) {
            return entries.get(key);
        }

        synchronized void put(Key key, byte[] body) {
            byte[] old = entries.put(key, body);
            bytes += body.length + key.id().length - (old == null ? 0 : old.length + key.id().length);
            var it = entries.entrySet().iterator();
            while (bytes > maxBytes && it.hasNext()) {
                Map.Entry<Key, byte[]> eldest = it.next();
                bytes -= eldest.getValue().length + eldest.getKey().id().length;
                it.remove();
            }
        }

        /** {@code body} (null: removed) if the entry is {@code seen} (null: absent). */
        synchronized void replace(Key key, byte[] seen, byte[] body) {
            if (entries.get(key) != seen) {
                return;
            }
            if (body == null) {
                remove(key);
            } else {
                put(key, body);
            }
        }

        synchronized void remove(Key key) {
            byte[] old = entries.remove(key);
            if (old != null) {
                bytes -= old.length + key.id().length;
            }
        }
    }
}
