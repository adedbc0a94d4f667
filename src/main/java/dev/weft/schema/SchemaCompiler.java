package dev.weft.schema;

import com.networknt.schema.Error;
import com.networknt.schema.Schema;
import com.networknt.schema.SchemaException;
import com.networknt.schema.SchemaLocation;
import com.networknt.schema.SchemaRegistry;
import com.networknt.schema.SchemaRegistryConfig;
import com.networknt.schema.SpecificationVersion;
import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.query.QueryLimits;
import dev.weft.query.RestheartEscapes;
import dev.weft.query.Values;
import dev.weft.store.Store;
import dev.weft.store.StoredDocument;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.stream.Collectors;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Turns schema documents into validators with networknt's json-schema-validator. A schema is
 * written as RESTHeart stores it (its {@code $} keys may be escaped as {@code _$}); its dialect is
 * its {@code $schema} (drafts 4, 6, 7, 2019-09 and 2020-12), draft 4 without one, as in
 * RESTHeart. {@code $ref}s resolve only to schemas of the same store
 * ({@code http://schema-store/{db}/{id}}) and to the drafts' own meta-schemas: nothing is ever
 * fetched from the network or read from files.
 */
final class SchemaCompiler {
    static final SpecificationVersion DEFAULT_DIALECT = SpecificationVersion.DRAFT_4;

    private final Store store;
    private final Json json;
    private final SchemaRegistryConfig config;
    private final SchemaRegistry metaSchemas;
    private final int maxErrors;

    SchemaCompiler(Store store, Json json, QueryLimits limits, int maxErrors) {
        this.store = store;
        this.json = json;
        this.maxErrors = maxErrors;
        this.config = SchemaRegistryConfig.builder().regularExpressionFactory(new Re2jPatterns(limits))
                .locale(Locale.ENGLISH).build();
        this.metaSchemas = SchemaRegistry.withDefaultDialect(DEFAULT_DIALECT, b -> b.schemaRegistryConfig(config)
                .schemaLoader(loader -> loader.fetchRemoteResources(false)));
    }

    /**
     * A schema document about to be stored in {@code db}'s store: a valid schema of its dialect,
     * whose references resolve; else 400 with the meta-schema's messages, and nothing is stored.
     */
    void checkNew(String db, ObjectNode document) {
        JsonNode id = document.get("_id");
        SchemaRef.checkId(id);
        SchemaRef ref = new SchemaRef(db, id);
        JsonNode schema = schemaOf(document);
        SpecificationVersion dialect = dialectOf(schema, ref);
        List<Error> errors = metaSchemas.getSchema(SchemaLocation.of(dialect.getDialectId())).validate(schema);
        if (!errors.isEmpty()) {
            throw WeftException.badRequest("schema " + ref.quoted() + " is not a valid JSON Schema (" + dialect
                    + "): " + messages(errors));
        }
        compile(ref, schema);
    }

    /** The stored schema {@code ref} names, compiled; 400 when it does not exist or cannot be used. */
    Schema load(SchemaRef ref) {
        JsonNode schema = stored(ref).orElseThrow(() -> WeftException.badRequest("schema " + ref.quoted()
                + " does not exist in " + ref.store() + " (the collection's jsonSchema property names it)"));
        return compile(ref, schema);
    }

    private Schema compile(SchemaRef ref, JsonNode schema) {
        SchemaRegistry registry = SchemaRegistry.withDefaultDialect(dialectOf(schema, ref), b -> b.schemaRegistryConfig(config)
                .schemaLoader(loader -> loader.fetchRemoteResources(false))
                .schemas(url -> referenced(ref.db(), url)));
        try {
            Schema compiled = registry.getSchema(SchemaLocation.of(ref.url()), schema);
            compiled.initializeValidators(); // resolves every $ref now, not inside a write
            return compiled;
        } catch (SchemaException e) {
            throw WeftException.badRequest("schema " + ref.quoted() + " cannot be used: " + e.getMessage());
        } catch (RuntimeException e) {
            if (e instanceof WeftException w) {
                throw w;
            }
            throw WeftException.badRequest("schema " + ref.quoted() + " cannot be used: " + e.getMessage());
        }
    }

    /**
     * Checks a document against a compiled schema: 400 with the validator's messages when it
     * fails, those about fields hidden from the writer's {@code readable} view said without
     * naming them ({@link VisibleErrors}).
     */
    void validate(SchemaRef ref, Schema schema, ObjectNode document, UnaryOperator<ObjectNode> readable) {
        List<Error> errors;
        try {
            errors = schema.validate(Instance.of(document));
        } catch (SchemaException e) {
            throw WeftException.badRequest("schema " + ref.quoted() + " cannot be used: " + e.getMessage());
        }
        if (!errors.isEmpty()) {
            throw WeftException.badRequest("Request content violates schema " + ref.quoted() + ": "
                    + messages(VisibleErrors.of(errors, document, readable)));
        }
    }

    /** The first {@code json-schema-max-errors} messages, and how many more there were. */
    private String messages(List<?> errors) {
        String shown = errors.stream().limit(maxErrors).map(Object::toString).collect(Collectors.joining(", "));
        return errors.size() > maxErrors ? shown + " (and " + (errors.size() - maxErrors) + " more)" : shown;
    }

    private SpecificationVersion dialectOf(JsonNode schema, SchemaRef ref) {
        JsonNode declared = schema.get("$schema");
        if (declared == null) {
            return DEFAULT_DIALECT;
        }
        Optional<SpecificationVersion> dialect = declared.isString() ? dialect(declared.stringValue()) : Optional.empty();
        return dialect.orElseThrow(() -> WeftException.badRequest("schema " + ref.quoted() + ": $schema " + declared
                + " is not a supported dialect (JSON Schema drafts 4, 6, 7, 2019-09, 2020-12)"));
    }

    /**
     * The draft a {@code $schema} names, read leniently as clients write it: with or without the
     * empty fragment {@code #}, over http or https (RESTHeart's own tests write
     * {@code https://json-schema.org/draft-07/schema#}).
     */
    private static Optional<SpecificationVersion> dialect(String id) {
        String bare = id.endsWith("#") ? id.substring(0, id.length() - 1) : id;
        String other = bare.startsWith("https://") ? "http://" + bare.substring(8)
                : bare.startsWith("http://") ? "https://" + bare.substring(7) : bare;
        for (String candidate : new String[] {bare, bare + "#", other, other + "#"}) {
            Optional<SpecificationVersion> version = SpecificationVersion.fromDialectId(candidate);
            if (version.isPresent()) {
                return version;
            }
        }
        return Optional.empty();
    }

    /** The text of the schema a {@code $ref} URL names in {@code db}'s store; null for anything else. */
    private String referenced(String db, String url) {
        return SchemaRef.idInStore(url, db)
                .flatMap(id -> stored(new SchemaRef(db, Json.NODES.stringNode(id)))
                        .or(() -> Values.isObjectId(oid(id)) ? stored(new SchemaRef(db, oid(id))) : Optional.empty()))
                .map(json::text)
                .orElse(null);
    }

    private static JsonNode oid(String hex) {
        return Json.NODES.objectNode().put("$oid", hex);
    }

    private Optional<JsonNode> stored(SchemaRef ref) {
        return store.get(ref.store(), ref.id()).map(StoredDocument::json)
                .map(bytes -> schemaOf(json.parseObject(bytes, "stored schema")));
    }

    /** The schema a stored document holds: RESTHeart's escapes undone, without the store's own fields. */
    private static JsonNode schemaOf(ObjectNode document) {
        ObjectNode schema = (ObjectNode) RestheartEscapes.undo(document);
        schema.remove("_id");
        schema.remove("_etag");
        return schema;
    }
}
