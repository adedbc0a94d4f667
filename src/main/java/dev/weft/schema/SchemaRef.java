package dev.weft.schema;

import dev.weft.core.WeftException;
import dev.weft.query.Values;
import dev.weft.store.Namespace;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * A schema in a schema store: the database whose {@code _schemas} collection holds it and its
 * {@code _id}, a string or an ObjectId as in RESTHeart, named by the URL RESTHeart gives it,
 * {@code http://schema-store/{db}/{id}}, which other schemas' {@code $ref} use.
 */
record SchemaRef(String db, JsonNode id) {
    static final String COLLECTION = Namespace.SCHEMAS;
    static final String URL_PREFIX = "http://schema-store/";
    private static final Set<String> PROPERTY_FIELDS = Set.of("schemaId", "schemaStoreDb", "skipNotSupported");

    Namespace store() {
        return new Namespace(db, COLLECTION);
    }

    /** The id as it reads in a URL: the string, or the ObjectId's hex digits. */
    String idText() {
        return id.isString() ? id.stringValue() : id.get("$oid").stringValue();
    }

    String url() {
        return URL_PREFIX + db + "/" + idText();
    }

    /** For messages, quoted as RESTHeart quotes it. */
    String quoted() {
        return "'" + idText() + "'";
    }

    /** A schema's {@code _id}: a string that fits a URL segment, or an ObjectId; else 400. */
    static void checkId(JsonNode id) {
        boolean usable = Values.isObjectId(id) || (id != null && id.isString() && !id.stringValue().isEmpty()
                && id.stringValue().chars().noneMatch(c -> c == '/' || c == '#' || c == '?' || c == '%' || c <= ' '));
        if (!usable) {
            throw WeftException.badRequest("a schema's _id is a string without '/', '#', '?', '%' or spaces, or an ObjectId");
        }
    }

    /**
     * A collection's {@code jsonSchema} property, {@code {"schemaId": ..., "schemaStoreDb": ...}}
     * (the store defaults to the collection's database), checked when the property is written;
     * 400 naming what is wrong.
     */
    static SchemaRef ofProperty(JsonNode property, String collectionDb) {
        if (!property.isObject()) {
            throw WeftException.badRequest("property jsonSchema must be an object {\"schemaId\": ..., \"schemaStoreDb\": ...}");
        }
        property.propertyNames().forEach(name -> {
            if (!PROPERTY_FIELDS.contains(name)) {
                throw WeftException.badRequest("property jsonSchema: unknown field " + name
                        + " (schemaId, schemaStoreDb, skipNotSupported)");
            }
        });
        JsonNode id = property.get("schemaId");
        if (id == null) {
            throw WeftException.badRequest("property jsonSchema needs schemaId");
        }
        try {
            checkId(id);
        } catch (WeftException e) {
            throw WeftException.badRequest("property jsonSchema: schemaId: " + e.getMessage());
        }
        JsonNode storeDb = property.get("schemaStoreDb");
        if (storeDb != null && !storeDb.isString()) {
            throw WeftException.badRequest("property jsonSchema: schemaStoreDb must be a database name");
        }
        String db = storeDb == null ? collectionDb : storeDb.stringValue();
        Namespace.checkName(db, "schemaStoreDb database");
        return new SchemaRef(db, id);
    }

    /** The schema a {@code $ref} URL names in database {@code db}'s store; empty for any other URL. */
    static java.util.Optional<String> idInStore(String url, String db) {
        String prefix = URL_PREFIX + db + "/";
        if (!url.startsWith(prefix)) {
            return java.util.Optional.empty();
        }
        String id = url.substring(prefix.length());
        int hash = id.indexOf('#');
        return java.util.Optional.of(hash < 0 ? id : id.substring(0, hash));
    }
}
