package dev.weft.http;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The Weft Console in a real headless Chromium (Debian's {@code chromium}) driven by
 * playwright-core (src/test/browser/console.test.mjs): log in, create a collection, insert and edit
 * a document, see it in the table, see a write in the live tail, import ndjson, and documents
 * holding {@code <img onerror>} and {@code <script>} run nothing. A missing browser, Node or
 * playwright-core fails the test with what to do; scripts/test-env installs all three.
 * With {@code WEFT_CONSOLE_SCREENSHOTS=1} it writes a PNG of each view to docs/console/.
 */
class ConsoleBrowserTest {
    private static final Path CHROMIUM = Path.of("/usr/bin/chromium");

    @Test
    void theConsoleWorksInARealBrowser() throws Exception {
        Path browserTests = NodeScripts.root().resolve("src/test/browser");
        assertThat(Files.isExecutable(CHROMIUM))
                .as("Chromium is not installed at " + CHROMIUM + "; run the tests through scripts/test-env, which installs "
                        + "Debian's chromium package (apt-get install -y chromium)")
                .isTrue();
        String node = NodeScripts.node();
        assertThat(browserTests.resolve("node_modules/playwright-core/package.json"))
                .as("playwright-core is not installed; run the tests through scripts/test-env, which runs npm ci in "
                        + browserTests)
                .exists();
        try (TestServer weft = new TestServer()) {
            Map<String, String> env = new HashMap<>(NodeScripts.environment(weft));
            env.put("CHROMIUM", CHROMIUM.toString());
            if ("1".equals(System.getenv("WEFT_CONSOLE_SCREENSHOTS"))) {
                env.put("WEFT_CONSOLE_SCREENSHOTS", NodeScripts.root().resolve("docs/console").toString());
            } else {
                env.put("WEFT_CONSOLE_SCREENSHOTS", "");
            }
            NodeScripts.Run run = NodeScripts.run(browserTests, env, 150, node, "console.test.mjs");
            System.out.print(run.output());
            assertThat(run.exitCode()).as(run.output()).isZero();
            assertThat(run.output()).contains("all steps passed");
        }
    }
}
