package dev.weft.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

/**
 * A read's bytes become the known entry only if no write of this node changed the entry while
 * the read ran (the read's snapshot may predate that write: its bytes would fail the next
 * write's check, and with it the whole burst of a group); a rolled-back write's taken entry is
 * put back unless a newer one is there.
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

    private static byte[] bytes(String s) {
        return s.getBytes(StandardCharsets.UTF_8);
    }
}
