package dev.weft.store.postgres;

import java.util.ArrayDeque;
import java.util.Arrays;
import java.util.HashMap;

/**
 * The stored bytes of documents this node wrote or read last, by table and encoded {@code _id},
 * up to a bound in bytes (about the least recently used first out: a clock, see {@link Stripe}):
 * what a replace, an update or a delete may assume is stored, to send its whole transaction in one round trip instead of reading the
 * locked document first ({@link PgPipeline#assumedBody}). An entry is only a guess: the write's
 * first statement locks the row and fails the transaction unless the stored bytes are these
 * ({@link PgWrites#EXPECT}, "version"), and the write is then run again reading the document.
 * So an entry made stale by another node or another connection costs one round trip, never a
 * wrong answer.
 *
 * <p>Documents other nodes keep changing (hot documents written from several nodes): a guess of
 * their bytes is usually stale, and a stale guess fails a whole group's burst. So when a group
 * reads a document under its row lock ({@link #readLocked}) and finds other bytes than the entry,
 * the document is marked <em>shared</em>: it is not assumed ({@link #get} answers null, so the
 * next groups read it under the lock too) until {@value #SHARED_READS} such reads in a row found
 * exactly this node's last bytes (no other node wrote it in between). A document only this node
 * writes is never marked; one written from several nodes stays marked while they do. A mark lives
 * with its entry (evicted with it), so it adds nothing to the bound.
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

    /** Locked reads in a row that must find this node's own last bytes before a shared document is assumed again. */
    static final int SHARED_READS = 8;

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

    /** The bytes last seen stored for this document, or null (none, taken by a write under way, or shared). */
    byte[] get(String table, byte[] id) {
        Key key = new Key(table, id);
        return stripe(key).assumable(key);
    }

    /**
     * A group of this node read the document under its row lock: {@code stored} (null: not
     * stored) is what is there now. Bytes other than the entry's mean another node (or connection)
     * wrote it since this node last saw it: it is marked shared. The entry's own bytes count
     * towards lifting the mark. An entry a write has taken, or none, is left alone.
     */
    void readLocked(String table, byte[] id, byte[] stored) {
        Key key = new Key(table, id);
        stripe(key).readLocked(key, stored);
    }

    /** Whether the document is marked shared (for tests). */
    boolean shared(String table, byte[] id) {
        Key key = new Key(table, id);
        return stripe(key).sharedReads(key) > 0;
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

    /**
     * One lock's share of the entries, evicted by a clock (second chance): entries sit in the
     * order they came, each with a bit set when it is used; eviction takes the oldest, and one
     * whose bit is set gets its bit cleared and goes to the back instead. This keeps about what
     * least-recently-used keeps, but a hit only sets a {@code boolean}: an access-ordered map
     * relinked its entries on every read, reference stores into old objects that every young
     * collection then scanned (decision 0008, amendment). Invariant: every entry of
     * {@link #entries} is in {@link #clock} exactly once; the clock also holds removed entries
     * (marked) until it reaches them or is compacted.
     */
    private static final class Stripe {
        private static final class Entry {
            final Key key;
            byte[] body;
            boolean used;
            boolean removed;

            Entry(Key key) {
                this.key = key;
            }
        }

        private final long maxBytes;
        private final HashMap<Key, Entry> entries = new HashMap<>();
        private final ArrayDeque<Entry> clock = new ArrayDeque<>();
        /** Shared documents (keys of {@link #entries} only): matching locked reads still needed to lift the mark. */
        private final HashMap<Key, Integer> shared = new HashMap<>();
        private long bytes;

        Stripe(long maxBytes) {
            this.maxBytes = maxBytes;
        }

        synchronized byte[] assumable(Key key) {
            Entry e = entries.get(key);
            if (e == null) {
                return null;
            }
            if (!e.used) {
                e.used = true;
            }
            return e.body == TAKEN || shared.containsKey(key) ? null : e.body;
        }

        synchronized int sharedReads(Key key) {
            return shared.getOrDefault(key, 0);
        }

        synchronized void readLocked(Key key, byte[] stored) {
            byte[] body = body(key);
            if (body == null || body == TAKEN) {
                return;
            }
            if (!Arrays.equals(body, stored)) {
                shared.put(key, SHARED_READS);
            } else {
                shared.computeIfPresent(key, (k, left) -> left > 1 ? left - 1 : null);
            }
        }

        synchronized void put(Key key, byte[] body) {
            Entry e = entries.get(key);
            if (e == null) {
                e = new Entry(key);
                entries.put(key, e);
                clock.addLast(e);
                bytes += key.id().length;
            } else {
                bytes -= e.body.length;
                e.used = true;
            }
            e.body = body;
            bytes += body.length;
            while (bytes > maxBytes && !clock.isEmpty()) {
                Entry oldest = clock.pollFirst();
                if (oldest.removed) {
                    continue;
                }
                if (oldest.used) {
                    oldest.used = false;
                    clock.addLast(oldest);
                } else {
                    remove(oldest.key);
                }
            }
        }

        /** {@code body} (null: removed) if the entry is {@code seen} (null: absent). */
        synchronized void replace(Key key, byte[] seen, byte[] body) {
            if (body(key) != seen) {
                return;
            }
            if (body == null) {
                remove(key);
            } else if (seen == null || seen == TAKEN || !Arrays.equals(seen, body)) {
                put(key, body);
            }
        }

        synchronized void remove(Key key) {
            Entry e = entries.remove(key);
            shared.remove(key);
            if (e != null) {
                e.removed = true;
                bytes -= e.body.length + key.id().length;
                if (clock.size() > 2 * entries.size() + 64) {
                    clock.removeIf(x -> x.removed);
                }
            }
        }

        private byte[] body(Key key) {
            Entry e = entries.get(key);
            return e == null ? null : e.body;
        }
    }
}
