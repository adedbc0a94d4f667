package dev.weft;

import static org.assertj.core.api.Assertions.assertThat;

import dev.weft.query.Filter;
import dev.weft.security.DocumentPolicy;
import dev.weft.security.Permission;
import dev.weft.store.FindQuery;
import dev.weft.store.Namespace;
import dev.weft.store.Store;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.lang.classfile.ClassFile;
import java.lang.classfile.ClassModel;
import java.lang.classfile.CodeElement;
import java.lang.classfile.MethodModel;
import java.lang.classfile.instruction.InvokeDynamicInstruction;
import java.lang.classfile.instruction.InvokeInstruction;
import java.lang.constant.ConstantDesc;
import java.lang.constant.DirectMethodHandleDesc;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Predicate;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The http layer can only reach documents through the plans, so a new endpoint cannot forget the
 * request's access: read from the compiled classes of {@code dev.weft.http} (every method, lambda
 * and method reference), which classes call what.
 * <ul>
 * <li>Only the read plans read documents from the store ({@code get}, {@code find},
 *     {@code count}); the single-document write plan reads the stored document it checks.</li>
 * <li>Only the write plans, and the ndjson ingest (which stores only documents its
 *     {@code NewDocuments} admitted), write documents.</li>
 * <li>No class applies a {@link DocumentPolicy} itself, and only the request context looks one
 *     up: documents are shown and checked through {@link dev.weft.security.DocumentAccess}.</li>
 * <li>Of a {@link Permission}, the http layer may use only what is not about documents: the
 *     switches, its cache key and its denial.</li>
 * </ul>
 * A class added to an allowed list must apply the access itself; say why next to it.
 */
class AccessThroughPlansTest {
    private static final String HTTP = "dev/weft/http/";

    private static final Map<String, Set<String>> READERS = Map.of(
            "get", Set.of("FindPlan", "CountPlan", "GetPlan", "WritePlan"), // WritePlan: the stored document it checks
            "find", Set.of("FindPlan", "AggregatePlan"), // AggregatePlan: narrows and shows as FindPlan, and $lookup's as a GET of that collection
            "count", Set.of("CountPlan"));

    private static final Set<String> WRITERS = Set.of("WritePlan", "BulkWritePlan", "NdjsonIngest");
    private static final Set<String> STORE_WRITES = Set.of("write", "writeAll", "prepare");

    /** What a Permission offers that is not about documents. */
    private static final Set<String> PERMISSION_OUTSIDE_DOCUMENTS = Set.of(
            "cacheKey", "denied", "restrictsWrites", "seesEverything",
            "admitBulkPatch", "admitBulkDelete", "admitWriteMode", "admitManagement", "admitAdhocAggregation");

    record Call(String caller, String owner, String method) {
        /** The top-level class, without its package: a lambda or nested class belongs to it. */
        String callerClass() {
            String simple = caller.substring(caller.lastIndexOf('/') + 1);
            int nested = simple.indexOf('$');
            return nested < 0 ? simple : simple.substring(0, nested);
        }

        boolean on(Class<?> type) {
            try {
                return type.isAssignableFrom(Class.forName(owner.replace('/', '.'), false, getClass().getClassLoader()));
            } catch (ClassNotFoundException e) {
                return false; // a JDK-internal or generated owner: not ours
            }
        }

        @Override
        public String toString() {
            return caller + " calls " + owner + "." + method;
        }
    }

    @Test
    void onlyTheReadPlansReadDocuments() {
        assertThat(httpCalls().filter(c -> c.on(Store.class) && READERS.containsKey(c.method())
                && !READERS.get(c.method()).contains(c.callerClass()))).isEmpty();
    }

    @Test
    void onlyTheWritePlansWriteDocuments() {
        assertThat(httpCalls().filter(c -> c.on(Store.class) && STORE_WRITES.contains(c.method())
                && !WRITERS.contains(c.callerClass()))).isEmpty();
    }

    @Test
    void documentPoliciesAreAppliedOnlyThroughDocumentAccess() {
        assertThat(httpCalls().filter(c -> c.on(DocumentPolicy.class))).isEmpty();
        assertThat(httpCalls().filter(c -> c.on(DocumentPolicy.Lookup.class) && c.method().equals("of")
                && !c.callerClass().equals("RequestContext"))).isEmpty();
    }

    @Test
    void permissionsReachDocumentsOnlyThroughDocumentAccess() {
        assertThat(httpCalls().filter(c -> c.on(Permission.class)
                && !PERMISSION_OUTSIDE_DOCUMENTS.contains(c.method()))).isEmpty();
    }

    /** The scan itself: an endpoint that reads the store directly, by call or by method reference, is seen. */
    @Test
    void aForgetfulEndpointIsCaught() {
        List<Call> calls = calls(classBytes(ForgetfulEndpoint.class));
        Predicate<Call> storeRead = c -> c.on(Store.class) && READERS.containsKey(c.method());
        assertThat(calls.stream().filter(storeRead).map(Call::method)).containsExactlyInAnyOrder("find", "count", "get");
        assertThat(calls.stream().filter(c -> c.on(Permission.class)).map(Call::method)).containsExactly("narrowRead");
    }

    /** Everything an endpoint could do wrong: reads a collection raw, counts unnarrowed, fetches by id through a method reference. */
    @SuppressWarnings("unused")
    static final class ForgetfulEndpoint {
        void list(Store store, Namespace ns, Permission permission) {
            store.find(ns, new FindQuery(permission.narrowRead(Filter.all()), null, 0, 10, null), doc -> {});
            store.count(ns, Filter.all());
            Stream.of(ns).map(n -> (Object) n).toList();
            java.util.function.BiFunction<Namespace, tools.jackson.databind.JsonNode, ?> byId = store::get;
        }
    }

    private static Stream<Call> httpCalls() {
        Path root = classesRoot().resolve(HTTP);
        List<Call> all = new ArrayList<>();
        try (Stream<Path> files = Files.list(root)) {
            files.filter(p -> p.toString().endsWith(".class")).forEach(p -> {
                try {
                    all.addAll(calls(Files.readAllBytes(p)));
                } catch (IOException e) {
                    throw new UncheckedIOException(e);
                }
            });
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        assertThat(all).as("calls found in " + root).isNotEmpty();
        return all.stream();
    }

    private static Path classesRoot() {
        try {
            return Path.of(Store.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static byte[] classBytes(Class<?> type) {
        try (InputStream in = type.getResourceAsStream(type.getName().substring(type.getName().lastIndexOf('.') + 1) + ".class")) {
            return in.readAllBytes();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Every method a class's code invokes, directly or as a method reference (an invokedynamic's handle). */
    static List<Call> calls(byte[] classFile) {
        ClassModel model = ClassFile.of().parse(classFile);
        String caller = model.thisClass().asInternalName();
        List<Call> calls = new ArrayList<>();
        for (MethodModel method : model.methods()) {
            method.code().ifPresent(code -> {
                for (CodeElement e : code) {
                    if (e instanceof InvokeInstruction invoke) {
                        calls.add(new Call(caller, invoke.owner().asInternalName(), invoke.name().stringValue()));
                    } else if (e instanceof InvokeDynamicInstruction indy) {
                        for (ConstantDesc arg : indy.bootstrapArgs()) {
                            if (arg instanceof DirectMethodHandleDesc handle) {
                                String owner = handle.owner().descriptorString();
                                calls.add(new Call(caller, owner.substring(1, owner.length() - 1), handle.methodName()));
                            }
                        }
                    }
                }
            });
        }
        return calls;
    }
}
