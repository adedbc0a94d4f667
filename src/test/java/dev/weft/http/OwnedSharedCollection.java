package dev.weft.http;

import static dev.weft.http.AuthorizationMatrixTest.send;
import static org.assertj.core.api.Assertions.assertThat;

/**
 * The fixture of the grouped reads and group commit tests: a started server with alice and bob,
 * {@code /db/shared} holding bob's {@code b1} and the documents given, and one rule letting users
 * read and write only the documents they own there (a readFilter and a writeFilter on
 * {@code owner}, no protected field, so that refusals happen inside the store's write).
 */
final class OwnedSharedCollection {
    private OwnedSharedCollection() {
    }

    /** {@code docs}: the documents after bob's, as the members of a JSON array (",{...},{...}"). */
    static TestServer start(CharSequence docs) throws Exception {
        TestServer server = new TestServer();
        AuthorizationMatrixTest.users(server);
        send(server, "admin", "PUT", "/db", null);
        send(server, "admin", "PUT", "/db/shared", null);
        String all = "[{\"_id\":\"b1\",\"owner\":\"bob\",\"text\":\"bob-text\"}" + docs + "]";
        assertThat(send(server, "admin", "POST", "/db/shared", all).statusCode()).isEqualTo(200);
        assertThat(send(server, "admin", "POST", "/weft/acl", """
                [{"_id":"shared","roles":["user"],"priority":10,"predicate":"path-prefix('/db/shared')",
                  "readFilter":{"owner":"@user._id"},"writeFilter":{"owner":"@user._id"}}]""").statusCode()).isEqualTo(200);
        return server;
    }
}
