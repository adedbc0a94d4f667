/** What computing a document head costs a write: DocumentHead.of over 20,000 YCSB-shaped 1.2 KB bodies, budget 256, rounds of wall time per body. usage: java -cp target/classes bench/lib/HeadBuildCost.java */
import dev.weft.query.DocumentHead;
import java.nio.charset.StandardCharsets;
public class HeadBuildCost {
    public static void main(String[] a) {
        java.util.Random r = new java.util.Random(3);
        int n = 20000;
        byte[][] bodies = new byte[n][];
        for (int i = 0; i < n; i++) {
            StringBuilder y = new StringBuilder("{\"_id\":\"user" + i + "\"");
            for (int f = 0; f < 10; f++) { StringBuilder v = new StringBuilder(); for (int k = 0; k < 100; k++) v.append((char) ('#' + r.nextInt(57))); y.append(",\"field" + f + "\":\"" + v + "\""); }
            y.append(",\"g\":\"g" + (i % 100) + "\",\"v\":" + (i % 1000) + ",\"_etag\":{\"$oid\":\"6b09f2c0239aa5386fbbedba\"}}");
            bodies[i] = y.toString().getBytes(StandardCharsets.UTF_8);
        }
        long sink = 0;
        for (int round = 0; round < 8; round++) {
            long t0 = System.nanoTime();
            for (byte[] b : bodies) sink += DocumentHead.of(b, 256).head().length;
            System.out.printf("round %d: %.0f ns per 1.2 KB YCSB body%n", round, (System.nanoTime() - t0) / (double) n);
        }
        System.out.println(sink == 42 ? "" : "head bytes " + DocumentHead.of(bodies[0], 256).head().length);
    }
}
