package dev.weft.aggregate;

/** A compiled pipeline stage: wraps the sink of the stages after it. */
interface Stage {
    Sink into(Sink next, Run run);

    /** Whether the documents it emits are new ones (not the input's), so later field names are not the stored ones. */
    default boolean reshapes() {
        return false;
    }
}
