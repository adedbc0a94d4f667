package dev.weft.http;

import dev.weft.core.ReadMode;
import dev.weft.query.Filter;
import dev.weft.query.IndexField;
import dev.weft.query.Sort;
import dev.weft.store.FindQuery;
import dev.weft.store.Namespace;
import dev.weft.store.Store;
import dev.weft.store.StoredDocument;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.IntFunction;

/**
 * A store whose {@link Store#scanParts} splits as harshly as its contract allows: the matching
 * documents shuffled, dealt to every part in turn, each part read on its own thread at the same
 * time, so that a caller relying on any order within or across parts gets it wrong. The first
 * failure of a part is thrown to the caller once every part has ended.
 */
final class SplitScans {
    private static final Sort NATURAL = new Sort(List.of(new IndexField("_id", 1)));

    private SplitScans() {}

    static Store wrap(Store store) {
        Random random = new Random(7);
        return (Store) Proxy.newProxyInstance(Store.class.getClassLoader(), new Class<?>[] {Store.class}, (proxy, method, args) -> {
            if (method.getName().equals("scanParts")) {
                // scanParts(ns, filter, [names,] mode, parts, sinks): whole documents either way
                int at = args.length - 3;
                @SuppressWarnings("unchecked")
                IntFunction<Consumer<StoredDocument>> sinks = (IntFunction<Consumer<StoredDocument>>) args[at + 2];
                scan(store, (Namespace) args[0], (Filter) args[1], (ReadMode) args[at], Math.max(2, (int) args[at + 1]), sinks, random);
                return null;
            }
            try {
                return method.invoke(store, args);
            } catch (InvocationTargetException e) {
                throw e.getCause();
            }
        });
    }

    private static void scan(Store store, Namespace ns, Filter filter, ReadMode mode, int parts,
                             IntFunction<Consumer<StoredDocument>> sinks, Random random) throws InterruptedException {
        List<StoredDocument> all = new ArrayList<>();
        store.find(ns, new FindQuery(filter, NATURAL, 0, Long.MAX_VALUE, Optional.empty()), mode, all::add);
        Collections.shuffle(all, random);
        AtomicReference<Throwable> failed = new AtomicReference<>();
        List<Thread> threads = new ArrayList<>();
        for (int i = 0; i < parts; i++) {
            int part = i;
            threads.add(Thread.ofPlatform().start(() -> {
                try {
                    Consumer<StoredDocument> sink = sinks.apply(part);
                    for (int d = part; d < all.size(); d += parts) {
                        sink.accept(all.get(d));
                    }
                } catch (Throwable t) {
                    failed.compareAndSet(null, t);
                }
            }));
        }
        for (Thread t : threads) {
            t.join();
        }
        if (failed.get() instanceof RuntimeException e) {
            throw e;
        } else if (failed.get() != null) {
            throw new IllegalStateException(failed.get());
        }
    }
}
