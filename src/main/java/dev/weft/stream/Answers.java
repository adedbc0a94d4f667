package dev.weft.stream;

import java.util.HashMap;
import java.util.Map;

/**
 * What each class of subscribers got of the event being dispatched, so that the dispatcher
 * matches, projects and shapes an event once per class instead of once per subscriber. A class is
 * the subscribers whose queries are equal ({@link StreamQuery} is a record: the same collection,
 * flags, resume point and equality, and the very same compiled filter, read filter, projection
 * and stages, which have identity equality). {@link Matcher} answers from the query and the event
 * alone, so equal queries get the same answer, frame included: a projected or shaped frame is
 * rendered once per class and shared like the plain one. Subscribers of one access rule without
 * variables share its compiled read filter and projection, hence a class; a rule with variables
 * compiles per request, and its subscribers are classes of one (matched as before).
 *
 * <p>Dispatcher only. {@link #clear} before each pass over an event: a pass has its own budget.
 * The previous answer is kept apart, since neighbours in a group are mostly of one class.
 */
final class Answers {
    /** What {@link #get} returns for a class not matched yet in this pass. */
    static final EventFrame UNKNOWN = new EventFrame("", new byte[0]);
    /** Stored for "nothing to send" (a null answer). */
    private static final EventFrame NOTHING = new EventFrame("", new byte[0]);

    private final Map<StreamQuery, EventFrame> byQuery = new HashMap<>();
    private StreamQuery last;
    private EventFrame lastAnswer;

    /** The answer for {@code q}'s class (null: nothing to send), or {@link #UNKNOWN}. */
    EventFrame get(StreamQuery q) {
        if (last != null && (q == last || q.equals(last))) {
            return lastAnswer;
        }
        EventFrame a = byQuery.get(q);
        if (a == null) {
            return UNKNOWN;
        }
        last = q;
        lastAnswer = a == NOTHING ? null : a;
        return lastAnswer;
    }

    /** Records {@code answer} (null: nothing to send) for {@code q}'s class. */
    void put(StreamQuery q, EventFrame answer) {
        byQuery.put(q, answer == null ? NOTHING : answer);
        last = q;
        lastAnswer = answer;
    }

    void clear() {
        byQuery.clear();
        last = null;
        lastAnswer = null;
    }
}
