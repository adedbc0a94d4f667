package dev.weft.query;

/** One key of an index or sort: a dotted path and a direction (1 or -1). */
public record IndexField(String path, int direction) {
    public IndexField {
        if (direction != 1 && direction != -1) {
            throw new IllegalArgumentException("direction must be 1 or -1");
        }
    }
}
