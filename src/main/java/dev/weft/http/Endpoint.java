package dev.weft.http;

/**
 * The plan, execute and respond stages of one route and method. Runs on the request's virtual
 * thread after authentication and authorization; blocking is expected. Answers through
 * {@link Exchange} exactly once, or throws a {@link dev.weft.core.WeftException}.
 */
@FunctionalInterface
public interface Endpoint {
    void handle(Exchange exchange) throws Exception;
}
