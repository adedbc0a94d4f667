package dev.weft.security.acl;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.security.AccessRequest;
import dev.weft.security.Principal;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import tools.jackson.databind.JsonNode;

/** The predicate forms of RESTHeart's docs and test configuration, and its own predicates. */
class RestheartPredicatesTest {
    private static final Json JSON = Json.standard();
    private static final Principal ALICE = new Principal("alice", Set.of("user"),
            JSON.parse("{\"_id\":\"alice\",\"array\":[\"one\",\"two\"],\"team\":\"blue\"}", "account"));

    /** {@code target} is "METHOD /path?query" with an optional JSON body after a space. */
    private static boolean test(String predicate, String target, Principal who) {
        String[] parts = target.split(" ", 3);
        String[] pathAndQuery = parts[1].split("\\?", 2);
        Map<String, String> params = new LinkedHashMap<>();
        if (pathAndQuery.length > 1) {
            for (String pair : pathAndQuery[1].split("&")) {
                String[] kv = pair.split("=", 2);
                params.put(kv[0], kv.length > 1 ? kv[1] : "");
            }
        }
        Optional<JsonNode> body = parts.length > 2 ? Optional.of(JSON.parse(parts[2], "body")) : Optional.empty();
        List<String> segments = Arrays.stream(pathAndQuery[0].split("/")).filter(s -> !s.isEmpty()).toList();
        AccessRequest request = TestRequests.of(parts[0], pathAndQuery[0], segments, params, body);
        return RequestPredicate.parse(predicate).test(new RequestPredicate.Subject(who, request));
    }

