package dev.weft.security.acl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.core.WeftException;
import dev.weft.security.Principal;
import java.util.Arrays;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class RequestPredicateTest {
    private static final Principal ALICE = new Principal("alice", Set.of("user"));

    private static boolean test(String predicate, String method, String path, Principal who) {
        List<String> segments = Arrays.stream(path.split("/")).filter(s -> !s.isEmpty()).toList();
        return RequestPredicate.parse(predicate).test(new RequestPredicate.Subject(method, segments, who));
    }

    @ParameterizedTest(name = "{0} on {1} {2} -> {3}")
    @CsvSource(delimiter = '|', value = {
            "path-prefix('/db/notes')                        | GET    | /db/notes           | true",
            "path-prefix('/db/notes')                        | GET    | /db/notes/1         | true",
            "path-prefix('/db/notes')                        | GET    | /db/notes/_size     | true",
            "path-prefix('/db/notes')                        | GET    | /db/notesx          | false",
            "path-prefix('/db/notes')                        | GET    | /db                 | false",
            "path-prefix('/db/notes/')                       | GET    | /db/notes           | true",
            "path-prefix('/')                                | DELETE | /anything/at/all    | true",
            "path-prefix('/a', '/b')                         | GET    | /b/c                | true",
            "path('/db/notes')                               | GET    | /db/notes           | true",
            "path('/db/notes')                               | GET    | /db/notes/1         | false",
            "path('/db/notes/*')                             | PATCH  | /db/notes/*         | true",
            "path-template('/db/{coll}/{id}')                | GET    | /db/notes/1         | true",
            "path-template('/db/{coll}/{id}')                | GET    | /db/notes           | false",
            "path-template('/db/{coll}/{id}')                | GET    | /other/notes/1      | false",
            "method(GET)                                     | GET    | /x                  | true",
            "method(get, POST)                               | POST   | /x                  | true",
            "method(GET)                                     | POST   | /x                  | false",
            "method(GET) and path-prefix('/db')              | GET    | /db/c               | true",
            "method(GET) and path-prefix('/db')              | PUT    | /db/c               | false",
            "method(GET) or method(PUT) and path('/z')       | GET    | /db/c               | true",
            "(method(GET) or method(PUT)) and path('/z')     | GET    | /db/c               | false",
            "not method(DELETE)                              | GET    | /db                 | true",
            "not method(DELETE)                              | DELETE | /db                 | false",
            "true                                            | GET    | /                   | true",
            "false                                           | GET    | /                   | false",
            "path-template('/weft/users/{u}') and equals(@user._id, ${u}) | GET | /weft/users/alice | true",
            "path-template('/weft/users/{u}') and equals(%u, '${u}')      | GET | /weft/users/bob   | false",
            "equals(${nothing}, ${nothing})                  | GET    | /                   | false",
            "path('/db/a b')                                 | GET    | /db/a b             | true",
    })
    void matches(String predicate, String method, String path, boolean expected) {
        assertThat(test(predicate.trim(), method.trim(), path.trim(), ALICE)).isEqualTo(expected);
    }

    @ParameterizedTest
    @ValueSource(strings = {"", "path-prefix", "path-prefix()", "path-prefix('/a'", "method(GET) and",
            "regex('(')", "reqex('.*')", "path-prefix('no-slash')", "path-template('/a', '/b')", "equals(a)",
            "method(GET) garbage", "path-prefix('/a) and true"})
    void refusesWhatItCannotParse(String predicate) {
        assertThatThrownBy(() -> RequestPredicate.parse(predicate))
                .isInstanceOf(WeftException.class)
                .satisfies(e -> assertThat(((WeftException) e).status()).isEqualTo(400));
    }

    @org.junit.jupiter.api.Test
    void anonymousHasNoUserIdToCompare() {
        assertThat(test("equals(@user._id, '')", "GET", "/", Principal.ANONYMOUS)).isFalse();
    }
}
