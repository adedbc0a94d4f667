package dev.weft.security.acl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.security.AccessRequest;
import dev.weft.security.Principal;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class TemplateTest {
    private static final Json JSON = Json.standard();
    private static final Principal ALICE = new Principal("alice", Set.of("user", "editor"),
            JSON.parse("{\"_id\":\"alice\",\"team\":\"blue\",\"array\":[\"one\",\"two\"],\"boss\":null}", "account"));
    private static final JsonNode RULE = JSON.parse("{\"readFilter\":{\"a\":1}}", "rule");

    private static JsonNode j(String json) {
        return JSON.parse(json, "test");
    }

    private static RequestPredicate.Subject subject(Principal who, long now) {
        return subject(who, now, Map.of(), Optional.empty());
    }

    private static RequestPredicate.Subject subject(Principal who, long now, Map<String, String> params,
                                                    Optional<JsonNode> body) {
        AccessRequest request = TestRequests.of("POST", "/db/coll", List.of("db", "coll"), params, body);
        return new RequestPredicate.Subject(who, request, now, new HashMap<>());
    }

    private static String resolved(String template, RequestPredicate.Subject s) {
        return Template.of(j(template), "readFilter").resolve(s, RULE).map(JSON::text).orElse("UNRESOLVED");
    }

    @Test
    void substitutesWholeStringValuesAnywhere() {
        Template t = Template.of(j("""
                {"owner":"@user._id","$or":[{"readers":{"$in":"@user.roles"}},{"until":{"$gt":"@now"}}],
                 "note":"mail @user._id"}"""), "readFilter");
        assertThat(t.constant()).isFalse();
        assertThat(JSON.text(t.resolve(subject(ALICE, 42), RULE).orElseThrow())).isEqualTo("""
                {"owner":"alice","$or":[{"readers":{"$in":["editor","user"]}},{"until":{"$gt":{"$date":42}}}],\
                "note":"mail @user._id"}""");
    }

    @Test
    void aTemplateWithoutVariablesIsConstantAndNotCopied() {
        JsonNode spec = j("{\"status\":\"public\"}");
        Template t = Template.of(spec, "readFilter");
        assertThat(t.constant()).isTrue();
        assertThat(t.resolve(subject(ALICE, 1), RULE).orElseThrow()).isSameAs(spec);
    }

    @Test
    void substitutionDoesNotChangeTheTemplate() {
        Template t = Template.of(j("{\"owner\":\"@user._id\"}"), "readFilter");
        t.resolve(subject(ALICE, 1), RULE);
        assertThat(JSON.text(t.resolve(subject(new Principal("bob", Set.of()), 1), RULE).orElseThrow()))
                .isEqualTo("{\"owner\":\"bob\"}");
    }

    @Test
    void malformedVariablesAreRefusedAtLoad() {
        for (String bad : List.of("@user_id", "@qparams[name]", "@rnd(0)", "@rnd(5000)", "@nowish", "@request.", "%USERS")) {
            assertThatThrownBy(() -> Template.of(j("{\"owner\":\"" + bad + "\"}"), "readFilter"))
                    .as(bad).isInstanceOf(WeftException.class).hasMessageContaining("unknown variable " + bad);
        }
    }

    @Test
    void restheartVariablesResolve() {
        RequestPredicate.Subject s = subject(ALICE, 7, Map.of("filter", "{'a':1}", "q", "x"),
                Optional.of(j("{\"title\":\"t\",\"meta\":{\"tag\":\"n\"}}")));
        assertThat(resolved("{\"t\":\"@user.team\"}", s)).isEqualTo("{\"t\":\"blue\"}");
        assertThat(resolved("{\"t\":\"@user.userid\"}", s)).isEqualTo("{\"t\":\"alice\"}");
        assertThat(resolved("{\"t\":\"@user.array\"}", s)).isEqualTo("{\"t\":[\"one\",\"two\"]}");
        assertThat(resolved("{\"t\":\"%USER\",\"r\":\"%ROLES\",\"n\":\"%NOW\"}", s))
                .isEqualTo("{\"t\":\"alice\",\"r\":[\"editor\",\"user\"],\"n\":{\"$date\":7}}");
        assertThat(resolved("{\"t\":\"@request.body.meta.tag\"}", s)).isEqualTo("{\"t\":\"n\"}");
        assertThat(resolved("{\"t\":\"@request.body\"}", s)).isEqualTo("{\"t\":{\"title\":\"t\",\"meta\":{\"tag\":\"n\"}}}");
        assertThat(resolved("{\"t\":\"@request.method\",\"c\":\"@request.collection\"}", s))
                .isEqualTo("{\"t\":\"POST\",\"c\":\"coll\"}");
        assertThat(resolved("{\"t\":\"@qparams['q']\"}", s)).isEqualTo("{\"t\":\"x\"}");
        assertThat(resolved("{\"t\":\"@filter\"}", s)).isEqualTo("{\"t\":{\"a\":1}}");
        assertThat(resolved("{\"t\":\"@mongoPermissions.readFilter\"}", s)).isEqualTo("{\"t\":{\"a\":1}}");
        assertThat(resolved("{\"t\":\"@rnd(64)\"}", s)).matches("\\{\"t\":\"[0-9a-f]{16}\"}");
    }

    /** RESTHeart before 9.8.2 made these null, and {"owner": null} matched every unowned document. */
    @Test
    void anUnresolvedVariableResolvesTheWholeTemplateToNothing() {
        RequestPredicate.Subject s = subject(ALICE, 7);
        for (String missing : List.of("@user.nope", "@user.boss", "@request.body.title", "@qparams['q']",
                "@request.nope", "@user.array.7")) {
            assertThat(resolved("{\"owner\":\"" + missing + "\"}", s)).as(missing).isEqualTo("UNRESOLVED");
        }
        for (String anonymous : List.of("@user._id", "@user", "@user.team", "%USER")) {
            assertThat(resolved("{\"owner\":\"" + anonymous + "\"}", subject(Principal.ANONYMOUS, 7)))
                    .as(anonymous).isEqualTo("UNRESOLVED");
        }
    }
}
