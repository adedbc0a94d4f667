package dev.weft.http;

import dev.weft.core.Durability;
import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.store.Namespace;
import dev.weft.store.Store;
import dev.weft.store.WriteOp;
import dev.weft.store.WriteResult;
import java.io.IOException;
import java.io.InputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import tools.jackson.databind.node.ArrayNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * {@code POST /{db}/{coll}} with {@code application/x-ndjson}: one document per line, read as it
 * arrives. Memory is bounded by one line ({@code max-ndjson-line-bytes}) plus two chunks of
 * {@value #CHUNK} documents: while the store commits one chunk, the next is parsed. A bad line
 * (malformed, not an object, too long, duplicate id) is reported by its number and does not stop
 * the good ones; so does a line the request's permission refuses (protected field, outside the
 * write filter). Answers {@code {"inserted", "failed", "errors":[{"line","message"}]}}; only the
 * first {@value #MAX_REPORTED} errors are listed.
 */
final class NdjsonIngest {
    static final int CHUNK = 1000;
    static final int MAX_REPORTED = 100;

    private final Api api;

    NdjsonIngest(Api api) {
        this.api = api;
    }

    private record Line(long number, ObjectNode doc) {}

    /**
     * Counts, and the errors of the {@value #MAX_REPORTED} lowest-numbered bad lines. Not thread
     * safe, and need not be: each thread fills its own (the request thread one for the lines it
     * refuses, each chunk's store thread one for its chunk), and the request thread adds a
     * chunk's report to its own only after that chunk's future is done. A report refuses to be
     * written by any thread but the one that made it, so sharing one is a loud bug, not a race
     * that loses counts now and then.
     */
    static final class Report {
        private final Thread owner = Thread.currentThread();
        private long inserted;
        private long failed;
        private final TreeMap<Long, String> errors = new TreeMap<>();

        long inserted() {
            return inserted;
        }

        long failed() {
            return failed;
        }

        void inserted(long count) {
            confined();
            inserted += count;
        }

        void error(long line, String message) {
            confined();
            failed++;
            keep(line, message);
        }

        void add(Report chunk) {
            confined();
            inserted += chunk.inserted;
            failed += chunk.failed;
            chunk.errors.forEach(this::keep);
        }

        private void keep(long line, String message) {
            errors.put(line, message);
            if (errors.size() > MAX_REPORTED) {
                errors.pollLastEntry();
            }
        }

        private void confined() {
            if (Thread.currentThread() != owner) {
                throw new IllegalStateException("an ndjson report is written by " + Thread.currentThread()
                        + " but belongs to " + owner);
            }
        }

        ArrayNode errorList() {
            ArrayNode list = Json.NODES.arrayNode();
            errors.forEach((line, message) -> {
                ObjectNode e = list.addObject();
                e.put("line", line);
                e.put("message", message);
            });
            return list;
        }
    }

    void ingest(Exchange ex, Namespace ns) throws IOException, InterruptedException {
        Report report = new Report();
        Durability durability = api.durability(ex, ns);
        NewDocuments documents = NewDocuments.of(ex, api, ns);
        LineReader reader = new LineReader(ex.bodyStream(), api.settings().maxNdjsonLineBytes());
        List<Line> chunk = new ArrayList<>(CHUNK);
        CompletableFuture<Report> inFlight = CompletableFuture.completedFuture(new Report());
        byte[] line;
        while ((line = reader.next()) != null) {
            long number = reader.lineNumber();
            if (line == LineReader.TOO_LONG) {
                report.error(number, "line is longer than max-ndjson-line-bytes (" + api.settings().maxNdjsonLineBytes() + ")");
                continue;
            }
            if (line.length == 0) {
                continue;
            }
            try {
                chunk.add(new Line(number, documents.admitted(api.json().parse(line, "line " + number))));
            } catch (WeftException e) {
                report.error(number, e.getMessage());
            }
            if (chunk.size() == CHUNK) {
                inFlight = submit(inFlight, ns, durability, chunk, report);
                chunk = new ArrayList<>(CHUNK);
            }
        }
        if (!chunk.isEmpty()) {
            inFlight = submit(inFlight, ns, durability, chunk, report);
        }
        report.add(await(inFlight));
        ObjectNode answer = Json.NODES.objectNode();
        answer.put("inserted", report.inserted());
        answer.put("failed", report.failed());
        ArrayNode errors = report.errorList();
        // a duplicate key's message names the value and index only to a reader who sees everything
        errors.forEach(e -> ((ObjectNode) e).put("message", RequestPipeline.conflictMessage(ex, e.get("message").asString())));
        answer.set("errors", errors);
        ex.sendJson(200, api.json().bytes(answer));
    }

    /**
     * Makes this chunk ready to write (the store's {@link dev.weft.store.Store#prepare}, while
     * the previous chunk is still being written), waits for the previous chunk and adds its
     * report to {@code report}, then commits this one on its own virtual thread.
     */
    private CompletableFuture<Report> submit(CompletableFuture<Report> previous, Namespace ns, Durability durability,
                                             List<Line> chunk, Report report)
            throws InterruptedException {
        List<ObjectNode> docs = new ArrayList<>(chunk.size());
        chunk.forEach(l -> docs.add(l.doc()));
        Store store = api.store(); // taken here: a transaction's store is bound to the request's thread only
        WriteOp op = store.prepare(new WriteOp.InsertMany(ns, docs));
        report.add(await(previous));
        return CompletableFuture.supplyAsync(() -> store(store, ns, durability, op, chunk), Thread.ofVirtual()::start);
    }

    /** Writes one chunk; runs on the chunk's own thread, so it reports into a report of its own. */
    private Report store(Store store, Namespace ns, Durability durability, WriteOp op, List<Line> chunk) {
        Report report = new Report();
        WriteResult all = store.write(op, durability);
        if (all.ok()) {
            report.inserted(chunk.size());
            return report;
        }
        // Some line conflicts: retry one op per line to say which, keeping the others.
        List<WriteOp> single = new ArrayList<>(chunk.size());
        chunk.forEach(l -> single.add(new WriteOp.InsertMany(ns, List.of(l.doc()))));
        List<WriteResult> results = store.writeAll(single, durability);
        for (int i = 0; i < results.size(); i++) {
            WriteResult r = results.get(i);
            if (r.ok()) {
                report.inserted(1);
            } else {
                report.error(chunk.get(i).number(), r.message().orElse(r.outcome().toString()));
            }
        }
        return report;
    }

    private static Report await(CompletableFuture<Report> future) throws InterruptedException {
        try {
            return future.get();
        } catch (ExecutionException e) {
            if (e.getCause() instanceof RuntimeException re) {
                throw re;
            }
            throw new IllegalStateException(e.getCause());
        }
    }

    /** Splits a stream into lines of at most {@code max} bytes without holding more than one. */
    static final class LineReader {
        static final byte[] TOO_LONG = new byte[0];

        private final InputStream in;
        private final int max;
        private final byte[] buffer = new byte[64 * 1024];
        private int pos;
        private int limit;
        private long lineNumber;
        private byte[] line = new byte[1024];

        LineReader(InputStream in, int max) {
            this.in = in;
            this.max = max;
        }

        long lineNumber() {
            return lineNumber;
        }

        /**
         * The next line without its terminator, {@link #TOO_LONG}, or null at the end. Copies
         * whole runs of the buffer up to the next newline, never byte by byte.
         */
        byte[] next() throws IOException {
            int length = 0;
            boolean tooLong = false;
            boolean any = false;
            while (true) {
                if (pos == limit && !fill()) {
                    if (!any) {
                        return null;
                    }
                    break;
                }
                any = true;
                int end = pos;
                while (end < limit && buffer[end] != '\n') {
                    end++;
                }
                int run = end - pos;
                if (!tooLong && length + run > max) {
                    tooLong = true;
                }
                if (!tooLong) {
                    if (length + run > line.length) {
                        line = java.util.Arrays.copyOf(line, Math.min(max, Math.max(line.length * 2, length + run)));
                    }
                    System.arraycopy(buffer, pos, line, length, run);
                    length += run;
                }
                pos = end;
                if (end < limit) {
                    pos++; // the newline
                    break;
                }
            }
            lineNumber++;
            if (tooLong) {
                return TOO_LONG;
            }
            if (length > 0 && line[length - 1] == '\r') {
                length--;
            }
            return java.util.Arrays.copyOf(line, length);
        }

        private boolean fill() throws IOException {
            int n = in.read(buffer);
            pos = 0;
            limit = Math.max(n, 0);
            return n > 0;
        }
    }
}
