package dev.weft.schema;

import com.networknt.schema.Schema;
import dev.weft.core.Json;
import dev.weft.core.Settings;
import dev.weft.query.QueryLimits;
import dev.weft.security.DocumentPolicy;
import dev.weft.store.Namespace;
import dev.weft.store.Store;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * JSON Schema validation as RESTHeart's: schemas are documents of a database's {@code _schemas}
 * collection (so reading and writing them obeys the access rules like any collection), and a
 * collection whose property {@code jsonSchema} names one ({@code {"schemaId": ...,
 * "schemaStoreDb": ...}}) takes only documents that pass it, on every write path (the checks
 * ride on {@link DocumentPolicy}: insert and replace check the document, updates the document
 * they leave behind, inside the write). A document written to {@code _schemas} must itself be
 * a valid schema.
 *
 * <p>Compiled schemas are cached, at most {@code json-schema-cache-entries}, each valid while
 * its store's {@code _schemas} collection is unchanged ({@link Store#version}).
 */
public final class JsonSchemas {
    public static final String COLLECTION = SchemaRef.COLLECTION;
    public static final String PROPERTY = "jsonSchema";

    private record Compiled(long version, Schema schema) {}

    private final Store store;
    private final SchemaCompiler compiler;
    private final SchemaStorePolicy storePolicy;
    private final Map<SchemaRef, Compiled> cache;

    private JsonSchemas(Store store, Json json, SchemaCompiler compiler, int cacheEntries) {
        this.store = store;
        this.compiler = compiler;
        this.storePolicy = new SchemaStorePolicy(json);
        this.cache = new LinkedHashMap<>(16, 0.75f, true) {
            @Override
            protected boolean removeEldestEntry(Map.Entry<SchemaRef, Compiled> eldest) {
                return size() > cacheEntries;
            }
        };
    }

    public static JsonSchemas open(Store store, Settings settings) {
        Json json = new Json(settings.maxNestingDepth());
        return new JsonSchemas(store, json, new SchemaCompiler(store, json, QueryLimits.of(settings),
                settings.jsonSchemaMaxErrors()), settings.jsonSchemaCacheEntries());
    }

    /** The policy of every {@code _schemas} collection (how schemas are stored and read back), for every request. */
    public DocumentPolicy.Lookup storePolicies() {
        return ns -> ns.coll().equals(COLLECTION) ? storePolicy : DocumentPolicy.NONE;
    }

    /**
     * {@code inner} with the schema checks added where a collection has them. Meant for
     * writes: it reads the collection's properties, which reads need not pay for.
     */
    public DocumentPolicy.Lookup around(DocumentPolicy.Lookup inner) {
        return ns -> {
            DocumentPolicy policy = inner.of(ns);
            return checkOf(ns).<DocumentPolicy>map(check -> new Validating(policy, check)).orElse(policy);
        };
    }

    /** A collection's {@code jsonSchema} property as it is written: 400 when it cannot name a schema. */
    public static void checkProperty(ObjectNode properties, String db) {
        JsonNode property = properties.get(PROPERTY);
        if (property != null) {
            SchemaRef.ofProperty(property, db);
        }
    }

    private Optional<Validating.Check> checkOf(Namespace ns) {
        if (ns.coll().equals(COLLECTION)) {
            return Optional.of((document, readable) -> compiler.checkNew(ns.db(), document));
        }
        Optional<JsonNode> property = store.collection(ns).map(m -> m.properties().get(PROPERTY));
        if (property.isEmpty() || property.get().isNull()) {
            return Optional.empty();
        }
        SchemaRef ref = SchemaRef.ofProperty(property.get(), ns.db());
        return Optional.of(new Validating.Check() {
            private Schema schema;

            @Override
            public void prepare() {
                if (schema == null) {
                    schema = schema(ref);
                }
            }

            @Override
            public void accept(ObjectNode document, UnaryOperator<ObjectNode> readable) {
                prepare();
                compiler.validate(ref, schema, document, readable);
            }
        });
    }

    private Schema schema(SchemaRef ref) {
        long version = store.version(ref.store());
        synchronized (cache) {
            Compiled cached = cache.get(ref);
            if (cached != null && cached.version() == version) {
                return cached.schema();
            }
        }
        Schema schema = compiler.load(ref);
        synchronized (cache) {
            cache.put(ref, new Compiled(version, schema));
        }
        return schema;
    }
}
