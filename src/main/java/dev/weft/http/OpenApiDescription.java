package dev.weft.http;

import dev.weft.core.Json;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import org.yaml.snakeyaml.LoaderOptions;
import org.yaml.snakeyaml.Yaml;
import org.yaml.snakeyaml.constructor.SafeConstructor;

/**
 * {@code GET /_openapi.json}: the OpenAPI description written in {@code docs/openapi.yaml}
 * (copied into the jar by the build), converted to JSON once at start. It describes the API and
 * holds no data, so the route is open.
 */
final class OpenApiDescription {
    static final String RESOURCE = "openapi.yaml";

    private OpenApiDescription() {}

    static Endpoint endpoint(Json json) {
        byte[] body = json(json);
        return ex -> {
            ex.setHeader("X-Content-Type-Options", "nosniff");
            ex.sendJson(200, body);
        };
    }

    /** The description as JSON bytes; the build guarantees the resource, so its absence is a fault. */
    static byte[] json(Json json) {
        try (InputStream in = OpenApiDescription.class.getClassLoader().getResourceAsStream(RESOURCE)) {
            if (in == null) {
                throw new IllegalStateException(RESOURCE + " is missing from the class path");
            }
            Object tree = new Yaml(new SafeConstructor(new LoaderOptions())).load(in);
            return json.mapper().writeValueAsBytes(tree);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
