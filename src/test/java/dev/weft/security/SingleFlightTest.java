package dev.weft.security;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;

class SingleFlightTest {

    @Test
    void concurrentCallersForOneKeyShareOneRun() throws Exception {
        SingleFlight<String, Integer> flight = new SingleFlight<>();
        AtomicInteger runs = new AtomicInteger();
        CountDownLatch started = new CountDownLatch(1);
        CountDownLatch release = new CountDownLatch(1);
        List<Thread> callers = new ArrayList<>();
        List<Integer> results = java.util.Collections.synchronizedList(new ArrayList<>());
        Thread first = Thread.ofVirtual().start(() -> results.add(flight.run("k", () -> {
            runs.incrementAndGet();
            started.countDown();
            await(release);
            return 42;
        })));
        started.await();
        for (int i = 0; i < 20; i++) {
            callers.add(Thread.ofVirtual().start(() -> results.add(flight.run("k", runs::incrementAndGet))));
        }
        Thread.sleep(100);
        release.countDown();
        first.join();
        for (Thread t : callers) {
            t.join();
        }
        assertThat(results).hasSize(21);
        // callers that arrived while the first run was in flight got its result; none ran again
        // unless it arrived after the first had finished
        assertThat(results.stream().filter(r -> r == 42).count()).isEqualTo(21 - (runs.get() - 1));
        assertThat(runs.get()).isLessThan(21);
    }

    @Test
    void aFailureReachesEveryWaiterAndTheNextCallRunsAgain() {
        SingleFlight<String, Integer> flight = new SingleFlight<>();
        assertThatThrownBy(() -> flight.run("k", () -> {
            throw new IllegalStateException("boom");
        })).hasMessage("boom");
        assertThat(flight.run("k", () -> 7)).isEqualTo(7);
    }

    private static void await(CountDownLatch latch) {
        try {
            latch.await();
        } catch (InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }
}
