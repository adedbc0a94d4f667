package dev.weft.security;

import static dev.weft.security.Outcomes.status;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.core.Json;
import dev.weft.query.Filter;
import dev.weft.query.Projection;
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
            Optional.empty(), Permission.Allowances.NONE, "k");


    /** A client filter that records every document it is asked about. */
    private static Filter recording(List<JsonNode> asked) {
        return new Filter() {
            @Override
            public boolean matches(JsonNode document) {
                asked.add(document);
                return true;
            }

            @Override
            public Optional<List<dev.weft.query.KeyRange>> keyRanges(List<dev.weft.query.IndexField> fields, boolean multikey) {
                return Optional.empty();
            }

            @Override
            public java.util.Set<String> paths() {
                return java.util.Set.of("t");
            }
        };
    }

    @Test
    void theClientsFilterNeverRunsOnADocumentTheRulesHide() {
        List<JsonNode> asked = new java.util.ArrayList<>();
        JsonNode bobs = o("{\"_id\":1,\"owner\":\"bob\",\"t\":1}");
        JsonNode alices = o("{\"_id\":2,\"owner\":\"alice\",\"t\":1}");
        Filter read = OWNER.narrowRead(recording(asked));
        Filter write = OWNER.narrowWrite(recording(asked));
        assertThat(read.matches(bobs)).isFalse();
        assertThat(write.matches(bobs)).isFalse();
        assertThat(read.matches(bobs, dev.weft.query.MatchBudget.of(1_000))).isFalse();
        assertThat(asked).isEmpty();
        assertThat(read.matches(alices)).isTrue();
        assertThat(write.matches(alices)).isTrue();
        assertThat(asked).containsExactly(alices, alices);
    }

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
                Optional.empty(), List.of(), Optional.empty(), Permission.Allowances.NONE, "");
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
                Optional.empty(), List.of(), Optional.empty(), Permission.Allowances.NONE, "");
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
                Optional.empty(), List.of("owner"), Optional.of(o("{\"owner\":\"alice\"}")), Permission.Allowances.NONE, "");
        assertThat(JSON.text(merge.admitDocument(o("{\"t\":1}"), Optional.empty()))).isEqualTo("{\"t\":1,\"owner\":\"alice\"}");
        assertThat(status(() -> merge.admitDocument(o("{\"owner\":\"bob\"}"), Optional.empty()))).isEqualTo(403);
        assertThat(status(() -> merge.admitDocument(o("{\"owner\":\"alice\"}"), Optional.empty()))).isEqualTo(200);
    }

    @Test
    void anonymousDenialsAre401() {
        Permission anon = new Permission(true, Optional.empty(), Optional.empty(), Optional.empty(), List.of(),
                Optional.empty(), Permission.Allowances.NONE, "");
        assertThat(status(anon::admitManagement)).isEqualTo(401);
    }

    private static final Permission ITEMS = new Permission(false, Optional.empty(), Optional.empty(), Optional.empty(),
            List.of("owner", "items.price", "meta.approved"), Optional.empty(), Permission.Allowances.NONE, "");

    @Test
    void updatePathsThroughArraysStillNameTheProtectedField() {
        for (String body : List.of("{\"$set\":{\"items.0.price\":1}}", "{\"$inc\":{\"items.0.price\":1}}",
                "{\"$mul\":{\"items.3.price\":0}}", "{\"$set\":{\"items.0\":{\"price\":0}}}",
                "{\"$set\":{\"items.$[].price\":0}}", "{\"$set\":{\"items.$[x].price\":0}}",
                "{\"$set\":{\"items.$.price\":0}}", "{\"$push\":{\"items\":{\"price\":0}}}",
                "{\"$set\":{\"meta.0.approved\":true}}")) {
            assertThat(status(() -> ITEMS.admitUpdate(o(body)))).as(body).isEqualTo(403);
        }
        assertThat(status(() -> ITEMS.admitUpdate(o("{\"$set\":{\"items.0.qty\":2}}")))).isEqualTo(200);
    }

    @Test
    void documentsMayNotCreateProtectedValuesInsideArrays() {
        assertThatThrownBy(() -> ITEMS.admitDocument(o("{\"meta\":[{\"approved\":true}]}"), Optional.empty()))
                .hasMessageContaining("meta.approved");
        JsonNode stored = o("{\"_id\":1,\"items\":[{\"price\":5}]}");
        assertThat(status(() -> ITEMS.admitDocument(o("{\"_id\":1,\"items\":[{\"price\":0}]}"), Optional.of(stored))))
                .isEqualTo(403);
        assertThat(status(() -> ITEMS.admitDocument(o("{\"_id\":1,\"items\":[{\"price\":5,\"qty\":1}]}"),
                Optional.of(stored)))).isEqualTo(200);
    }

    @Test
    void anUpdateResultIsComparedWithTheStoredDocument() {
        ObjectNode before = o("{\"_id\":1,\"items\":[{\"price\":5},{\"qty\":1}]}");
        assertThat(status(() -> ITEMS.admitUpdated(before, o("{\"_id\":1,\"items\":[{\"price\":5},{\"qty\":2}]}"))))
                .isEqualTo(200);
        assertThat(status(() -> ITEMS.admitUpdated(before, o("{\"_id\":1,\"items\":[{\"price\":6},{\"qty\":1}]}"))))
                .isEqualTo(403);
        assertThat(status(() -> ITEMS.admitUpdated(before, o("{\"_id\":1,\"items\":[{\"qty\":1},{\"price\":5}]}"))))
                .as("a value moved to another element").isEqualTo(403);
        assertThat(status(() -> ITEMS.admitUpdated(null, o("{\"_id\":1,\"meta\":[{\"approved\":true}]}"))))
                .as("created by an upsert").isEqualTo(403);
        assertThat(status(() -> OWNER.admitUpdated(o("{\"_id\":1,\"owner\":\"alice\"}"), o("{\"_id\":1,\"owner\":\"bob\"}"))))
                .isEqualTo(403);
    }

    @Test
    void renamingAHiddenFieldOrItsParentIsRefused() {
        Permission hides = new Permission(false, Optional.empty(), Optional.empty(),
                Optional.of(Projection.parse(o("{\"secret\":0,\"a.hidden\":0}"))), List.of(),
                Optional.empty(), Permission.Allowances.NONE, "");
        for (String body : List.of("{\"$rename\":{\"secret\":\"shown\"}}", "{\"$rename\":{\"a\":\"b\"}}",
                "{\"$rename\":{\"a.hidden\":\"b\"}}")) {
            assertThatThrownBy(() -> hides.admitUpdate(o(body))).as(body).hasMessageContaining("projectResponse");
        }
        assertThat(status(() -> hides.admitUpdate(o("{\"$rename\":{\"text\":\"body\"}}")))).isEqualTo(200);
    }

    @Test
    void bulkWritesAndWriteModesNeedTheirSwitches() {
        assertThat(status(OWNER::admitBulkPatch)).isEqualTo(403);
        assertThat(status(OWNER::admitBulkDelete)).isEqualTo(403);
        assertThat(status(OWNER::admitWriteMode)).isEqualTo(403);
        Permission all = new Permission(false, Optional.empty(), Optional.empty(), Optional.empty(), List.of(),
                Optional.empty(), new Permission.Allowances(false, true, true, true, false), "");
        assertThat(status(all::admitBulkPatch)).isEqualTo(200);
        assertThat(status(all::admitBulkDelete)).isEqualTo(200);
        assertThat(status(all::admitWriteMode)).isEqualTo(200);
        assertThat(status(all::admitManagement)).isEqualTo(403);
        Permission.ALL.admitBulkPatch();
        Permission.ALL.admitWriteMode();
    }
}
