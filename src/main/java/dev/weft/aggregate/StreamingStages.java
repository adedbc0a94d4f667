package dev.weft.aggregate;

import dev.weft.core.Json;
import dev.weft.query.Filter;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/** The stages that pass documents on one at a time, holding none. */
final class StreamingStages {
    private StreamingStages() {}

    /** A stage that maps each document to at most one. */
    abstract static class PerDocument implements Stage {
        abstract JsonNode apply(JsonNode doc, Run run);

        @Override
        public Sink into(Sink next, Run run) {
            return new Sink() {
                @Override
                public boolean accept(JsonNode document) {
                    JsonNode out = apply(document, run);
                    return out == null || next.accept(out == document ? out : ScoredDocument.carry(document, out));
                }

                @Override
                public void finish() {
                    next.finish();
                }
            };
        }
    }

    /** {@code $match}: a filter with MongoDB's query semantics, and a top-level {@code $expr}, if any. */
    static final class Match extends PerDocument {
        final JsonNode filterSpec;
        private final Filter filter;
        private final Expr expr;

        Match(JsonNode filterSpec, Filter filter, Expr expr) {
            this.filterSpec = filterSpec;
            this.filter = filter;
            this.expr = expr;
        }

        boolean pushable() {
            return expr == null;
        }

        /** Whether its filter has a {@code $text} search (only a pipeline's first stage may). */
        boolean searchesText() {
            return filter.textSearch().isPresent();
        }

        /** This match without its {@code $expr}: what a store can run. */
        Match filterPart() {
            return new Match(filterSpec, filter, null);
        }

        /** Its {@code $expr} alone. */
        Match exprPart() {
            return new Match(Json.NODES.objectNode(), Filter.all(), expr);
        }

        @Override
        JsonNode apply(JsonNode doc, Run run) {
            boolean matched = filter.matches(doc) && (expr == null || AggValues.truthy(expr.eval(run.scope(doc))));
            return matched ? doc : null;
        }
    }

    static final class Project extends PerDocument {
        private final Projector projector;
        private final boolean reshapes;

        Project(Projector projector, boolean reshapes) {
            this.projector = projector;
            this.reshapes = reshapes;
        }

        @Override
        JsonNode apply(JsonNode doc, Run run) {
            return projector.apply(doc, run.scope(doc));
        }

        @Override
        public boolean reshapes() {
            return reshapes;
        }
    }

    /** {@code $addFields}/{@code $set}: each path set to its expression's value over the input document. */
    static final class AddFields extends PerDocument {
        private final List<String[]> paths;
        private final List<Expr> values;

        AddFields(List<String[]> paths, List<Expr> values) {
            this.paths = paths;
            this.values = values;
        }

        @Override
        JsonNode apply(JsonNode doc, Run run) {
            Scope scope = run.scope(doc);
            JsonNode[] computed = new JsonNode[values.size()];
            for (int i = 0; i < computed.length; i++) {
                computed[i] = values.get(i).eval(scope);
            }
            JsonNode out = doc;
            for (int i = 0; i < computed.length; i++) {
                out = Documents.set(out, paths.get(i), 0, computed[i]);
            }
            return out;
        }
    }

    static final class ReplaceRoot extends PerDocument {
        private final Expr newRoot;

        ReplaceRoot(Expr newRoot) {
            this.newRoot = newRoot;
        }

        @Override
        JsonNode apply(JsonNode doc, Run run) {
            JsonNode root = newRoot.eval(run.scope(doc));
            if (root == null || !root.isObject() || dev.weft.query.Values.isDate(root) || dev.weft.query.Values.isObjectId(root)) {
                throw AggValues.error("$replaceRoot", "'newRoot' must evaluate to an object, but the value was "
                        + AggValues.typeName(root));
            }
            return root;
        }

        @Override
        public boolean reshapes() {
            return true;
        }
    }

    static final class Skip implements Stage {
        private final long n;

        Skip(long n) {
            this.n = n;
        }

        long n() {
            return n;
        }

        @Override
        public Sink into(Sink next, Run run) {
            return new Sink() {
                long seen;

                @Override
                public boolean accept(JsonNode document) {
                    return ++seen <= n || next.accept(document);
                }

                @Override
                public void finish() {
                    next.finish();
                }
            };
        }
    }

    static final class Limit implements Stage {
        private final long n;

        Limit(long n) {
            this.n = n;
        }

        long n() {
            return n;
        }

        @Override
        public Sink into(Sink next, Run run) {
            return new Sink() {
                long passed;

                @Override
                public boolean accept(JsonNode document) {
                    if (passed >= n) {
                        return false;
                    }
                    passed++;
                    return next.accept(document) && passed < n;
                }

                @Override
                public void finish() {
                    next.finish();
                }
            };
        }
    }

    /** {@code $unwind}: one document per element of the array at {@code path}. */
    static final class Unwind implements Stage {
        private final String[] path;
        private final String[] indexField;
        private final boolean preserve;

        Unwind(String[] path, String[] indexField, boolean preserve) {
            this.path = path;
            this.indexField = indexField;
            this.preserve = preserve;
        }

        @Override
        public Sink into(Sink next, Run run) {
            return new Sink() {
                @Override
                public boolean accept(JsonNode doc) {
                    JsonNode value = AggValues.path(doc, path, 0);
                    if (value != null && value.isArray() && !value.isEmpty()) {
                        for (int i = 0; i < value.size(); i++) {
                            ObjectNode out = Documents.set(doc, path, 0, value.get(i));
                            if (!next.accept(indexed(out, Json.NODES.numberNode(i)))) {
                                return false;
                            }
                        }
                        return true;
                    }
                    boolean empty = value == null || value.isNull() || value.isArray();
                    if (empty && !preserve) {
                        return true;
                    }
                    JsonNode kept = value != null && value.isArray() ? Documents.set(doc, path, 0, null) : doc;
                    return next.accept(indexed(kept, Json.NODES.nullNode()));
                }

                private JsonNode indexed(JsonNode doc, JsonNode index) {
                    return indexField == null ? doc : Documents.set(doc, indexField, 0, index);
                }

                @Override
                public void finish() {
                    next.finish();
                }
            };
        }
    }
}
