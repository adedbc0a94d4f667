package dev.weft.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/** The console's files at /_console/: open to anyone, with the headers that keep the page inert. */
class ConsoleFilesTest {
    static TestServer weft;

    @BeforeAll
    static void start() throws Exception {
        weft = new TestServer();
    }

    @AfterAll
    static void stop() throws Exception {
        weft.close();
    }

    private static void assertSecured(HttpResponse<String> r) {
        assertThat(r.headers().firstValue("Content-Security-Policy")).contains(ConsoleFiles.CONTENT_SECURITY_POLICY);
        assertThat(ConsoleFiles.CONTENT_SECURITY_POLICY).contains("script-src 'self';", "frame-ancestors 'none'")
                .doesNotContain("unsafe-inline", "unsafe-eval");
        assertThat(r.headers().firstValue("X-Content-Type-Options")).contains("nosniff");
        assertThat(r.headers().firstValue("X-Frame-Options")).contains("DENY");
    }

    @Test
    void thePageAnswersWithoutCredentialsWithItsSecurityHeaders() throws Exception {
        HttpResponse<String> r = weft.get("/_console/", "Authorization", TestServer.ANONYMOUS);
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).contains("text/html; charset=utf-8");
        assertThat(r.body()).contains("<script type=\"module\" src=\"console.js\"></script>").doesNotContain("<script>");
        assertSecured(r);
        assertThat(r.headers().firstValue("Auth-Token")).isEmpty();
    }

    @Test
    void withoutTheSlashItMovesToThePage() throws Exception {
        HttpResponse<String> r = weft.get("/_console", "Authorization", TestServer.ANONYMOUS);
        assertThat(r.statusCode()).isEqualTo(301);
        assertThat(r.headers().firstValue("Location")).contains("/_console/");
    }

    @Test
    void theScriptsIncludingTheClientAreServedAsJavaScript() throws Exception {
        for (String file : new String[] {"console.js", "weft.js", "dom.js"}) {
            HttpResponse<String> r = weft.get("/_console/" + file, "Authorization", TestServer.ANONYMOUS);
            assertThat(r.statusCode()).as(file).isEqualTo(200);
            assertThat(r.headers().firstValue("Content-Type")).as(file).contains("text/javascript; charset=utf-8");
            assertSecured(r);
        }
        assertThat(weft.get("/_console/weft.js").body()).contains("export class Weft");
    }

    @Test
    void credentialsAreNotLookedAtSoABadOneStillGetsTheFile() throws Exception {
        HttpResponse<String> r = weft.get("/_console/console.css", "Authorization", TestServer.basic("admin", "wrong"));
        assertThat(r.statusCode()).isEqualTo(200);
        assertThat(r.headers().firstValue("Content-Type")).contains("text/css; charset=utf-8");
    }

    @Test
    void anUnknownFileOrAPathOutOfTheFolderIs404() throws Exception {
        for (String path : new String[] {"/_console/nosuch.js", "/_console/logback.xml", "/_console/..logback.xml",
                "/_console/.hidden.js", "/_console/console", "/_console/x.exe"}) {
            HttpResponse<String> r = weft.get(path, "Authorization", TestServer.ANONYMOUS);
            assertThat(r.statusCode()).as(path).isEqualTo(404);
            assertThat(r.body()).as(path).startsWith("{\"http status code\":404");
        }
        // an encoded slash never reaches the route: Jetty refuses the ambiguous path
        assertThat(weft.get("/_console/..%2F..%2Flogback.xml", "Authorization", TestServer.ANONYMOUS).statusCode()).isEqualTo(400);
    }

    /**
     * The page renders documents anyone with write access may fill with markup: no script may
     * parse text as HTML or code (the CSP forbids inline scripts and eval; this keeps the sources
     * from relying on either).
     */
    @Test
    void noConsoleScriptParsesTextAsMarkupOrCode() throws Exception {
        List<Path> scripts;
        try (Stream<Path> files = Files.list(NodeScripts.root().resolve("src/main/resources/console"))) {
            scripts = Stream.concat(files.filter(p -> p.toString().endsWith(".js")),
                    Stream.of(NodeScripts.root().resolve("clients/js/weft.js"))).toList();
        }
        assertThat(scripts).hasSizeGreaterThan(5);
        for (Path script : scripts) {
            assertThat(Files.readString(script)).as(script.toString())
                    .doesNotContain("innerHTML", "outerHTML", "insertAdjacentHTML", "document.write", "eval(",
                            "new Function", "setHTMLUnsafe", "createContextualFragment");
        }
    }

    @Test
    void namesThatAreNoFileKeepNothingInMemory() {
        ConsoleFiles files = new ConsoleFiles("console/");
        for (int i = 0; i < 1000; i++) {
            assertThat(files.bytes("missing" + i + ".js")).isEmpty();
        }
        assertThat(files.bytes("../logback.xml")).isEmpty();
        assertThat(files.kept()).isZero();
        assertThat(files.bytes("console.js")).isPresent();
        assertThat(files.kept()).isEqualTo(1);
    }

    @Test
    void onlyGetIsAllowedAndDataRoutesStillNeedCredentials() throws Exception {
        HttpResponse<String> r = weft.send("POST", "/_console/console.js", "{}", "Authorization", TestServer.ANONYMOUS);
        assertThat(r.statusCode()).isEqualTo(405);
        assertThat(weft.get("/", "Authorization", TestServer.ANONYMOUS).statusCode()).isEqualTo(401);
        assertThat(weft.get("/metrics", "Authorization", TestServer.ANONYMOUS).statusCode()).isEqualTo(401);
    }
}
