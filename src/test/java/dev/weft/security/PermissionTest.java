package dev.weft.security;

import static dev.weft.security.Outcomes.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.core.Json;
import dev.weft.query.Filter;
import dev.weft.query.QueryLimits;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

class PermissionTest {
    private static final Json JSON = Json.standard();

    private static ObjectNode o(String json) {
        return JSON.parseObject(json.getBytes(), "test");
    }

    private static Filter f(String json) {
        return Filter.parse(o(json), QueryLimits.defaults());
    }

    private static final Permission OWNER = new Permission(false, Optional.of(f("{\"owner\":\"alice\"}")),
            Optional.of(f("{\"owner\":\"alice\"}")), Optional.empty(), List.of("owner", "meta.by"),
            Optional.empty(), false, "k");


    @Test
    void allRestrictsNothing() {
        assertThat(Permission.ALL.restrictsWrites()).isFalse();
        assertThat(Permission.ALL.readsEverything()).isTrue();
        ObjectNode doc = o("{\"owner\":\"x\"}");
        assertThat(Permission.ALL.admitDocument(doc, Optional.empty())).isSameAs(doc);
        Permission.ALL.admitManagement();
        Permission.ALL.admitUpdate(o("{\"$set\":{\"owner\":1}}"));
    }

    @Test
    void storedDocumentsOutsideTheReadFilterAreMissingAndOutsideTheWriteFilterForbidden() {
        Permission readAllWriteOwn = new Permission(false, Optional.empty(), Optional.of(f("{\"owner\":\"alice\"}")),
                Optional.empty(), List.of(), Optional.empty(), false, "");
        assertThat(status(() -> OWNER.admitStored(o("{\"_id\":1,\"owner\":\"bob\"}")))).isEqualTo(404);
        assertThat(status(() -> readAllWriteOwn.admitStored(o("{\"_id\":1,\"owner\":\"bob\"}")))).isEqualTo(403);
        assertThat(status(() -> readAllWriteOwn.admitStored(o("{\"_id\":1,\"owner\":\"alice\"}")))).isEqualTo(200);
    }

    @Test
    void protectedFieldsKeepTheirStoredValue() {
        JsonNode stored = o("{\"_id\":1,\"owner\":\"alice\",\"meta\":{\"by\":\"alice\"}}");
        assertThat(status(() -> OWNER.admitDocument(o("{\"_id\":1,\"owner\":\"alice\",\"meta\":{\"by\":\"alice\"},\"t\":2}"),
                Optional.of(stored)))).isEqualTo(200);
        assertThat(status(() -> OWNER.admitDocument(o("{\"_id\":1,\"owner\":\"alice\",\"t\":2}"), Optional.of(stored))))
                .as("dropping a protected field changes it").isEqualTo(403);
        assertThatThrownBy(() -> OWNER.admitDocument(o("{\"_id\":1,\"owner\":\"alice\",\"meta\":{\"by\":\"eve\"}}"),
                Optional.of(stored))).hasMessageContaining("meta.by");
    }

    @Test
    void newDocumentsMustMatchTheWriteFilter() {
        Permission own = new Permission(false, Optional.empty(), Optional.of(f("{\"owner\":\"alice\"}")),
                Optional.empty(), List.of(), Optional.empty(), false, "");
        assertThat(status(() -> own.admitDocument(o("{\"owner\":\"bob\"}"), Optional.empty()))).isEqualTo(403);
        assertThat(status(() -> own.admitDocument(o("{\"owner\":\"alice\"}"), Optional.empty()))).isEqualTo(200);
    }

    @Test
    void updatesMayNotNameAProtectedFieldItsParentOrChild() {
        for (String body : List.of("{\"owner\":\"x\"}", "{\"$set\":{\"owner\":\"x\"}}", "{\"$unset\":{\"owner\":1}}",
                "{\"$set\":{\"meta\":{}}}", "{\"$set\":{\"meta.by.x\":1}}", "{\"$rename\":{\"t\":\"owner\"}}",
                "{\"$rename\":{\"owner\":\"t\"}}")) {
            assertThat(status(() -> OWNER.admitUpdate(o(body)))).as(body).isEqualTo(403);
        }
        for (String body : List.of("{\"t\":1}", "{\"$set\":{\"owners\":1,\"meta.at\":2}}", "{\"$inc\":{\"n\":1}}")) {
            assertThat(status(() -> OWNER.admitUpdate(o(body)))).as(body).isEqualTo(200);
        }
    }

    @Test
    void mergeRequestSetsFieldsAfterTheProtectedCheck() {
        Permission merge = new Permission(false, Optional.empty(), Optional.of(f("{\"owner\":\"alice\"}")),
                Optional.empty(), List.of("owner"), Optional.of(o("{\"owner\":\"alice\"}")), false, "");
        assertThat(JSON.text(merge.admitDocument(o("{\"t\":1}"), Optional.empty()))).isEqualTo("{\"t\":1,\"owner\":\"alice\"}");
        assertThat(status(() -> merge.admitDocument(o("{\"owner\":\"bob\"}"), Optional.empty()))).isEqualTo(403);
        assertThat(status(() -> merge.admitDocument(o("{\"owner\":\"alice\"}"), Optional.empty()))).isEqualTo(200);
    }

    @Test
    void anonymousDenialsAre401() {
        Permission anon = new Permission(true, Optional.empty(), Optional.empty(), Optional.empty(), List.of(),
                Optional.empty(), false, "");
        assertThat(status(anon::admitManagement)).isEqualTo(401);
    }
}
