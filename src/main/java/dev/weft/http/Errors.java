package dev.weft.http;

import java.nio.charset.StandardCharsets;
import org.eclipse.jetty.http.HttpStatus;

/** RESTHeart's error body: status code, its description, and a message naming the problem. */
final class Errors {
    private Errors() {}

    static byte[] body(int status, String message) {
        StringBuilder out = new StringBuilder(96 + message.length());
        out.append("{\"http status code\":").append(status)
                .append(",\"http status description\":");
        quote(out, HttpStatus.getMessage(status));
        out.append(",\"message\":");
        quote(out, message);
        out.append('}');
        return out.toString().getBytes(StandardCharsets.UTF_8);
    }

    static void quote(StringBuilder out, String s) {
        out.append('"');
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            switch (c) {
                case '"' -> out.append("\\\"");
                case '\\' -> out.append("\\\\");
                case '\n' -> out.append("\\n");
                case '\r' -> out.append("\\r");
                case '\t' -> out.append("\\t");
                default -> {
                    if (c < 0x20) {
                        out.append(String.format("\\u%04x", (int) c));
                    } else {
                        out.append(c);
                    }
                }
            }
        }
        out.append('"');
    }
}
