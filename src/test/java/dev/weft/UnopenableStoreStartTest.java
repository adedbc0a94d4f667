package dev.weft;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * A store that cannot be opened (here a data folder that cannot be made, under a file) stops the
 * start with one line saying what and where, a non-zero exit, and no stack trace.
 */
class UnopenableStoreStartTest {
    @Test
    void aDataFolderThatCannotBeMadeStopsTheStartWithOneClearLine() throws Exception {
        Path file = Files.createTempFile("weft-not-a-folder", ".txt");
        Path data = file.resolve("data");

        WeftProcess.Exited refused = WeftProcess.runToExit(data);

        assertThat(refused.code()).as(refused.log()).isEqualTo(1);
        assertThat(refused.log()).contains("weft: cannot open the store: cannot open the SQLite store at " + data)
                .doesNotContain("\tat ").doesNotContain("Exception in thread");
    }
}
