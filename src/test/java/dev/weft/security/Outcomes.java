package dev.weft.security;

import dev.weft.core.WeftException;

/** The HTTP status a call would answer: 200 when it returns, else its {@link WeftException}'s. */
public final class Outcomes {
    private Outcomes() {}

    public static int status(Runnable call) {
        try {
            call.run();
            return 200;
        } catch (WeftException e) {
            return e.status();
        }
    }
}
