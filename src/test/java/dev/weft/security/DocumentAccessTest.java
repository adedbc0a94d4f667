package dev.weft.security;

import static dev.weft.security.Outcomes.status;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.query.Filter;
import dev.weft.query.Projection;
import dev.weft.query.QueryLimits;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ObjectNode;

/**
 * The one place that decides what a principal may ask and see: the permission and the
 * collection's policy together, in the order every read path relies on.
 */
class DocumentAccessTest {
    private static final Json JSON = Json.standard();
    private static final QueryLimits LIMITS = QueryLimits.defaults();

    /** Hides {@code secret} on the way out and refuses queries on it, as the users collection does with passwords. */
    private static final DocumentPolicy HIDES_SECRET = new DocumentPolicy() {
        @Override
        public byte[] readable(byte[] stored) {
            return JSON.bytes(readable(JSON.parseObject(stored, "stored")));
        }

        @Override
        public ObjectNode readable(ObjectNode document) {
            document.remove("secret");
            return document;
        }

        @Override
        public void checkQuery(String param, JsonNode spec) {
            if (spec.has("secret")) {
                throw WeftException.badRequest(param + " may not use secret");
            }
        }

        @Override
        public void checkPath(String param, String path) {
            if (path.equals("secret")) {
                throw WeftException.badRequest(param + " may not use secret");
            }
        }

        @Override
        public ObjectNode update(ObjectNode body) {
            body.put("$policy", true);
            return body;
        }

        @Override
        public boolean checksUpdates() {
            return true;
        }

        @Override
        public void updated(ObjectNode document) {
            if (document.has("secret")) {
                throw WeftException.badRequest("secret is set by the server");
            }
        }
    };

    private static ObjectNode o(String json) {
        return JSON.parseObject(json.getBytes(StandardCharsets.UTF_8), "test");
    }

    private static byte[] b(String json) {
        return json.getBytes(StandardCharsets.UTF_8);
    }

    private static String s(byte[] bytes) {
        return new String(bytes, StandardCharsets.UTF_8);
    }

    /** Bob reads and writes his own documents and never sees {@code internal}. */
    private static final Permission BOB = new Permission(false,
            Optional.of(Filter.parse(o("{\"owner\":\"bob\"}"), LIMITS)), Optional.of(Filter.parse(o("{\"owner\":\"bob\"}"), LIMITS)),
            Optional.of(Projection.parse(o("{\"internal\":0}"))), List.of("owner"), Optional.empty(),
            Permission.Allowances.NONE, "bob");

    private static final DocumentAccess BOB_ON_SECRETS = DocumentAccess.of(BOB, HIDES_SECRET);
    private static final DocumentAccess OPEN = DocumentAccess.of(Permission.ALL, DocumentPolicy.NONE);

    @Test
    void aReadFilterIsTheClientsNarrowedByTheReadFilterAfterThePolicysCheck() {
        Filter narrowed = BOB_ON_SECRETS.readFilter(List.of(o("{\"n\":1}")), LIMITS);
        assertThat(narrowed.matches(o("{\"n\":1,\"owner\":\"bob\"}"))).isTrue();
        assertThat(narrowed.matches(o("{\"n\":1,\"owner\":\"eve\"}"))).isFalse();
        assertThat(BOB_ON_SECRETS.readFilter(List.of(), LIMITS).matches(o("{\"owner\":\"eve\"}"))).isFalse();
        assertThat(status(() -> BOB_ON_SECRETS.readFilter(List.of(o("{\"secret\":1}")), LIMITS))).as("policy").isEqualTo(400);
        assertThat(status(() -> BOB_ON_SECRETS.readFilter(List.of(o("{\"internal\":1}")), LIMITS))).as("projection").isEqualTo(403);
        assertThat(OPEN.readFilter(List.of(), LIMITS)).isSameAs(Filter.all());
    }

    @Test
    void aBulkWriteFilterIsAlsoNarrowedByTheWriteFilter() {
        Permission readAllWriteOwn = new Permission(false, Optional.empty(),
                Optional.of(Filter.parse(o("{\"owner\":\"bob\"}"), LIMITS)), Optional.empty(), List.of(),
                Optional.empty(), Permission.Allowances.NONE, "");
        Filter bulk = DocumentAccess.of(readAllWriteOwn, HIDES_SECRET).writeFilter(List.of(o("{}")), LIMITS);
        assertThat(bulk.matches(o("{\"owner\":\"eve\"}"))).isFalse();
        assertThat(bulk.matches(o("{\"owner\":\"bob\"}"))).isTrue();
        assertThat(status(() -> BOB_ON_SECRETS.writeFilter(List.of(o("{\"secret\":1}")), LIMITS))).isEqualTo(400);
    }

