package dev.weft.security.acl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.security.Principal;
import java.util.Set;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;

class TemplateTest {
    private static final Json JSON = Json.standard();
    private static final Principal ALICE = new Principal("alice", Set.of("user", "editor"));

    private static JsonNode j(String json) {
        return JSON.parse(json, "test");
    }

    @Test
    void substitutesWholeStringValuesAnywhere() {
        Template t = Template.of(j("""
                {"owner":"@user._id","$or":[{"readers":{"$in":"@user.roles"}},{"until":{"$gt":"@now"}}],
                 "note":"mail @user._id"}"""), "readFilter");
        assertThat(t.constant()).isFalse();
        assertThat(JSON.text(t.resolve(ALICE, 42))).isEqualTo("""
                {"owner":"alice","$or":[{"readers":{"$in":["editor","user"]}},{"until":{"$gt":{"$date":42}}}],\
                "note":"mail @user._id"}""");
    }

    @Test
    void aTemplateWithoutVariablesIsConstantAndNotCopied() {
        JsonNode spec = j("{\"status\":\"public\"}");
        Template t = Template.of(spec, "readFilter");
        assertThat(t.constant()).isTrue();
        assertThat(t.resolve(ALICE, 1)).isSameAs(spec);
    }

    @Test
    void substitutionDoesNotChangeTheTemplate() {
        Template t = Template.of(j("{\"owner\":\"@user._id\"}"), "readFilter");
        t.resolve(ALICE, 1);
        assertThat(JSON.text(t.resolve(new Principal("bob", Set.of()), 1))).isEqualTo("{\"owner\":\"bob\"}");
    }

    @Test
    void unknownVariablesAreRefusedAtLoad() {
        assertThatThrownBy(() -> Template.of(j("{\"owner\":\"@user.name\"}"), "readFilter"))
                .isInstanceOf(WeftException.class).hasMessageContaining("@user.name");
    }
}
