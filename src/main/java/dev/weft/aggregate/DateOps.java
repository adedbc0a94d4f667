package dev.weft.aggregate;

import dev.weft.core.Json;
import dev.weft.core.WeftException;
import dev.weft.query.Values;
import java.time.DayOfWeek;
import java.time.Instant;
import java.time.LocalDateTime;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;
import java.time.temporal.ChronoUnit;
import java.time.temporal.IsoFields;
import java.time.temporal.TemporalAdjusters;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.function.ToIntFunction;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.NullNode;

/**
 * Date operators over Weft's dates, {@code {"$date": millis}} (see {@link Values#isDate}), in UTC
 * unless a {@code timezone} (an Olson name or an offset such as {@code +05:30}) is given.
 */
final class DateOps {
    private static final LocalDateTime REFERENCE = LocalDateTime.of(2000, 1, 1, 0, 0);

    private DateOps() {}

    static void register(Map<String, Operators.Op> ops) {
        part(ops, "$year", ZonedDateTime::getYear);
        part(ops, "$month", ZonedDateTime::getMonthValue);
        part(ops, "$dayOfMonth", ZonedDateTime::getDayOfMonth);
        part(ops, "$hour", ZonedDateTime::getHour);
        part(ops, "$minute", ZonedDateTime::getMinute);
        part(ops, "$second", ZonedDateTime::getSecond);
        part(ops, "$millisecond", t -> t.getNano() / 1_000_000);
        part(ops, "$dayOfYear", ZonedDateTime::getDayOfYear);
        part(ops, "$dayOfWeek", t -> t.getDayOfWeek().getValue() % 7 + 1);
        ops.put("$dateToString", DateOps::dateToString);
        ops.put("$dateTrunc", DateOps::dateTrunc);
    }

    static String iso(long millis) {
        return format(Instant.ofEpochMilli(millis).atZone(ZoneOffset.UTC), "%Y-%m-%dT%H:%M:%S.%LZ");
    }

    private static void part(Map<String, Operators.Op> ops, String op, ToIntFunction<ZonedDateTime> f) {
        ops.put(op, (args, p, name) -> {
            Expr date;
            Expr zone;
            if (args.isObject() && args.has("date")) {
                var named = ExprParser.named(name, args, Set.of("date", "timezone"), Set.of("date"));
                date = p.parse(named.get("date"));
                zone = p.optional(named, "timezone", NullNode.getInstance());
            } else {
                date = p.args(name, args, 1, 1).getFirst();
                zone = ExprParser.constant(NullNode.getInstance());
            }
            return s -> {
                JsonNode d = date.eval(s);
                JsonNode z = zone.eval(s);
                if (AggValues.isNullish(d)) {
                    return NullNode.getInstance();
                }
                return Json.NODES.numberNode(f.applyAsInt(at(name, d, z)));
            };
        });
    }

    private static ZonedDateTime at(String op, JsonNode date, JsonNode zone) {
        long millis;
        if (Values.isDate(date)) {
            millis = Values.dateMillis(date);
        } else if (Values.isObjectId(date)) {
            millis = Long.parseLong(date.get("$oid").stringValue().substring(0, 8), 16) * 1000;
        } else {
            throw AggValues.error(op, "can't convert from " + AggValues.typeName(date) + " to a date");
        }
        return Instant.ofEpochMilli(millis).atZone(zone(op, zone));
    }

    static ZoneId zone(String op, JsonNode zone) {
        if (AggValues.isNullish(zone)) {
            return ZoneOffset.UTC;
        }
        if (!zone.isString()) {
            throw AggValues.error(op, "timezone must be a string");
        }
        String z = zone.stringValue();
        try {
            if (z.startsWith("+") || z.startsWith("-")) {
                return ZoneOffset.of(z.length() == 5 && z.indexOf(':') < 0 ? z.substring(0, 3) + ":" + z.substring(3) : z);
            }
            return ZoneId.of(z);
        } catch (java.time.DateTimeException e) {
            throw AggValues.error(op, "unrecognized time zone identifier: " + z);
        }
    }

    private static Expr dateToString(JsonNode args, ExprParser p, String name) {
        var named = ExprParser.named(name, args, Set.of("date", "format", "timezone", "onNull"), Set.of("date"));
        Expr date = p.parse(named.get("date"));
        Expr format = p.optional(named, "format", NullNode.getInstance());
        Expr zone = p.optional(named, "timezone", NullNode.getInstance());
        Expr onNull = named.has("onNull") ? p.parse(named.get("onNull")) : null;
        return s -> {
            JsonNode d = date.eval(s);
            if (AggValues.isNullish(d)) {
                return onNull == null ? NullNode.getInstance() : onNull.eval(s);
            }
            JsonNode f = format.eval(s);
            JsonNode z = zone.eval(s);
            String pattern = AggValues.isNullish(f)
                    ? AggValues.isNullish(z) ? "%Y-%m-%dT%H:%M:%S.%LZ" : "%Y-%m-%dT%H:%M:%S.%L"
                    : StringOps.string(name, f);
            return Json.NODES.stringNode(format(at(name, d, z), pattern));
        };
    }

