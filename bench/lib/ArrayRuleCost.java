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
 * subscriber is a class of her own ({readers: "@user"}): N rules over one document whose readers
 * array has M elements, none naming the subscriber (a whole walk each), with the arrays walked
 * (ArrayKeys.NONE, as before) and remembered for the event (ArrayKeys.remembering()). Thread CPU.
 *   java -cp 'target/classes:target/lib/*' bench/lib/ArrayRuleCost.java 1000 100000 5
 */
public class ArrayRuleCost {
    public static void main(String[] a) {
        int rules = Integer.parseInt(a[0]);
        int size = Integer.parseInt(a[1]);
        int rounds = Integer.parseInt(a[2]);
        ArrayNode readers = Json.NODES.arrayNode();
        for (int i = 0; i < size; i++) {
            readers.add("user" + i);
        }
        JsonNode doc = Json.NODES.objectNode().set("readers", readers);
        List<Filter> filters = new ArrayList<>();
        for (int i = 0; i < rules; i++) {
            filters.add(Filter.parse(Json.NODES.objectNode().put("readers", "subscriber" + i), QueryLimits.defaults()));
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
                System.out.printf("%d rules over a %,d-element array, %s: %.1f ms CPU (%d matched)%n",
                        rules, size, remember ? "remembered for the event" : "walked per rule   ", ns / 1e6, matched);
            }
        }
    }
}
