package dev.weft.aggregate;

import tools.jackson.databind.JsonNode;

/** Where a stage hands its documents: one by one, then {@link #finish} once. */
interface Sink {
    /** Takes one document; false when nothing more is wanted (a {@code $limit} was reached). */
    boolean accept(JsonNode document);

    void finish();
}
