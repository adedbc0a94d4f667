package dev.weft.security.acl;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import dev.weft.query.QueryLimits;
import dev.weft.security.Permission;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

/** What a rule document may hold: anything else compiles to a broken rule saying why (400 when written). */
class RuleTest {
    private static final Json JSON = Json.standard();
    private static final QueryLimits LIMITS = QueryLimits.defaults();

    private static Rule compile(String json) {
        return Rule.compile(JSON.parse(json.getBytes(), "rule"), LIMITS, JSON);
    }

    private static Optional<String> why(String json) {
        return compile(json).broken();
    }

    private static final String HEAD = "\"_id\":\"r\",\"roles\":[\"user\"],\"predicate\":\"method(GET)\"";

    @Test
    void valuesARuleCannotHoldAreRefusedNeverThrown() {
        List<String> bad = List.of(
                "{" + HEAD + ",\"protectedFields\":[{\"a\":1}]}",
                "{" + HEAD + ",\"protectedFields\":[null]}",
                "{" + HEAD + ",\"protectedFields\":[\"\"]}",
                "{" + HEAD + ",\"protectedFields\":[\"a..b\"]}",
                "{" + HEAD + ",\"priority\":1e300}",
                "{" + HEAD + ",\"priority\":1.5}",
                "{" + HEAD + ",\"priority\":\"1\"}",
                "{\"_id\":\"r\",\"roles\":[1,null],\"predicate\":\"method(GET)\"}",
                "{\"_id\":\"r\",\"roles\":[\"\"],\"predicate\":\"method(GET)\"}",
                "{\"_id\":\"r\",\"roles\":{\"a\":1},\"predicate\":\"method(GET)\"}",
                "{\"_id\":\"r\",\"predicate\":\"method(GET)\"}",
                "{" + HEAD + ",\"allowBulkPatch\":\"yes\"}",
                "{" + HEAD + ",\"mongo\":{\"allowWriteMode\":1}}",
                "{" + HEAD + ",\"mongo\":[1]}");
        for (String rule : bad) {
            assertThat(why(rule)).as(rule).isPresent();
        }
    }

    @Test
    void unknownFieldsAreRefusedAndRestheartEscapesUndoneInFiltersOnly() {
        assertThat(why("{" + HEAD + ",\"readFiltre\":{\"a\":1}}")).hasValueSatisfying(w -> assertThat(w).contains("readFiltre"));
        assertThat(why("{" + HEAD + ",\"mongo\":{\"hiddenProps\":[\"a\"]}}")).hasValueSatisfying(w -> assertThat(w).contains("mongo.hiddenProps"));
        // RESTHeart's stored-filter escapes are undone, as RESTHeart does (issue 20: documents copied unchanged).
        Rule escaped = compile("{" + HEAD + ",\"mongo\":{\"readFilter\":{\"n\":{\"_$gt\":1},\"a::b\":2},"
                + "\"writeFilter\":{\"_$or\":[{\"a\":1}]}}}");
        assertThat(escaped.broken()).isEmpty();
        assertThat(JSON.text(escaped.restrictions().get("readFilter"))).isEqualTo("{\"n\":{\"$gt\":1},\"a.b\":2}");
        assertThat(why("{" + HEAD + ",\"mergeRequest\":{\"n\":{\"_$gt\":1}}}")).hasValueSatisfying(w -> assertThat(w).contains("_$gt"));
        assertThat(why("{" + HEAD + ",\"readFilter\":{\"a\":1},\"mongo\":{\"writeFilter\":{\"a\":1}}}"))
                .hasValueSatisfying(w -> assertThat(w).contains("both"));
    }

    @Test
    void anInclusionProjectResponseKeepsOnlyTheFieldsItNamesAsRestheartDoes() {
        Rule rule = compile("{" + HEAD + ",\"mongo\":{\"projectResponse\":\"{'user': 1}\"}}");
        JsonNode doc = JSON.parse("{\"_id\":1,\"user\":\"u\",\"x\":2}", "doc");
        assertThat(JSON.text(rule.projection().orElseThrow().apply(doc))).isEqualTo("{\"user\":\"u\"}");
    }

    @Test
    void restHeartRulesCompileWithTheirFlags() {
        Rule rule = compile("""
                {"_id":"r","roles":["user"],"predicate":"path-prefix('/db')","priority":5,"description":"d",
                 "mongo":{"readFilter":{"$or":[{"status":"public"},{"author":"@user._id"}]},
                          "writeFilter":{"author":"@user._id"},"mergeRequest":{"author":"@user._id"},
                          "projectResponse":{"log":0},"protectedProps":["author"],
                          "allowManagementRequests":false,"allowBulkPatch":true,"allowBulkDelete":null,
                          "allowWriteMode":true}}""");
        assertThat(rule.broken()).isEmpty();
        assertThat(rule.allows()).isEqualTo(new Permission.Allowances(false, true, false, true, false));
        assertThat(compile("{" + HEAD + ",\"allowBulkDelete\":true}").allows().bulkDelete()).isTrue();
        assertThat(compile("{" + HEAD + "}").allows()).isEqualTo(Permission.Allowances.NONE);
    }

    @Test
    void aBrokenRuleKeepsTheRolesItCanReadAndAnUnreadablePriorityComesFirst() {
        Rule rule = compile("{\"_id\":\"r\",\"roles\":[\"user\",1],\"predicate\":\"method(GET)\",\"priority\":1e300}");
        assertThat(rule.broken()).isPresent();
        assertThat(rule.roles()).containsExactly("user");
        // The collection is tried highest priority first (RESTHeart's mongo ACL): first is MAX_VALUE.
        assertThat(rule.priority()).isEqualTo(Integer.MAX_VALUE);
        assertThat(compile("{" + HEAD + ",\"priority\":7,\"protectedFields\":[1]}").priority()).isEqualTo(7);
    }
}
