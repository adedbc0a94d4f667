package dev.weft.core;

import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * MongoDB ObjectIds: 4 bytes of seconds, 5 random bytes per process, 3 bytes of counter, as 24
 * lowercase hex digits. Ids made by one process sort by creation time, which keeps the default
 * {@code _id: -1} order "newest first".
 */
public final class ObjectIds {
    private static final HexFormat HEX = HexFormat.of();
    private static final byte[] PROCESS = new byte[5];
    private static final AtomicInteger COUNTER;

    static {
        SecureRandom random = new SecureRandom();
        random.nextBytes(PROCESS);
        COUNTER = new AtomicInteger(random.nextInt(1 << 24));
    }

    private ObjectIds() {}

    public static String next() {
        byte[] id = new byte[12];
        int seconds = (int) (System.currentTimeMillis() / 1000);
        id[0] = (byte) (seconds >>> 24);
        id[1] = (byte) (seconds >>> 16);
        id[2] = (byte) (seconds >>> 8);
        id[3] = (byte) seconds;
        System.arraycopy(PROCESS, 0, id, 4, 5);
        int count = COUNTER.getAndIncrement() & 0xFFFFFF;
        id[9] = (byte) (count >>> 16);
        id[10] = (byte) (count >>> 8);
        id[11] = (byte) count;
        return HEX.formatHex(id);
    }

    public static boolean isValid(String hex) {
        if (hex.length() != 24) {
            return false;
        }
        for (int i = 0; i < 24; i++) {
            char c = hex.charAt(i);
            if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F'))) {
                return false;
            }
        }
        return true;
    }
}
