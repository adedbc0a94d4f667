package dev.weft.security.acl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.query.QueryLimits;
import java.util.List;
import org.junit.jupiter.api.Test;

class AclFileTest {
    private static final Json JSON = Json.standard();
    private static final QueryLimits LIMITS = QueryLimits.defaults();

    private static List<Rule> parse(String yaml) {
        return AclFile.parse(yaml, "acl.yml", LIMITS, JSON);
    }

    @Test
    void lowestPriorityFirstOfEqualOnesTheLastWrittenNoPriorityLast() {
        List<Rule> rules = parse("""
                permissions:
                  - role: a
                    predicate: path-prefix[path="/"]
                  - roles: [b, c]
                    predicate: method(GET)
                    priority: 5
                  - role: d
                    predicate: "true"
                    priority: 5
                  - role: e
                    predicate: "false"
                    priority: -1
                """);
        assertThat(rules).extracting(Rule::id).containsExactly("acl-file #4", "acl-file #3", "acl-file #2", "acl-file #1");
        assertThat(rules.get(2).roles()).containsExactlyInAnyOrder("b", "c");
    }

    @Test
    void aRestheartConfigurationFileWithItsFileAuthorizerSectionIsReadAsIs() {
        List<Rule> rules = parse("""
                ---
                /http-listener/host: 0.0.0.0
                /fileAclAuthorizer:
                  enabled: true
                  permissions:
                    - role: test
                      predicate: >
                        method(GET)
                        and qparams-whitelist(rep)
                        and path-prefix[path="/test-predicates/coll"]
                      mongo:
                        projectResponse: >
                          {"log": 0}
                      priority: 100
                """);
        assertThat(rules).hasSize(1);
        assertThat(rules.getFirst().projection()).isPresent();
    }

    @Test
    void aBadRuleIsRefusedNamingIt() {
        assertThatThrownBy(() -> parse("""
                permissions:
                  - role: a
                    predicate: method(GET)
                  - role: b
                    predicate: path-prefix[paht="/"]
                """)).isInstanceOf(WeftException.class)
                .hasMessageStartingWith("acl file acl.yml, permission #2 (roles [b], predicate path-prefix[paht=\"/\"]): "
                        + "predicate path-prefix[paht=\"/\"]: path-prefix has no parameter paht (path) at 12");
        assertThatThrownBy(() -> parse("permissions:\n  - role: a\n    roles: [b]\n    predicate: \"true\"\n"))
                .hasMessageContaining("permission #1 has both role and roles");
        assertThatThrownBy(() -> parse("permissions:\n  - role: a\n    predicate: \"true\"\n    mongo: {readFilter: '{a:'}\n"))
                .hasMessageContaining("permission #1").hasMessageContaining("readFilter is not valid JSON");
        assertThatThrownBy(() -> parse("nothing: here\n")).hasMessageContaining("has no permissions: list");
        assertThatThrownBy(() -> parse("permissions: [\n")).hasMessageContaining("is not valid YAML");
        assertThatThrownBy(() -> parse("permissions:\n  - !!java.io.File [\"/\"]\n")).hasMessageContaining("is not valid YAML");
    }
}
