package dev.weft.store.postgres;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * A group's updates of one table run as one statement up to the first other statement that names
 * that table: the test of "names" must find the table as a whole word only.
 */
class PgPipelineTest {
    @Test
    void aStatementNamesATableOnlyAsAWholeWord() {
        assertThat(PgPipeline.namesTable("INSERT INTO d4 (id, body) VALUES (?, ?)", "d4")).isTrue();
        assertThat(PgPipeline.namesTable("DELETE FROM d4", "d4")).isTrue();
        assertThat(PgPipeline.namesTable("d4", "d4")).isTrue();
        assertThat(PgPipeline.namesTable("UPDATE d4 t SET body = ?", "d4")).isTrue();
        assertThat(PgPipeline.namesTable("INSERT INTO d41 (id) VALUES (?)", "d4")).isFalse();
        assertThat(PgPipeline.namesTable("INSERT INTO i4_1 (key, id) VALUES (?, ?)", "d4")).isFalse();
        assertThat(PgPipeline.namesTable("SELECT id4, d4_x FROM i4 WHERE xd4 = 1", "d4")).isFalse();
        assertThat(PgPipeline.namesTable("SELECT 1 FROM d41, d4", "d4")).isTrue();
        assertThat(PgPipeline.namesTable("INSERT INTO weft_events (coll) VALUES (?)", "d4")).isFalse();
    }
}
