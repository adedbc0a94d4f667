package dev.weft.http;

import dev.weft.core.Json;
import dev.weft.core.RelaxedJson;
import dev.weft.core.WeftException;
import dev.weft.security.AccessRequest;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import tools.jackson.databind.JsonNode;

/**
 * A request as the authorize stage sees it. The JSON body is read (and kept for the endpoint)
 * only when a rule asks for it; on the memory path, which must not block, asking for it declines
 * the memory path instead ({@link WeftException}), so the stages decide.
 */
final class ExchangeAccess implements AccessRequest {
    private final Exchange exchange;
    private final List<String> segments;
    private final boolean mayReadBody;
    private final Json json;
    private Optional<JsonNode> body;

    ExchangeAccess(Exchange exchange, List<String> segments, boolean mayReadBody, Json json) {
        this.exchange = exchange;
        this.segments = segments;
        this.mayReadBody = mayReadBody;
        this.json = json;
    }

    @Override
    public String method() {
        return exchange.method();
    }

    @Override
    public List<String> segments() {
        return segments;
    }

    @Override
    public String path() {
        return exchange.path();
    }

    @Override
    public String queryString() {
        return exchange.queryString();
    }

    @Override
    public Set<String> paramNames() {
        return exchange.paramNames();
    }

    @Override
    public Optional<String> param(String name) {
        return exchange.param(name);
    }

    @Override
    public String remoteAddress() {
        return exchange.remoteAddress();
    }

    @Override
    public Optional<JsonNode> jsonBody() {
        if (body == null) {
            if (!mayReadBody) {
                throw new WeftException(500, "the memory path does not read bodies");
            }
            body = readBody();
        }
        return body;
    }

    /** A body that is not JSON, or does not parse, is no body to a predicate; the endpoint reports it. */
    private Optional<JsonNode> readBody() {
        boolean form = FormBody.isForm(exchange.contentType()) && Api.takesForms(exchange);
        if (!form && !exchange.contentType().equals("application/json")) {
            return Optional.empty();
        }
        try {
            if (form) { // the document the endpoint will write, so a predicate sees what is written
                return Optional.of(FormBody.read(exchange, new RelaxedJson(json)));
            }
            byte[] bytes = exchange.body();
            return bytes.length == 0 ? Optional.empty() : Optional.of(json.parse(bytes, "request body"));
        } catch (WeftException e) {
            if (e.status() == 413) {
                throw e;
            }
            return Optional.empty();
        }
    }
}
