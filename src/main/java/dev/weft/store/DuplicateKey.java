package dev.weft.store;

/**
 * The messages of a write refused (409) because a document already has its {@code _id} or one
 * of its unique index keys. Every store builds them here, so that one rule can take the values
 * out: a client whose reads are restricted (a read filter or a response projection) is told
 * only which kind of key clashed ({@link #withoutValues}), never an {@code _id}, a key or an
 * index name. The 409 itself still says that the value exists (docs/security.md).
 */
public final class DuplicateKey {
    private static final String ID = "duplicate _id";
    private static final String KEY = "duplicate key";

    private DuplicateKey() {}

    /** One document whose {@code _id} (as JSON text) is taken. */
    public static String id(String idText) {
        return ID + ": a document with _id " + idText + " already exists";
    }

    /** {@code count} documents of a bulk insert whose {@code _id} is taken. */
    public static String ids(int count) {
        return ID + ": " + count + " of the documents have an _id that already exists";
    }

    /** A unique index already holding a key of the document being written ({@code _id} as JSON text). */
    public static String uniqueIndex(String index, String writtenIdText) {
        return uniqueIndex(index) + " (writing _id " + writtenIdText + ")";
    }

    /** A unique index already holding a key of a document being written. */
    public static String uniqueIndex(String index) {
        return KEY + ": unique index '" + index + "' already has this key for another document";
    }

    /** A uniqueness violation the store could not attribute to an index: the database's own words. */
    public static String other(String detail) {
        return KEY + ": " + detail;
    }

    /** Whether {@code message} is one of the above for the {@code _id}, as an upsert that lost a race sees it. */
    public static boolean isId(String message) {
        return message.startsWith(ID);
    }

    /** {@code message} with no value, id or index name in it when it is one of the above; else unchanged. */
    public static String withoutValues(String message) {
        if (message.startsWith(ID)) {
            return ID + ": a document with the same _id already exists";
        }
        if (message.startsWith(KEY)) {
            return KEY + ": a unique index already has this key for another document";
        }
        return message;
    }
}
