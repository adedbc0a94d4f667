package dev.weft.store.sqlite;

import static dev.weft.store.sqlite.StoreTesting.JSON;
import static dev.weft.store.sqlite.StoreTesting.LIMITS;
import static dev.weft.store.sqlite.StoreTesting.obj;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import dev.weft.core.Settings;
import dev.weft.core.WeftException;
import dev.weft.query.Filter;
import dev.weft.query.Sort;
import dev.weft.store.FindQuery;
import dev.weft.store.Namespace;
import dev.weft.store.WriteOp;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.node.ObjectNode;

/**
 * sqlite-mmap-bytes: what each read connection maps of the file, and that reads answer the same
 * whether a page is inside the map, past it (read() into SQLite's cache), or nothing is mapped.
 */
class MmapTest {
    private static final Namespace NS = new Namespace("db", "c");
    private static final int DOCS = 3000;
    private static final String PAD = "x".repeat(1000);

    @Test
    void aReadConnectionMapsTheDefaultOf64GiBOnA64BitJvm(@TempDir Path dir) {
        assumeTrue("64".equals(System.getProperty("sun.arch.data.model")), "a 64-bit JVM");
        try (SqliteStore store = StoreTesting.open(dir)) {
            assertThat(store.readerMappedBytes()).isEqualTo(64L << 30);
        }
    }

    @Test
    void aReadConnectionMapsWhatTheSettingSays(@TempDir Path dir) {
        try (SqliteStore store = StoreTesting.open(dir, "--sqlite-mmap-bytes", "1048576")) {
            assertThat(store.readerMappedBytes()).isEqualTo(1L << 20);
        }
        try (SqliteStore store = StoreTesting.open(dir, "--sqlite-mmap-bytes", "0")) {
            assertThat(store.readerMappedBytes()).isZero();
        }
    }

    @Test
    void readsAnswerTheSameInsidePastAndWithoutTheMap(@TempDir Path dir) throws Exception {
        try (SqliteStore store = StoreTesting.open(dir)) {
            store.putDatabase("db", obj("{}"), Optional.empty());
            store.putCollection(NS, obj("{}"), Optional.empty());
            List<ObjectNode> docs = IntStream.range(0, DOCS).mapToObj(i -> obj("{\"_id\":" + i + ",\"n\":" + (i * 7919) % DOCS
                    + ",\"tag\":\"" + (i % 7 == 0 ? "seven" : "other") + "\",\"pad\":\"" + PAD + "\"}")).toList();
            assertThat(store.write(new WriteOp.InsertMany(NS, docs)).ok()).isTrue();
        }
        // ~4 MB of documents: a 64 KiB map ends early in the file, so most pages are read past it
        assertThat(Files.size(dir.resolve("weft.db"))).isGreaterThan(1L << 20);
        for (String mapped : List.of("0", "65536", "68719476736")) {
            // split scans too: their helpers are read connections of their own
            try (SqliteStore store = StoreTesting.open(dir, "--sqlite-mmap-bytes", mapped, "--scan-split-min-rows", "100",
                    "--scan-parts", "2")) {
                assertThat(store.count(NS, Filter.all())).as("mapped " + mapped).isEqualTo(DOCS);
                assertThat(store.count(NS, StoreTesting.filter("{\"tag\":\"seven\"}"))).as("mapped " + mapped)
                        .isEqualTo((DOCS + 6) / 7);
                // n is a permutation of 0..2999 (7919 is prime to 3000): the top five are 2999..2995
                assertThat(ns(store, Filter.all(), Sort.parse("{\"n\":-1}", LIMITS), 5)).as("mapped " + mapped)
                        .containsExactly(2999L, 2998L, 2997L, 2996L, 2995L);
                assertThat(ns(store, StoreTesting.filter("{\"n\":{\"$lt\":3}}"), Sort.parse("{\"n\":1}", LIMITS), 10))
                        .as("mapped " + mapped).containsExactly(0L, 1L, 2L);
            }
        }
    }

    @Test
    void aMapOutsideZeroToOneTebibyteStopsStartupNamingTheSetting() {
        for (String bad : List.of("-1", "1099511627777", "lots")) {
            assertThatThrownBy(() -> Settings.parse(new String[] {"--sqlite-mmap-bytes", bad}, Map.of()))
                    .isInstanceOf(WeftException.class)
                    .hasMessageContaining("sqlite-mmap-bytes");
        }
    }

    private static List<Long> ns(SqliteStore store, Filter filter, Sort sort, long limit) {
        List<Long> ns = new ArrayList<>();
        store.find(NS, new FindQuery(filter, sort, 0, limit, Optional.empty()),
                d -> ns.add(JSON.parse(d.json(), "doc").get("n").asLong()));
        return ns;
    }
}
