package dev.weft.aggregate;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.query.Filter;
import dev.weft.query.IndexField;
import dev.weft.query.QueryLimits;
import dev.weft.query.Sort;
import dev.weft.query.TextSearch;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * Compiles a pipeline's stages. Records, for the caller's access checks, the document paths the
 * stages read until one replaces the documents with new ones ({@link #paths}) and the
 * collections {@code $lookup} reads ({@link #lookups}). An unknown stage is a 400 naming it.
 *
 * <p>{@code $text} as MongoDB allows it in a pipeline: in a {@code $match} that is the first stage
 * of an aggregation (which the store then runs on the text index), nowhere else (not in
 * {@code $facet} or {@code $lookup} either). That match gives the documents a textScore
 * ({@link ScoredDocument}), which expressions and {@code $sort} may read until a stage makes new
 * documents ({@code $group $bucket $count $sortByCount $facet}); reading it where there is none
 * is MongoDB's 400 ({@link TextSearch#NO_SCORE}).
 */
final class StageParser {
    /** The stages whose output documents are new ones, without the input's textScore (as in MongoDB). */
    private static final Set<String> MAKE_NEW_DOCUMENTS = Set.of("$group", "$bucket", "$count", "$sortByCount", "$facet");
    static final Set<String> STAGES = Set.of("$match", "$project", "$addFields", "$set", "$unset", "$replaceRoot",
            "$replaceWith", "$group", "$sort", "$skip", "$limit", "$unwind", "$count", "$sortByCount", "$bucket", "$facet",
            "$sample", "$lookup");
    private final QueryLimits limits;
    private final Set<String> variables;
    private final Set<String> paths = new LinkedHashSet<>();
    private final Set<String> lookups;
    /** Whether this is an aggregation's own stage list, whose first stage may match {@code $text}. */
    private final boolean textFirst;
    /** Whether each stage is checked alone (a stored pipeline's), a textScore taken as available. */
    private final boolean scoreAssumed;
    private boolean reshaped;
    private boolean readsWhole;
    /** Whether the documents entering the next stage carry a textScore. */
    private boolean scored;
    private boolean usesTextScore;

    StageParser(QueryLimits limits, Set<String> variables, Set<String> lookups) {
        this(limits, variables, lookups, false, false);
    }

    private StageParser(QueryLimits limits, Set<String> variables, Set<String> lookups, boolean textFirst,
                        boolean scoreAssumed) {
        this.limits = limits;
        this.variables = variables;
        this.lookups = lookups;
        this.textFirst = textFirst;
        this.scoreAssumed = scoreAssumed;
        this.scored = scoreAssumed;
    }

    /** The parser of an aggregation's stages: its first may be a {@code $match} with {@code $text}. */
    static StageParser aggregation(QueryLimits limits, Set<String> lookups) {
        return new StageParser(limits, Set.of(), lookups, true, false);
    }

    /** The parser of one stage of a stored pipeline checked alone: it may be the first, and a textScore may be read. */
    static StageParser storedStage(QueryLimits limits, Set<String> lookups) {
        return new StageParser(limits, Set.of(), lookups, true, true);
    }

    /** Whether a stage reads the textScore ({@code $meta}, or {@code $sort} by it). */
    boolean usesTextScore() {
        return usesTextScore;
    }

    Set<String> paths() {
        return paths;
    }

    Set<String> lookups() {
        return lookups;
    }

    /**
     * Whether the documents as stored need reading whole: nothing replaces them with new ones
     * before they are output, or a stage before that reads {@code $$ROOT}. Otherwise {@link
     * #paths} is all a run needs of each (a pruned read).
     */
    boolean readsWholeDocuments() {
        return readsWhole || !reshaped;
    }

    List<Stage> parseAll(JsonNode stages, String where) {
        if (!stages.isArray()) {
            throw WeftException.badRequest(where + " must be an array of stages");
        }
        List<Stage> out = new ArrayList<>();
        for (JsonNode spec : stages) {
            Stage stage = parse(spec, out.isEmpty());
            if (stage instanceof StreamingStages.Match m && m.searchesText() && !m.pushable()) {
                // the store runs the $text part on the text index; the $expr follows as a stage of its own
                out.add(m.filterPart());
                stage = m.exprPart();
            }
            scored = scoreAssumed || scored && !MAKE_NEW_DOCUMENTS.contains(spec.propertyNames().iterator().next());
            if (stage instanceof StreamingStages.Limit limit && !out.isEmpty()
                    && out.getLast() instanceof BlockingStages.SortStage sort) {
                out.set(out.size() - 1, sort.limitedTo(limit.n()));
            }
            out.add(stage);
            reshaped |= stage.reshapes();
        }
        return out;
    }

    private ExprParser expressions() {
        return new ExprParser(limits, variables).withTextScore(scored);
    }

    private void read(ExprParser p) {
        usesTextScore |= p.usesTextScore();
        read(p.paths());
        readsWhole |= !reshaped && p.readsWholeDocument();
    }

    private void read(Set<String> found) {
        if (!reshaped) {
            paths.addAll(found);
        }
    }

    private Stage parse(JsonNode spec, boolean first) {
        if (!spec.isObject() || spec.size() != 1) {
            throw WeftException.badRequest("a pipeline stage must be an object with exactly one field, such as {\"$match\": {}}");
        }
        String name = spec.propertyNames().iterator().next();
        JsonNode arg = spec.get(name);
        return switch (name) {
            case "$match" -> match(arg, first);
            case "$project" -> {
                ExprParser p = expressions();
                Projector projector = Projector.parse(arg, p);
                read(p);
                if (projector.isInclusion()) {
                    arg.propertyNames().forEach(f -> read(Set.of(f)));
                }
                // what an exclusion keeps is every field it does not name: it reads documents whole
                readsWhole |= !reshaped && projector.keepsUnnamedFields();
                yield new StreamingStages.Project(projector, true);
            }
            case "$addFields", "$set" -> addFields(name, arg);
            case "$unset" -> unset(arg);
            case "$replaceRoot" -> {
                ObjectNode named = ExprParser.named(name, arg, Set.of("newRoot"), Set.of("newRoot"));
                yield replaceRoot(named.get("newRoot"));
            }
            case "$replaceWith" -> replaceRoot(arg);
            case "$group" -> group(arg);
            case "$sort" -> new BlockingStages.SortStage(sort(arg), Long.MAX_VALUE);
            case "$skip" -> new StreamingStages.Skip(count(name, arg, 0));
            case "$limit" -> new StreamingStages.Limit(count(name, arg, 1));
            case "$unwind" -> unwind(arg);
            case "$count" -> {
                if (!arg.isString() || arg.stringValue().isEmpty() || arg.stringValue().startsWith("$")
                        || arg.stringValue().contains(".")) {
                    throw WeftException.badRequest("$count takes a field name: a non-empty string without '$' or '.'");
                }
                yield new BlockingStages.Count(arg.stringValue());
            }
            case "$sortByCount" -> sortByCount(arg);
            case "$bucket" -> bucket(arg);
            case "$facet" -> facet(arg);
            case "$sample" -> {
                ObjectNode named = ExprParser.named(name, arg, Set.of("size"), Set.of("size"));
                yield new BlockingStages.Sample((int) Math.min(Integer.MAX_VALUE, count("$sample size", named.get("size"), 0)));
            }
            case "$lookup" -> lookup(arg);
            case "$out", "$merge" -> throw WeftException.badRequest("stage " + name
                    + " is not supported: an aggregation never writes");
            default -> throw WeftException.badRequest("unknown pipeline stage " + name);
        };
    }

    private Stage match(JsonNode arg, boolean first) {
        if (!arg.isObject()) {
            throw WeftException.badRequest("$match takes a filter object");
        }
        ObjectNode filterSpec = ((ObjectNode) arg).deepCopy();
        JsonNode exprSpec = filterSpec.remove("$expr");
        Filter filter = Filter.parse(filterSpec, limits);
        if (filter.textSearch().isPresent()) {
            if (!first || !textFirst) {
                throw WeftException.badRequest(TextSearch.NOT_FIRST_STAGE);
            }
            scored = true;
        }
        read(filter.paths());
        Expr expr = null;
        if (exprSpec != null) {
            ExprParser p = expressions();
            expr = p.parse(exprSpec);
            read(p);
        }
        return new StreamingStages.Match(filterSpec, filter, expr);
    }

    private Stage addFields(String name, JsonNode arg) {
        if (!arg.isObject()) {
            throw WeftException.badRequest(name + " takes an object of fields and expressions");
        }
        List<String[]> paths = new ArrayList<>();
        List<Expr> values = new ArrayList<>();
        ExprParser p = expressions();
        flatten("", (ObjectNode) arg, p, paths, values, name);
        read(p);
        return new StreamingStages.AddFields(paths, values);
    }

    private static void flatten(String prefix, ObjectNode spec, ExprParser p, List<String[]> paths, List<Expr> values,
                                String stage) {
        for (Map.Entry<String, JsonNode> e : spec.properties()) {
            String field = e.getKey();
            if (field.startsWith("$") || field.isEmpty() || field.contains("..") || field.startsWith(".") || field.endsWith(".")) {
                throw WeftException.badRequest(stage + ": invalid field name '" + field + "'");
            }
            JsonNode v = e.getValue();
            if (v.isObject() && !v.isEmpty() && !v.propertyNames().iterator().next().startsWith("$")) {
                flatten(prefix + field + ".", (ObjectNode) v, p, paths, values, stage);
            } else {
                paths.add((prefix + field).split("\\."));
                values.add(p.parse(v));
            }
        }
    }

    private Stage unset(JsonNode arg) {
        List<String> fields = new ArrayList<>();
        if (arg.isString()) {
            fields.add(arg.stringValue());
        } else if (arg.isArray() && !arg.isEmpty()) {
            arg.forEach(f -> {
                if (!f.isString()) {
                    throw WeftException.badRequest("$unset takes a field name or an array of field names");
                }
                fields.add(f.stringValue());
            });
        } else {
            throw WeftException.badRequest("$unset takes a field name or an array of field names");
        }
        for (String f : fields) {
            if (f.isEmpty() || f.startsWith("$")) {
                throw WeftException.badRequest("$unset: invalid field name '" + f + "'");
            }
        }
        return new StreamingStages.Project(Projector.exclusion(fields), false);
    }

    private Stage replaceRoot(JsonNode newRoot) {
        ExprParser p = expressions();
        Expr expr = p.parse(newRoot);
        read(p);
        return new StreamingStages.ReplaceRoot(expr);
    }

    private Stage group(JsonNode arg) {
        if (!arg.isObject() || !arg.has("_id")) {
            throw WeftException.badRequest("$group needs an _id, the expression to group by (null for one group)");
        }
        ExprParser p = expressions();
        Expr id = p.parse(arg.get("_id"));
        List<Accumulators.Spec> fields = new ArrayList<>();
        for (Map.Entry<String, JsonNode> e : arg.properties()) {
            if (!e.getKey().equals("_id")) {
                fields.add(Accumulators.parse("$group", e.getKey(), e.getValue(), p));
            }
        }
        read(p);
        return new BlockingStages.Group(id, fields);
    }

    private Sort sort(JsonNode arg) {
        if (!arg.isObject() || arg.isEmpty()) {
            throw WeftException.badRequest("$sort takes a non-empty object such as {\"age\": -1}");
        }
        List<IndexField> fields = new ArrayList<>();
        for (Map.Entry<String, JsonNode> e : arg.properties()) {
            JsonNode d = e.getValue();
            if (Sort.isTextScore(d)) {
                if (!scored) {
                    throw WeftException.badRequest(TextSearch.NO_SCORE);
                }
                if (fields.stream().anyMatch(f -> f.path().equals(Sort.TEXT_SCORE))) {
                    throw WeftException.badRequest("$sort: textScore twice");
                }
                usesTextScore = true;
                fields.add(new IndexField(Sort.TEXT_SCORE, -1));
                continue;
            }
            if (!d.isNumber() || (d.doubleValue() != 1 && d.doubleValue() != -1)) {
                throw WeftException.badRequest("$sort: the direction of '" + e.getKey() + "' must be 1 or -1");
            }
            if (e.getKey().isEmpty() || e.getKey().startsWith("$")) {
                throw WeftException.badRequest("$sort: invalid field name '" + e.getKey() + "'");
            }
            fields.add(new IndexField(e.getKey(), d.intValue()));
            read(Set.of(e.getKey()));
        }
        return new Sort(fields);
    }

    private static long count(String stage, JsonNode arg, long min) {
        if (arg == null || !arg.isNumber() || arg.doubleValue() != Math.rint(arg.doubleValue()) || arg.doubleValue() < min
                || arg.doubleValue() >= 0x1p63) {
            throw WeftException.badRequest(stage + " takes a whole number, " + min + " or more");
        }
        return arg.longValue();
    }

    private Stage unwind(JsonNode arg) {
        JsonNode path = arg.isObject() ? arg.get("path") : arg;
        if (arg.isObject()) {
            ExprParser.named("$unwind", arg, Set.of("path", "includeArrayIndex", "preserveNullAndEmptyArrays"), Set.of("path"));
        }
        if (path == null || !path.isString() || !path.stringValue().startsWith("$") || path.stringValue().length() < 2
                || path.stringValue().startsWith("$$")) {
            throw WeftException.badRequest("$unwind: path must be a field path such as \"$items\"");
        }
        String dotted = path.stringValue().substring(1);
        read(Set.of(dotted));
        String[] index = null;
        boolean preserve = false;
        if (arg.isObject()) {
            JsonNode i = arg.get("includeArrayIndex");
            if (i != null) {
                if (!i.isString() || i.stringValue().isEmpty() || i.stringValue().startsWith("$")) {
                    throw WeftException.badRequest("$unwind: includeArrayIndex must be a field name");
                }
                index = i.stringValue().split("\\.");
            }
            JsonNode keep = arg.get("preserveNullAndEmptyArrays");
            if (keep != null) {
                if (!keep.isBoolean()) {
                    throw WeftException.badRequest("$unwind: preserveNullAndEmptyArrays must be true or false");
                }
                preserve = keep.booleanValue();
            }
        }
        return new StreamingStages.Unwind(dotted.split("\\."), index, preserve);
    }

    private Stage sortByCount(JsonNode arg) {
        ExprParser p = expressions();
        if (arg.isObject() && (arg.isEmpty() || !arg.propertyNames().iterator().next().startsWith("$"))
                || !arg.isObject() && !(arg.isString() && arg.stringValue().startsWith("$"))) {
            throw WeftException.badRequest("$sortByCount takes a field path or an operator expression");
        }
        Expr id = p.parse(arg);
        read(p);
        return new BlockingStages.SortByCount(id);
    }

    private Stage bucket(JsonNode arg) {
        ObjectNode named = ExprParser.named("$bucket", arg, Set.of("groupBy", "boundaries", "default", "output"),
                Set.of("groupBy", "boundaries"));
        ExprParser p = expressions();
        Expr groupBy = p.parse(named.get("groupBy"));
        JsonNode b = named.get("boundaries");
        if (!b.isArray() || b.size() < 2) {
            throw WeftException.badRequest("$bucket: boundaries must be an array of at least two values");
        }
        List<JsonNode> boundaries = new ArrayList<>();
        for (JsonNode v : b) {
            if (!boundaries.isEmpty()) {
                JsonNode last = boundaries.getLast();
                if (dev.weft.query.Values.bracket(last) != dev.weft.query.Values.bracket(v)
                        || dev.weft.query.Values.compare(last, v) >= 0) {
                    throw WeftException.badRequest("$bucket: boundaries must be of one type and strictly ascending");
                }
            }
            boundaries.add(v);
        }
        JsonNode fallback = named.get("default");
        if (fallback != null && dev.weft.query.Values.bracket(fallback) == dev.weft.query.Values.bracket(boundaries.getFirst())
                && dev.weft.query.Values.compare(fallback, boundaries.getFirst()) >= 0
                && dev.weft.query.Values.compare(fallback, boundaries.getLast()) < 0) {
            throw WeftException.badRequest("$bucket: default must be less than the lowest boundary or at least the highest");
        }
        List<Accumulators.Spec> output = new ArrayList<>();
        JsonNode out = named.get("output");
        if (out == null) {
            output.add(new Accumulators.Spec("count", "$sum", ExprParser.constant(Json.NODES.numberNode(1))));
        } else {
            if (!out.isObject()) {
                throw WeftException.badRequest("$bucket: output must be an object of accumulators");
            }
            out.properties().forEach(e -> output.add(Accumulators.parse("$bucket", e.getKey(), e.getValue(), p)));
        }
        read(p);
        return new BlockingStages.Bucket(groupBy, boundaries, fallback, output);
    }

    private Stage facet(JsonNode arg) {
        if (!arg.isObject() || arg.isEmpty()) {
            throw WeftException.badRequest("$facet takes an object of named sub-pipelines");
        }
        Map<String, List<Stage>> facets = new LinkedHashMap<>();
        for (Map.Entry<String, JsonNode> e : arg.properties()) {
            ExprParser.checkFieldName(e.getKey());
            StageParser inner = new StageParser(limits, variables, lookups);
            inner.reshaped = reshaped;
            inner.scored = scored;
            for (JsonNode s : e.getValue().isArray() ? e.getValue() : Json.NODES.arrayNode()) {
                String stage = s.isObject() && s.size() == 1 ? s.propertyNames().iterator().next() : "";
                if (Set.of("$facet", "$out", "$merge").contains(stage)) {
                    throw WeftException.badRequest("$facet: stage " + stage + " is not allowed inside $facet");
                }
            }
            facets.put(e.getKey(), inner.parseAll(e.getValue(), "$facet." + e.getKey()));
            read(inner.paths());
            readsWhole |= !reshaped && inner.readsWholeDocuments();
            usesTextScore |= inner.usesTextScore;
        }
        return new BlockingStages.Facet(facets);
    }

    private Stage lookup(JsonNode arg) {
        ObjectNode named = ExprParser.named("$lookup", arg,
                Set.of("from", "localField", "foreignField", "as", "let", "pipeline"), Set.of("from", "as"));
        JsonNode from = named.get("from");
        if (!from.isString() || from.stringValue().isEmpty()) {
            throw WeftException.badRequest("$lookup: from must name a collection of the same database");
        }
        JsonNode as = named.get("as");
        if (!as.isString() || as.stringValue().isEmpty() || as.stringValue().startsWith("$")) {
            throw WeftException.badRequest("$lookup: as must be a field name");
        }
        lookups.add(from.stringValue());
        String[] asPath = as.stringValue().split("\\.");
        if (named.has("localField") || named.has("foreignField")) {
            if (named.has("pipeline") || named.has("let")) {
                throw WeftException.badRequest("$lookup: give either localField and foreignField, or let and pipeline");
            }
            JsonNode local = named.get("localField");
            JsonNode foreign = named.get("foreignField");
            if (local == null || foreign == null || !local.isString() || !foreign.isString()
                    || local.stringValue().isEmpty() || foreign.stringValue().isEmpty()
                    || foreign.stringValue().startsWith("$")) {
                throw WeftException.badRequest("$lookup: localField and foreignField must both be field names");
            }
            read(Set.of(local.stringValue()));
            return new Lookup(from.stringValue(), asPath, local.stringValue().split("\\."), foreign.stringValue(),
                    List.of(), List.of(), List.of(), null);
        }
        if (!named.has("pipeline")) {
            throw WeftException.badRequest("$lookup needs localField and foreignField, or a pipeline");
        }
        List<String> letNames = new ArrayList<>();
        List<Expr> letValues = new ArrayList<>();
        ExprParser p = expressions();
        JsonNode let = named.path("let");
        if (named.has("let")) {
            if (!let.isObject()) {
                throw WeftException.badRequest("$lookup: let must be an object of variables");
            }
            let.properties().forEach(e -> {
                letNames.add(e.getKey());
                letValues.add(p.parse(e.getValue()));
            });
            p.withVariables(letNames, Json.NODES.nullNode());
        }
        read(p);
        Set<String> inner = new LinkedHashSet<>(variables);
        inner.addAll(letNames);
        // The sub-pipeline reads the other collection, whose own rule the caller checks (its paths are not ours).
        StageParser sub = new StageParser(limits, inner, lookups);
        List<Stage> stages = sub.parseAll(named.get("pipeline"), "$lookup.pipeline");
        JsonNode pushed = !stages.isEmpty() && stages.getFirst() instanceof StreamingStages.Match m && m.pushable()
                ? m.filterSpec : Json.NODES.objectNode();
        return new Lookup(from.stringValue(), asPath, null, null, letNames, letValues, stages, pushed);
    }
}
