package dev.weft.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * A read's bytes become the known entry only if no write of this node changed the entry while
 * the read ran (the read's snapshot may predate that write: its bytes would fail the next
 * write's check, and with it the whole burst of a group); a rolled-back write's taken entry is
 * put back unless a newer one is there; a document a locked read found changed by someone else
 * is not assumed until locked reads in a row found only this node's own bytes.
 */
class KnownDocumentsTest {
    private static final byte[] ID = {1};

    @Test
    void aReadReplacesOnlyTheEntryItSawBeforeIt() {
        KnownDocuments known = new KnownDocuments(1 << 20);
        byte[] k0 = bytes("{\"v\":0}");
        known.put("d1", ID, k0);
        byte[] seen = known.get("d1", ID);
        byte[] k1 = bytes("{\"v\":1}");
        known.put("d1", ID, k1); // a write committed while the read ran
        known.replace("d1", ID, seen, k0); // the read's older bytes
        assertThat(known.get("d1", ID)).isSameAs(k1);

        byte[] k2 = bytes("{\"v\":2}");
        known.replace("d1", ID, known.get("d1", ID), k2); // nothing changed meanwhile: the read corrects it
        assertThat(known.get("d1", ID)).isSameAs(k2);
        known.replace("d1", ID, k2, null); // read as gone
        assertThat(known.get("d1", ID)).isNull();
        known.replace("d1", ID, null, k0); // absent before and after: the read fills it
        assertThat(known.get("d1", ID)).isSameAs(k0);
    }

    @Test
    void aReadOfTheSameBytesKeepsTheEntrysArray() {
        KnownDocuments known = new KnownDocuments(1 << 20);
        byte[] k0 = bytes("{\"v\":0}");
        known.put("d1", ID, k0);
        known.replace("d1", ID, known.get("d1", ID), bytes("{\"v\":0}")); // a read found the bytes unchanged
        assertThat(known.get("d1", ID)).isSameAs(k0);
        byte[] seen = known.get("d1", ID);
        byte[] k1 = bytes("{\"v\":1}");
        known.put("d1", ID, k1); // a write committed while a read of the old bytes ran
        known.replace("d1", ID, seen, bytes("{\"v\":0}"));
        assertThat(known.get("d1", ID)).isSameAs(k1);
        known.replace("d1", ID, k1, bytes("{\"v\":2}")); // other bytes: the read's become the entry
        assertThat(known.get("d1", ID)).isEqualTo(bytes("{\"v\":2}"));
    }

    @Test
    void aDocumentUsedAgainOutlivesOnesThatWereNotWhenTheBoundIsReached() {
        KnownDocuments known = new KnownDocuments(16 * 1000); // about 18 documents of 50 bytes a stripe
        byte[] hot = bytes("{\"v\":\"" + "h".repeat(42) + "\"}");
        known.put("d1", id(0), hot);
        for (int i = 1; i <= 2000; i++) {
            known.put("d1", id(i), bytes("{\"v\":\"" + "x".repeat(42) + "\"}"));
            assertThat(known.get("d1", id(0))).isSameAs(hot); // read again after every other write
        }
        assertThat(known.get("d1", id(1))).isNull(); // never used again: long gone
        assertThat(known.get("d1", id(2000))).isNotNull(); // the newest stays
    }

    @Test
    void aReadNeverFillsTheEntryOfADocumentAWriteTook() {
        KnownDocuments known = new KnownDocuments(1 << 20);
        byte[] k0 = bytes("{\"v\":0}");
        known.put("d1", ID, k0);
        known.take("d1", ID); // a write assumes k0 and has not committed
        byte[] seen = known.get("d1", ID);
        assertThat(seen).isNull();
        known.replace("d1", ID, seen, k0); // a read whose snapshot predates the write's commit
        assertThat(known.get("d1", ID)).isNull();
        known.restore("d1", ID, k0); // the write rolled back
        assertThat(known.get("d1", ID)).isSameAs(k0);
    }

    @Test
    void aRestoredEntryNeverReplacesANewerOne() {
        KnownDocuments known = new KnownDocuments(1 << 20);
        byte[] taken = bytes("{\"v\":0}");
        known.restore("d1", ID, taken);
        assertThat(known.get("d1", ID)).isSameAs(taken);
        byte[] newer = bytes("{\"v\":1}");
        known.put("d1", ID, newer);
        known.restore("d1", ID, taken);
        assertThat(known.get("d1", ID)).isSameAs(newer);
    }

    @Test
    void aDocumentSomeoneElseChangedIsNotAssumedUntilLockedReadsFindThisNodesBytesInARow() {
        KnownDocuments known = new KnownDocuments(1 << 20);
        byte[] mine = bytes("{\"v\":0}");
        known.put("d1", ID, mine);
        known.readLocked("d1", ID, bytes("{\"v\":0}")); // as this node left it
        assertThat(known.get("d1", ID)).isSameAs(mine);
        assertThat(known.shared("d1", ID)).isFalse();

        known.readLocked("d1", ID, bytes("{\"v\":1}")); // another node wrote it
        assertThat(known.shared("d1", ID)).isTrue();
        assertThat(known.get("d1", ID)).isNull();
        byte[] next = bytes("{\"v\":2}");
        known.put("d1", ID, next); // this node's write of it committed: still shared
        assertThat(known.get("d1", ID)).isNull();
        known.replace("d1", ID, null, bytes("{\"v\":3}")); // a read does not fill a shared entry
        for (int i = 1; i < KnownDocuments.SHARED_READS; i++) {
            known.readLocked("d1", ID, bytes("{\"v\":2}"));
        }
        assertThat(known.get("d1", ID)).isNull();
        known.readLocked("d1", ID, bytes("{\"v\":9}")); // written elsewhere again: the count starts over
        known.put("d1", ID, next);
        for (int i = 1; i < KnownDocuments.SHARED_READS; i++) {
            known.readLocked("d1", ID, bytes("{\"v\":2}"));
        }
        assertThat(known.shared("d1", ID)).isTrue();
        known.readLocked("d1", ID, bytes("{\"v\":2}"));
        assertThat(known.shared("d1", ID)).isFalse();
        assertThat(known.get("d1", ID)).isSameAs(next);
    }

    @Test
    void aLockedReadLeavesUnknownAndTakenDocumentsAlone() {
        KnownDocuments known = new KnownDocuments(1 << 20);
        known.readLocked("d1", ID, bytes("{\"v\":1}")); // never known: nothing to be stale
        assertThat(known.shared("d1", ID)).isFalse();
        byte[] k0 = bytes("{\"v\":0}");
        known.put("d1", ID, k0);
        known.take("d1", ID); // a write under way assumed k0: its own commit or rollback settles the entry
        known.readLocked("d1", ID, bytes("{\"v\":1}"));
        known.restore("d1", ID, k0);
        assertThat(known.shared("d1", ID)).isFalse();
        known.put("d1", ID, null); // deleted: the mark goes with the entry
        assertThat(known.shared("d1", ID)).isFalse();
    }

    private static byte[] id(int n) {
        return bytes("user" + n);
    }

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
