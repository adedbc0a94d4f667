package dev.weft.store;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

class DuplicateKeyTest {
    @Test
    void everyDuplicateMessageLosesItsValuesAndOthersStayAsTheyAre() {
        assertThat(DuplicateKey.withoutValues(DuplicateKey.id("\"secret-id\"")))
                .isEqualTo("duplicate _id: a document with the same _id already exists");
        assertThat(DuplicateKey.withoutValues(DuplicateKey.ids(3)))
                .isEqualTo("duplicate _id: a document with the same _id already exists");
        for (String m : new String[] {DuplicateKey.uniqueIndex("bySsn", "\"x\""), DuplicateKey.uniqueIndex("bySsn"),
                DuplicateKey.other("Key (key)=(\\x0123) already exists.")}) {
            assertThat(DuplicateKey.withoutValues(m)).isEqualTo("duplicate key: a unique index already has this key for another document");
        }
        assertThat(DuplicateKey.withoutValues("an index named i already exists with another definition"))
                .isEqualTo("an index named i already exists with another definition");
        assertThat(DuplicateKey.isId(DuplicateKey.id("1"))).isTrue();
        assertThat(DuplicateKey.isId(DuplicateKey.uniqueIndex("i"))).isFalse();
    }
}
