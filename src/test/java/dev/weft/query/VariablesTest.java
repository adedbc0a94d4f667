package dev.weft.query;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

class VariablesTest {
    private static final Json JSON = Json.standard();
    private static final QueryLimits LIMITS = QueryLimits.defaults();

    private static JsonNode node(String json) {
        return JSON.parse(json, "test");
    }

    private static JsonNode bind(String definition, String avars) {
        return Variables.bindInFilter(node(definition), (ObjectNode) node(avars), "stream s");
    }

    @Test
    void aValueUnderAFieldIsBoundAsEquality() {
        assertThat(bind("{\"owner\":{\"$var\":\"user\"}}", "{\"user\":\"ann\"}"))
                .isEqualTo(node("{\"owner\":{\"$eq\":\"ann\"}}"));
        assertThat(bind("{\"owner\":{\"$var\":\"user\"}}", "{\"user\":{\"a\":[1,{\"b\":2}]}}"))
                .isEqualTo(node("{\"owner\":{\"$eq\":{\"a\":[1,{\"b\":2}]}}}"));
    }

    @Test
    void aValueUnderAnOperatorOrInAnArrayIsBoundAsItIs() {
        assertThat(bind("{\"n\":{\"$gt\":{\"$var\":\"min\"}},\"t\":{\"$in\":[{\"$var\":\"a\"},\"z\"]}}", "{\"min\":3,\"a\":\"$x\"}"))
                .isEqualTo(node("{\"n\":{\"$gt\":3},\"t\":{\"$in\":[\"$x\",\"z\"]}}"));
    }

    @Test
    void aDollarStringMatchesOnlyItself() {
        Filter f = Filter.parse(bind("{\"owner\":{\"$var\":\"user\"}}", "{\"user\":\"$ne\"}"), LIMITS);
        assertThat(f.matches(node("{\"owner\":\"$ne\"}"))).isTrue();
        assertThat(f.matches(node("{\"owner\":\"ann\"}"))).isFalse();
        assertThat(f.matches(node("{}"))).isFalse();
    }

    @Test
    void aValueHoldingAnOperatorAtAnyDepthIs400() {
        for (String avars : new String[] {"{\"u\":{\"$ne\":\"zz\"}}", "{\"u\":{\"$regex\":\".*\"}}",
                "{\"u\":{\"a\":{\"b\":{\"$gt\":1}}}}", "{\"u\":[1,[{\"$exists\":true}]]}"}) {
            assertThatThrownBy(() -> bind("{\"owner\":{\"$var\":\"u\"}}", avars))
                    .isInstanceOf(WeftException.class).hasMessageContaining("avars.u may not hold an operator")
                    .extracting(e -> ((WeftException) e).status()).isEqualTo(400);
        }
    }

    @Test
    void defaultsAreTheDefinitionsAndAMissingVariableIs400() {
        assertThat(bind("{\"owner\":{\"$var\":[\"u\",{\"$exists\":true}]}}", "{}"))
                .isEqualTo(node("{\"owner\":{\"$exists\":true}}"));
        assertThatThrownBy(() -> bind("{\"owner\":{\"$var\":\"u\"}}", "{}")).hasMessageContaining("needs the variable u");
        assertThatThrownBy(() -> bind("{\"owner\":{\"$var\":1}}", "{}")).hasMessageContaining("$var needs a name");
    }

    @Test
    void unboundReplacesEveryVariableWithNull() {
        assertThat(Variables.unbound(node("{\"a\":{\"$var\":\"x\"},\"$or\":[{\"b\":{\"$var\":[\"y\",1]}}]}")))
                .isEqualTo(node("{\"a\":null,\"$or\":[{\"b\":null}]}"));
    }
}
