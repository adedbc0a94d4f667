package dev.weft.aggregate;

import tools.jackson.databind.JsonNode;

/**
 * A compiled aggregation expression. Evaluating it returns the value, or Java {@code null} for
 * MongoDB's "missing" (a field that is not there), which differs from JSON null: a missing value
 * is left out of a document being built and sorts below null. Errors (a type MongoDB refuses,
 * a division by zero) are 400 {@link dev.weft.core.WeftException}s naming the operator.
 */
@FunctionalInterface
interface Expr {
    JsonNode eval(Scope scope);
}
