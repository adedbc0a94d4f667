package dev.weft.store;

import dev.weft.query.IndexField;
import java.util.List;

/** An index of a collection: its name, its key fields in order, and whether keys are unique. */
public record IndexSpec(String name, List<IndexField> fields, boolean unique) {}