    @ParameterizedTest(name = "{0} on {1} -> {2}")
    @CsvSource(delimiter = '|', value = {
            // bracket and named forms (RESTHeart's test configuration)
            "path-prefix[path=\"/\"]                                           | GET /a/b            | true",
            "path-prefix[path=\"/testdb/refcoll1\"] and method[value=\"GET\"] | GET /testdb/refcoll1/x | true",
            "path-prefix[path=\"/testdb/refcoll1\"] and method[value=\"GET\"] | PUT /testdb/refcoll1/x | false",
            "path[path=\"/x\"]                                                | GET /x              | true",
            "(path[path=\"/t2\"] or path[path=\"/t3\"]) and method[value=\"PUT\"] | PUT /t3         | true",
            "path-template[value=\"/t2/{username}\"] and equals[%u, \"${username}\"] | PUT /t2/alice | true",
            "path-template[value=\"/t2/{username}\"] and equals[%u, \"${username}\"] | PUT /t2/bob   | false",
            "path-template(value=\"/c/{id}\")                                 | GET /c/1            | true",
            "regex[pattern=\"/t3/(.*?)\", value=\"%R\", full-match=true] and equals[%u, \"${1}\"] | PUT /t3/alice | true",
            "regex[pattern=\"/t3/(.*?)\", value=\"%R\", full-match=true] and equals[%u, \"${1}\"] | PUT /t3/bob   | false",
            "regex[pattern=\"^/T3\", case-sensitive=false]                    | GET /t3/x           | true",
            "regex('/t3')                                                     | GET /a/t3/x         | true",
            "path-suffix('/_size')                                            | GET /db/c/_size     | true",
            "contains(value=%R, search={'notes', 'x'})                        | GET /db/notes       | true",
            "equals(%m, 'GET')                                                | GET /a              | true",
            // in, with RESTHeart's account variables
            "path-template(value=\"/c/{id}\") and in(value=${id}, array=@user.array) | GET /c/two  | true",
            "path-template(value=\"/c/{id}\") and in(value=${id}, array=@user.array) | GET /c/three | false",
            "path-template(value=\"/c/{id}\") and in(value=${id}, array=@user.nope)  | GET /c/two  | false",
            "in(value='b', array={'a', 'b'})                                  | GET /               | true",
            "equals(@user.userid, 'alice') and equals(@user.team, 'blue')     | GET /               | true",
            "equals(@user.nope, '@user.nope')                                 | GET /               | false",
            "equals(@qparams['page'], '2')                                    | GET /?page=2        | true",
            // qparams
            "qparams-contain(page)                                            | GET /?page=1        | true",
            "qparams-contain(page, pagesize)                                  | GET /?page=1        | false",
            "qparams-blacklist(filter, sort)                                  | GET /?page=1        | true",
            "qparams-blacklist(filter, sort)                                  | GET /?sort=a        | false",
            "qparams-whitelist(filter, page, q1)                              | GET /?page=1&q1=x   | true",
            "qparams-whitelist(filter, page)                                  | GET /?page=1&q1=x   | false",
            "qparams-whitelist()                                              | GET /               | true",
            "qparams-whitelist()                                              | GET /?a=1           | false",
            "qparams-size(2)                                                  | GET /?a=1&b=2       | true",
            "qparams-size(2)                                                  | GET /?a=1           | false",
            // bodies
            "bson-request-contains(title)                                     | POST / {\"title\":1,\"x\":2} | true",
            "bson-request-contains(title, content)                            | POST / {\"title\":1}       | false",
            "bson-request-contains(a.b)                                       | POST / {\"a\":{\"b\":1}}   | true",
            "bson-request-contains(title)                                     | PATCH / {\"$set\":{\"title\":1}} | true",
            "bson-request-contains(title)                                     | POST / [{\"title\":1},{\"x\":1}] | false",
            "bson-request-contains(title)                                     | POST /              | false",
            "bson-request-whitelist(title, content)                           | POST / {\"title\":1,\"content\":{\"a\":1}} | true",
            "bson-request-whitelist(title, content)                           | POST / {\"title\":1,\"log\":1} | false",
            "bson-request-whitelist(title)                                    | PATCH / {\"$set\":{\"log\":1}} | false",
            "bson-request-blacklist(log)                                      | POST / {\"title\":1}       | true",
            "bson-request-blacklist(log)                                      | POST / [{\"a\":1},{\"log\":1}] | false",
            "bson-request-prop-equals(key=status, value='draft')              | POST / {\"status\":\"draft\"} | true",
            "bson-request-prop-equals(key=status, value='draft')              | POST / {\"status\":\"x\"}  | false",
            "bson-request-array-contains(key=tags, values={'a'})              | POST / {\"tags\":[\"a\",\"b\"]} | true",
            "bson-request-array-is-subset(key=tags, values={'a'})             | POST / {\"tags\":[\"a\",\"b\"]} | false",
    })
    void matches(String predicate, String target, boolean expected) {
        assertThat(test(predicate.trim(), target.trim(), ALICE)).isEqualTo(expected);
    }

    @Test
    void anonymousHasNoUserToCompareOrLookUp() {
        assertThat(test("equals(%u, '')", "GET /", Principal.ANONYMOUS)).isFalse();
        assertThat(test("in(value='one', array=@user.array)", "GET /", Principal.ANONYMOUS)).isFalse();
    }

    @Test
    void errorsNameTheCharacterPosition() {
        assertThatThrownBy(() -> RequestPredicate.parse("method(GET) and path-prefix[paht=\"/\"]"))
                .isInstanceOf(WeftException.class)
                .hasMessage("predicate method(GET) and path-prefix[paht=\"/\"]: path-prefix has no parameter paht (path) at 28");
        assertThatThrownBy(() -> RequestPredicate.parse("qparams-size(two)"))
                .isInstanceOf(WeftException.class).hasMessageContaining("expected an integer, not two at 13");
        assertThatThrownBy(() -> RequestPredicate.parse("equals(@user_id, 'x')"))
                .isInstanceOf(WeftException.class).hasMessageContaining("unknown variable @user_id").hasMessageEndingWith("at 7");
    }
}
