import dev.weft.core.Json;
import dev.weft.query.ArrayKeys;
import dev.weft.query.Filter;
import dev.weft.query.MatchBudget;
import dev.weft.query.QueryLimits;
import java.lang.management.ManagementFactory;
import java.util.ArrayList;
import java.util.List;
import tools.jackson.databind.JsonNode;
import tools.jackson.databind.node.ArrayNode;

/**
 * What one event costs the stream dispatcher's access rules when a rule names an array and each
 * subscriber is a class of her own: N rules over one document whose readers array has M elements,
 * none naming the subscriber (a whole walk each), with the arrays walked (ArrayKeys.NONE, as
 * before) and remembered for the event (ArrayKeys.remembering()). Thread CPU. Shapes:
 *   readers       {readers: "subscriberI"} over readers: ["user0", ...]
 *   readers.name  {"readers.name": "subscriberI"} over readers: [{name: "user0", role: "reader"}, ...]
 *   range         {"readers.rank": {$gt: I + M}} over readers: [{name: "user0", rank: 0}, ...]
 *                 (what a range rule costs per class; it is walked either way)
 *   java -cp 'target/classes:target/lib/*' bench/lib/ArrayRuleCost.java 1000 100000 5 [shape]
 */
public class ArrayRuleCost {
    public static void main(String[] a) {
        int rules = Integer.parseInt(a[0]);
        int size = Integer.parseInt(a[1]);
        int rounds = Integer.parseInt(a[2]);
        String shape = a.length > 3 ? a[3] : "readers";
        ArrayNode readers = Json.NODES.arrayNode();
        for (int i = 0; i < size; i++) {
            if (shape.equals("readers")) {
                readers.add("user" + i);
            } else {
                readers.add(Json.NODES.objectNode().put("name", "user" + i).put("role", "reader").put("rank", i));
            }
        }
        JsonNode doc = Json.NODES.objectNode().set("readers", readers);
        List<Filter> filters = new ArrayList<>();
        for (int i = 0; i < rules; i++) {
            var rule = switch (shape) {
                case "readers" -> Json.NODES.objectNode().put("readers", "subscriber" + i);
                case "readers.name" -> Json.NODES.objectNode().put("readers.name", "subscriber" + i);
                case "range" -> Json.NODES.objectNode().set("readers.rank", Json.NODES.objectNode().put("$gt", size + i));
                default -> throw new IllegalArgumentException("shape: readers, readers.name or range");
            };
            filters.add(Filter.parse(rule, QueryLimits.defaults()));
        }
        var bean = ManagementFactory.getThreadMXBean();
        for (int round = 0; round < rounds; round++) {
            for (boolean remember : new boolean[] {false, true}) {
                ArrayKeys arrays = remember ? ArrayKeys.remembering() : null;
                long t0 = bean.getCurrentThreadCpuTime();
                int matched = 0;
                for (Filter f : filters) {
                    MatchBudget b = remember ? MatchBudget.of(Long.MAX_VALUE, arrays) : MatchBudget.of(Long.MAX_VALUE);
                    matched += f.matches(doc, b) ? 1 : 0;
                }
                long ns = bean.getCurrentThreadCpuTime() - t0;
                System.out.printf("%d %s rules over a %,d-element array, %s: %.1f ms CPU (%d matched)%n",
                        rules, shape, size, remember ? "remembered for the event" : "walked per rule   ", ns / 1e6, matched);
            }
        }
    }
}
