package dev.weft.store.postgres;

import dev.weft.core.WeftException;
import dev.weft.store.OutageLog;
import java.sql.Connection;
import java.sql.SQLException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** How a failure of PostgreSQL becomes an answer: one place, so every path of the store says it alike. */
final class PgFailures {
    private static final Logger LOG = LoggerFactory.getLogger(PostgresStore.class);
    /** One warning per 5 s while PostgreSQL is down, however many requests fail. */
    static final OutageLog OUTAGES = new OutageLog(LOG, 5000);
    static final String QUERY_CANCELED = "57014";

    private PgFailures() {}

    /**
     * A failure of the database rather than of the request: 503, saying so. PostgreSQL's own text
     * stays in the log. Its data exceptions and program limits (SQLSTATE classes 22 and 54) are
     * the request's fault, not an outage: 400, and no retry hint for input that cannot succeed
     * (the door refuses what is known; this is the net under it).
     */
    static WeftException unavailable(String what, SQLException e) {
        OUTAGES.warn(what, e.getMessage());
        String state = String.valueOf(e.getSQLState());
        if (PgSchema.refusedAsOlder(e)) {
            return new WeftException(503, PgSchema.OLDER_NODE);
        }
        if (state.startsWith("22") || state.startsWith("54")) {
            return WeftException.badRequest("PostgreSQL cannot store or compare a value of this request (SQLSTATE "
                    + state + ")");
        }
        return new WeftException(503, "PostgreSQL is unavailable (" + what + "); the server log has the details");
    }

    /** A rollback on a connection that may be broken; its failure is added to the cause, not thrown. */
    static void rollbackQuietly(Connection c, Exception cause) {
        try {
            c.rollback();
        } catch (SQLException e) {
            cause.addSuppressed(e);
        }
    }
}
