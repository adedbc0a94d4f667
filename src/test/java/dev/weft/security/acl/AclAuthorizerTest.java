package dev.weft.security.acl;

import static dev.weft.security.Outcomes.status;
import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.core.Json;
import dev.weft.core.Settings;
import dev.weft.security.AccessRequest;
import dev.weft.security.Permission;
import dev.weft.security.Principal;
import dev.weft.store.Namespace;
import dev.weft.store.Store;
import dev.weft.store.Stores;
import dev.weft.store.WriteOp;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import tools.jackson.databind.node.ObjectNode;

class AclAuthorizerTest {
    private static final Json JSON = Json.standard();
    private static final Principal ALICE = new Principal("alice", Set.of("user"));
    private static final Principal BOB = new Principal("bob", Set.of("user"));
    private static final Namespace ACL = new Namespace("weft", "acl");

    @TempDir
    Path dir;
    Store store;
    AclAuthorizer acl;

    @BeforeEach
    void open() {
        Settings settings = Settings.parse(new String[] {"--data", dir.toString()}, Map.of());
        store = Stores.open(settings);
        acl = AclAuthorizer.open(store, settings);
    }

    @AfterEach
    void close() {
        store.close();
    }

    private void rule(String json) {
        ObjectNode doc = JSON.parseObject(json.getBytes(), "rule");
        var result = store.write(new WriteOp.Replace(ACL, doc, WriteOp.WriteMode.UPSERT, Optional.empty()));
        assertThat(result.ok()).as(result.toString()).isTrue();
    }

    private Permission authorize(Principal who, String method, String path) {
        return acl.authorize(who, method, Arrays.stream(path.split("/")).filter(s -> !s.isEmpty()).toList());
    }


    @Test
    void createsTheAclCollectionAtStart() {
        assertThat(store.collection(ACL)).isPresent();
        assertThat(Files.exists(dir)).isTrue();
    }

    @Test
    void deniesByDefault401ForAnonymousAnd403ForUsers() {
        assertThat(status(() -> authorize(Principal.ANONYMOUS, "GET", "/db/notes"))).isEqualTo(401);
        assertThat(status(() -> authorize(ALICE, "GET", "/db/notes"))).isEqualTo(403);
        assertThat(status(() -> authorize(ALICE, "GET", "/"))).isEqualTo(403);
    }

    @Test
    void memoryDecidesBuiltInsBeforeAnyRuleIsLoaded() {
        // an admin-only workload never loads the rules: its reads must not all leave the memory path
        Principal root = new Principal("root", Set.of("admin"));
        assertThat(acl.authorizeFromMemory(root, AccessRequest.of("GET", List.of("db", "notes"))))
                .containsSame(Permission.ALL);
        assertThat(acl.authorizeFromMemory(Principal.ANONYMOUS, AccessRequest.of("GET", List.of("ping"))))
                .isPresent();
        assertThat(acl.authorizeFromMemory(ALICE, AccessRequest.of("GET", List.of("db", "notes"))))
                .as("a user's rules are not loaded yet: the stages decide").isEmpty();
    }

    @Test
    void builtIns() {
        assertThat(authorize(new Principal("root", Set.of("admin")), "DELETE", "/db")).isSameAs(Permission.ALL);
        assertThat(status(() -> authorize(Principal.ANONYMOUS, "GET", "/ping"))).isEqualTo(200);
        assertThat(status(() -> authorize(Principal.ANONYMOUS, "POST", "/ping"))).isEqualTo(401);
        assertThat(status(() -> authorize(Principal.ANONYMOUS, "GET", "/metrics"))).isEqualTo(401);
    }

    @Test
    void highestPriorityNumberWinsAmongMatchingRulesOfTheRolesAsInRestheartsMongoAcl() {
        rule("""
                {"_id":"broad","roles":["user"],"predicate":"path-prefix('/db')","priority":10}""");
        rule("""
                {"_id":"narrow","roles":["user"],"predicate":"path-prefix('/db/notes')","priority":50,
                 "readFilter":{"owner":"@user._id"}}""");
        rule("""
                {"_id":"other-role","roles":["guest"],"predicate":"path-prefix('/db/notes')","priority":100,
                 "readFilter":{"never":true}}""");
        Permission notes = authorize(ALICE, "GET", "/db/notes");
        assertThat(notes.readsEverything()).isFalse();
        assertThat(notes.canRead(JSON.parse("{\"owner\":\"alice\"}", "d"))).isTrue();
        assertThat(notes.canRead(JSON.parse("{\"owner\":\"bob\"}", "d"))).isFalse();
        assertThat(authorize(ALICE, "GET", "/db/other").readsEverything()).isTrue();
        // Each user's filter is their own, and so is the cache key.
        assertThat(authorize(BOB, "GET", "/db/notes").cacheKey()).isNotEqualTo(notes.cacheKey());
    }

