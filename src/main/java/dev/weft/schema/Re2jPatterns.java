package dev.weft.schema;

import com.networknt.schema.regex.RegularExpression;
import com.networknt.schema.regex.RegularExpressionFactory;
import dev.weft.query.PatternSearch;
import dev.weft.query.QueryLimits;
import java.util.function.Predicate;

/**
 * A schema's {@code pattern} and {@code patternProperties} run on RE2J under the {@code $regex}
 * bounds, not on java.util.regex, whose backtracking a crafted pattern could keep busy for
 * hours on one short string.
 */
final class Re2jPatterns implements RegularExpressionFactory {
    private final QueryLimits limits;

    Re2jPatterns(QueryLimits limits) {
        this.limits = limits;
    }

    @Override
    public RegularExpression getRegularExpression(String regex) {
        Predicate<String> search = PatternSearch.compile(regex, limits, "pattern " + regex);
        return search::test;
    }
}