    static String format(ZonedDateTime t, String pattern) {
        StringBuilder out = new StringBuilder();
        for (int i = 0; i < pattern.length(); i++) {
            char c = pattern.charAt(i);
            if (c != '%') {
                out.append(c);
                continue;
            }
            if (++i == pattern.length()) {
                throw WeftException.badRequest("$dateToString: the format ends with an unmatched %");
            }
            char spec = pattern.charAt(i);
            switch (spec) {
                case 'Y' -> out.append(String.format(Locale.ROOT, "%04d", t.getYear()));
                case 'm' -> out.append(String.format(Locale.ROOT, "%02d", t.getMonthValue()));
                case 'd' -> out.append(String.format(Locale.ROOT, "%02d", t.getDayOfMonth()));
                case 'H' -> out.append(String.format(Locale.ROOT, "%02d", t.getHour()));
                case 'M' -> out.append(String.format(Locale.ROOT, "%02d", t.getMinute()));
                case 'S' -> out.append(String.format(Locale.ROOT, "%02d", t.getSecond()));
                case 'L' -> out.append(String.format(Locale.ROOT, "%03d", t.getNano() / 1_000_000));
                case 'j' -> out.append(String.format(Locale.ROOT, "%03d", t.getDayOfYear()));
                case 'w' -> out.append(t.getDayOfWeek().getValue() % 7 + 1);
                case 'u' -> out.append(t.getDayOfWeek().getValue());
                case 'V' -> out.append(String.format(Locale.ROOT, "%02d", t.get(IsoFields.WEEK_OF_WEEK_BASED_YEAR)));
                case 'G' -> out.append(String.format(Locale.ROOT, "%04d", t.get(IsoFields.WEEK_BASED_YEAR)));
                case 'z' -> {
                    int seconds = t.getOffset().getTotalSeconds();
                    out.append(seconds < 0 ? '-' : '+').append(String.format(Locale.ROOT, "%02d%02d",
                            Math.abs(seconds) / 3600, Math.abs(seconds) / 60 % 60));
                }
                case 'Z' -> out.append(t.getOffset().getTotalSeconds() / 60);
                case '%' -> out.append('%');
                default -> throw WeftException.badRequest("$dateToString: invalid format character %" + spec);
            }
        }
        return out.toString();
    }

    private static Expr dateTrunc(JsonNode args, ExprParser p, String name) {
        var named = ExprParser.named(name, args, Set.of("date", "unit", "binSize", "timezone", "startOfWeek"),
                Set.of("date", "unit"));
        Expr date = p.parse(named.get("date"));
        Expr unit = p.parse(named.get("unit"));
        Expr binSize = p.optional(named, "binSize", Json.NODES.numberNode(1));
        Expr zone = p.optional(named, "timezone", NullNode.getInstance());
        Expr startOfWeek = p.optional(named, "startOfWeek", Json.NODES.stringNode("sunday"));
        return s -> {
            JsonNode d = date.eval(s);
            JsonNode u = unit.eval(s);
            JsonNode b = binSize.eval(s);
            JsonNode z = zone.eval(s);
            JsonNode w = startOfWeek.eval(s);
            if (AggValues.isNullish(d) || AggValues.isNullish(u) || AggValues.isNullish(b) || AggValues.isNullish(z)
                    && named.has("timezone") || AggValues.isNullish(w)) {
                return NullNode.getInstance();
            }
            long bin = ArrayOps.whole(name, b);
            if (bin < 1) {
                throw AggValues.error(name, "binSize must be a positive whole number");
            }
            ZonedDateTime t = at(name, d, z);
            LocalDateTime truncated = truncate(name, t.toLocalDateTime(), StringOps.string(name, u), bin,
                    StringOps.string(name, w));
            return AggValues.date(truncated.atZone(t.getZone()).toInstant().toEpochMilli());
        };
    }

    private static LocalDateTime truncate(String op, LocalDateTime t, String unit, long bin, String startOfWeek) {
        return switch (unit) {
            case "year" -> months(t, 12 * bin);
            case "quarter" -> months(t, 3 * bin);
            case "month" -> months(t, bin);
            case "week" -> {
                DayOfWeek first = weekday(op, startOfWeek);
                LocalDateTime reference = REFERENCE.with(TemporalAdjusters.nextOrSame(first));
                yield bins(reference, t, ChronoUnit.WEEKS, bin);
            }
            case "day" -> bins(REFERENCE, t, ChronoUnit.DAYS, bin);
            case "hour" -> bins(REFERENCE, t, ChronoUnit.HOURS, bin);
            case "minute" -> bins(REFERENCE, t, ChronoUnit.MINUTES, bin);
            case "second" -> bins(REFERENCE, t, ChronoUnit.SECONDS, bin);
            case "millisecond" -> bins(REFERENCE, t, ChronoUnit.MILLIS, bin);
            default -> throw AggValues.error(op, "unknown unit '" + unit + "'");
        };
    }

    private static LocalDateTime months(LocalDateTime t, long bin) {
        long months = (t.getYear() - 2000L) * 12 + t.getMonthValue() - 1;
        long start = Math.floorDiv(months, bin) * bin;
        return REFERENCE.plusMonths(start);
    }

    private static LocalDateTime bins(LocalDateTime reference, LocalDateTime t, ChronoUnit unit, long bin) {
        long n = unit.between(reference, t);
        if (t.isBefore(reference) && !reference.plus(n, unit).equals(t)) {
            n--; // between() truncates toward zero; bins count down from the reference
        }
        return reference.plus(Math.floorDiv(n, bin) * bin, unit);
    }

    private static DayOfWeek weekday(String op, String name) {
        for (DayOfWeek d : DayOfWeek.values()) {
            String full = d.name().toLowerCase(Locale.ROOT);
            if (name.equalsIgnoreCase(full) || name.equalsIgnoreCase(full.substring(0, 3))) {
                return d;
            }
        }
        throw AggValues.error(op, "unknown startOfWeek '" + name + "'");
    }
}
