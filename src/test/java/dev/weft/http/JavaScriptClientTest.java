package dev.weft.http;

import static org.assertj.core.api.Assertions.assertThat;

import org.junit.jupiter.api.Test;

/**
 * The JavaScript client (clients/js) under Node against a real Weft: its node:test suite logs
 * in, writes, queries, imports and follows a change stream whose connection is cut while writes
 * go on, asserting no event is missed or repeated.
 */
class JavaScriptClientTest {
    @Test
    void theClientsNodeSuitePassesAgainstARealServer() throws Exception {
        String node = NodeScripts.node();
        try (TestServer weft = new TestServer()) {
            NodeScripts.Run run = NodeScripts.run(NodeScripts.root().resolve("clients/js"), NodeScripts.environment(weft),
                    120, node, "--test", "--test-reporter=spec", "test/");
            System.out.print(run.output());
            assertThat(run.exitCode()).as(run.output()).isZero();
            assertThat(run.output()).containsPattern("(#|ℹ) fail 0");
        }
    }
}