    @Test
    void sortIndexAndStreamPathsAreCheckedByPolicyThenProjection() {
        assertThat(status(() -> BOB_ON_SECRETS.checkSortPath("secret"))).isEqualTo(400);
        assertThat(status(() -> BOB_ON_SECRETS.checkSortPath("internal"))).isEqualTo(403);
        assertThat(status(() -> BOB_ON_SECRETS.checkSortPath("n"))).isEqualTo(200);
        assertThat(status(() -> BOB_ON_SECRETS.checkIndexPath("secret"))).isEqualTo(400);
        assertThat(status(() -> BOB_ON_SECRETS.checkIndexPath("internal"))).as("an index shows no values").isEqualTo(200);
        assertThat(status(() -> BOB_ON_SECRETS.checkStreamPaths(Map.of("fullDocument.secret", "secret")))).isEqualTo(400);
        assertThat(status(() -> BOB_ON_SECRETS.checkStreamPaths(Map.of("fullDocument.internal", "internal")))).isEqualTo(403);
        assertThat(status(() -> BOB_ON_SECRETS.checkStreamFilter(o("{\"secret\":1}")))).isEqualTo(400);
    }

    @Test
    void aDocumentIsShownThroughThePolicyThenTheKeysThenTheResponseProjection() {
        byte[] stored = b("{\"_id\":1,\"owner\":\"bob\",\"n\":1,\"secret\":\"s\",\"internal\":\"i\"}");
        assertThat(s(BOB_ON_SECRETS.view(Optional.empty(), JSON).matched(stored))).isEqualTo("{\"_id\":1,\"owner\":\"bob\",\"n\":1}");
        assertThat(s(BOB_ON_SECRETS.view(Optional.of(o("{\"n\":1,\"internal\":1}")), JSON).matched(stored)))
                .as("keys cannot bring back what the response projection hides").isEqualTo("{\"_id\":1,\"n\":1}");
        assertThat(status(() -> BOB_ON_SECRETS.view(Optional.of(o("{\"secret\":1}")), JSON))).isEqualTo(400);
        assertThat(OPEN.view(Optional.empty(), JSON).matched(stored)).as("nothing to do: the stored bytes").isSameAs(stored);
    }

    @Test
    void anElemMatchInTheKeysMayNotTestAHiddenArray() {
        assertThat(status(() -> BOB_ON_SECRETS.view(Optional.of(o("{\"internal\":{\"$elemMatch\":{\"x\":1}}}")), JSON)))
                .isEqualTo(403);
        assertThat(status(() -> BOB_ON_SECRETS.view(Optional.of(o("{\"n\":{\"$elemMatch\":{\"x\":1}}}")), JSON)))
                .isEqualTo(200);
    }

    @Test
    void aDocumentByIdOutsideTheReadFilterIsMissing() {
        DocumentAccess.View view = BOB_ON_SECRETS.view(Optional.empty(), JSON);
        assertThat(view.byId(b("{\"_id\":1,\"owner\":\"eve\"}"))).isEmpty();
        assertThat(view.byId(b("{\"_id\":1,\"owner\":\"bob\",\"secret\":\"s\",\"internal\":\"i\"}")).map(DocumentAccessTest::s))
                .contains("{\"_id\":1,\"owner\":\"bob\"}");
        assertThat(BOB_ON_SECRETS.view(Optional.of(o("{\"owner\":1}")), JSON).byId(b("{\"_id\":1,\"owner\":\"bob\",\"secret\":\"s\"}"))
                .map(DocumentAccessTest::s)).contains("{\"_id\":1,\"owner\":\"bob\"}");
    }

    @Test
    void writesPassThePolicyAndThePermission() {
        assertThat(BOB_ON_SECRETS.checksUpdates()).isTrue();
        assertThat(OPEN.checksUpdates()).isFalse();
        assertThat(status(() -> BOB_ON_SECRETS.admitUpdate(o("{\"$set\":{\"owner\":\"eve\"}}")))).isEqualTo(403);
        assertThat(BOB_ON_SECRETS.admitUpdate(o("{\"$set\":{\"n\":2}}")).has("$policy")).as("the policy readies the body").isTrue();
        assertThat(status(() -> BOB_ON_SECRETS.admitUpdated(o("{\"owner\":\"bob\"}"), o("{\"owner\":\"bob\",\"secret\":1}"))))
                .isEqualTo(400);
        assertThat(status(() -> BOB_ON_SECRETS.admitUpdated(o("{\"owner\":\"bob\"}"), o("{\"owner\":\"eve\"}")))).isEqualTo(403);
        assertThat(status(() -> BOB_ON_SECRETS.admitStored(o("{\"_id\":1,\"owner\":\"eve\"}")))).isEqualTo(404);
    }

    @Test
    void aRegrantedAccessKeepsThePolicyUnderTheNewPermission() {
        DocumentAccess regranted = OPEN.regranted(BOB);
        assertThat(regranted.eventFilter()).isPresent();
        assertThat(OPEN.eventFilter()).isEmpty();
        assertThat(DocumentAccess.of(Permission.ALL, HIDES_SECRET).regranted(BOB).view(Optional.empty(), JSON)
                .matched(b("{\"owner\":\"bob\",\"secret\":1}"))).asString(StandardCharsets.UTF_8).isEqualTo("{\"owner\":\"bob\"}");
    }
}