    @Test
    void unauthenticatedRoleAppliesOnlyToAnonymousRequests() {
        rule("""
                {"_id":"public","roles":["$unauthenticated"],"predicate":"method(GET) and path-prefix('/pub')",
                 "readFilter":{"public":true}}""");
        assertThat(authorize(Principal.ANONYMOUS, "GET", "/pub/x").readsEverything()).isFalse();
        assertThat(status(() -> authorize(Principal.ANONYMOUS, "POST", "/pub/x"))).isEqualTo(401);
        assertThat(status(() -> authorize(ALICE, "GET", "/pub/x"))).isEqualTo(403);
    }

    @Test
    void ruleChangesApplyWithoutRestart() {
        assertThat(status(() -> authorize(ALICE, "GET", "/db/notes"))).isEqualTo(403);
        rule("""
                {"_id":"r","roles":["user"],"predicate":"path-prefix('/db/notes')"}""");
        assertThat(status(() -> authorize(ALICE, "GET", "/db/notes"))).isEqualTo(200);
        store.write(new WriteOp.DeleteOne(ACL, JSON.parse("\"r\"", "id"), Optional.empty()));
        assertThat(status(() -> authorize(ALICE, "GET", "/db/notes"))).isEqualTo(403);
    }

    @Test
    void aBrokenRuleDeniesWhatItCouldMatchInsteadOfLettingABroaderRuleThrough() {
        rule("""
                {"_id":"broad","roles":["user"],"predicate":"path-prefix('/db')","priority":10}""");
        rule("""
                {"_id":"typo","roles":["user"],"predicate":"path-prefix('/db/notes')","priority":50,
                 "readFilter":{"owner":{"$eqq":"@user._id"}}}""");
        assertThat(status(() -> authorize(ALICE, "GET", "/db/notes"))).isEqualTo(403);
        assertThat(status(() -> authorize(Principal.ANONYMOUS, "GET", "/db/notes"))).isEqualTo(401);
    }

    @Test
    void restheartStyleMongoSectionAndAliases() {
        rule("""
                {"_id":"r","roles":["user"],"predicate":"path-prefix('/db')",
                 "mongo":{"writeFilter":{"owner":"@user._id"},"protectedProps":["owner"],
                          "mergeRequest":{"owner":"@user._id"},"projectResponse":{"secret":0},
                          "allowManagementRequests":true}}""");
        Permission p = authorize(ALICE, "POST", "/db/c");
        p.admitManagement();
        assertThat(p.projection()).isPresent();
        ObjectNode stored = p.admitDocument(JSON.parseObject("{\"_id\":1,\"t\":1}".getBytes(), "d"), Optional.empty());
        assertThat(JSON.text(stored)).isEqualTo("{\"_id\":1,\"t\":1,\"owner\":\"alice\"}");
        assertThat(status(() -> p.admitDocument(JSON.parseObject("{\"_id\":1,\"owner\":\"bob\"}".getBytes(), "d"),
                Optional.empty()))).isEqualTo(403);
    }

    @Test
    void managementNeedsTheFlag() {
        rule("""
                {"_id":"r","roles":["user"],"predicate":"path-prefix('/db')"}""");
        assertThat(status(() -> authorize(ALICE, "DELETE", "/db/c").admitManagement())).isEqualTo(403);
    }

    @Test
    void tiesGoByHighestIdAndRulesWithoutPriorityComeLastAsInRestheartsMongoAcl() {
        rule("""
                {"_id":"b","roles":["user"],"predicate":"true","priority":5}""");
        rule("""
                {"_id":"a","roles":["user"],"predicate":"true","priority":5}""");
        rule("""
                {"_id":"z","roles":["user"],"predicate":"true"}""");
        rule("""
                {"_id":"low","roles":["user"],"predicate":"true","priority":-3}""");
        assertThat(acl.rules()).extracting(Rule::id).isEqualTo(List.of("b", "a", "low", "z"));
    }
}
