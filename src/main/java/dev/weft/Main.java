package dev.weft;

import dev.weft.core.Settings;
import dev.weft.core.WeftException;

/** Command-line entry: {@code ./weft start [--setting value ...]}. */
public final class Main {
    private Main() {}

    public static void main(String[] args) throws Exception {
        Settings settings;
        try {
            settings = Settings.parse(args, System.getenv());
        } catch (WeftException e) {
            System.err.println("weft: " + e.getMessage());
            Settings.DESCRIPTIONS.forEach((k, v) -> System.err.printf("  --%-24s %s%n", k, v));
            System.exit(2);
            return;
        }
        System.out.println("weft: settings " + settings);
    }
}
