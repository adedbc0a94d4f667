package dev.weft.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.weft.core.WeftException;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class RoutesTest {
    private static Routes.Route route(String template) {
        return Routes.Route.of(template, Map.of(), Map.of(), false);
    }

    private final Routes routes = new Routes(List.of(
            route("/"), route("/{db}"), route("/{db}/{coll}/_size"), route("/{db}/{coll}/{id}"), route("/{db}/{coll}")));

    private String template(String path) {
        return routes.match(path).map(m -> m.route().template()).orElse("none");
    }

    @Test
    void splitDropsEmptySegmentsAndDecodesPercentButNotPlus() {
        assertThat(Routes.split("/")).isEmpty();
        assertThat(Routes.split("")).isEmpty();
        assertThat(Routes.split("//db///coll/")).containsExactly("db", "coll");
        assertThat(Routes.split("/db/a%2Fb/x+y")).containsExactly("db", "a/b", "x+y");
        assertThat(Routes.split("/db/%C3%A9t%C3%A9")).containsExactly("db", "été");
    }

    @Test
    void aMalformedEscapeIsABadRequest() {
        assertThatThrownBy(() -> Routes.split("/db/%zz"))
                .isInstanceOf(WeftException.class)
                .satisfies(e -> assertThat(((WeftException) e).status()).isEqualTo(400));
    }

    @Test
    void literalSegmentsWinOverTheParameterTriedAfterThem() {
        assertThat(template("/")).isEqualTo("/");
        assertThat(template("/db")).isEqualTo("/{db}");
        assertThat(template("/db/coll")).isEqualTo("/{db}/{coll}");
        assertThat(template("/db/coll/_size")).isEqualTo("/{db}/{coll}/_size");
        assertThat(template("/db/coll/_sizes")).isEqualTo("/{db}/{coll}/{id}");
        assertThat(template("/db/coll/id/more")).isEqualTo("none");
    }

    @Test
    void theMatchCarriesDecodedParametersAndSegments() {
        Routes.Match m = routes.match("/db/my%20coll/a%2Fb").orElseThrow();
        assertThat(m.params().get("db")).contains("db");
        assertThat(m.params().get("coll")).contains("my coll");
        assertThat(m.params().get("id")).contains("a/b");
        assertThat(m.params().get("name")).isEmpty();
        assertThat(m.segments()).containsExactly("db", "my coll", "a/b");
        Routes.PathParams size = routes.match("/db/coll/_size").orElseThrow().params();
        assertThat(size.get("coll")).contains("coll");
        assertThat(size.get("id")).isEmpty();
        assertThat(size.get("_size")).isEmpty();
    }
}
