package dev.weft.stream;

import dev.weft.core.WeftException;
import dev.weft.query.MatchBudget;
import java.nio.charset.StandardCharsets;
import dev.weft.store.ChangeEvent;
import java.util.concurrent.atomic.AtomicLong;
import tools.jackson.databind.JsonNode;

/**
 * What a subscriber receives of an event: the one function ({@link #match}) for the replay and
 * the live feed alike, so a resume token (only a position in the log) shows exactly what the
 * subscriber could have followed live. It weighs the collection, the filter, the access rule
 * (read filter, projection) and the collection's document policy ({@link EventView}). The
 * subscriber's filter runs within a budget of value tests ({@code stream-match-budget}); the
 * rule's {@code readFilter} never draws on it: the rule is the server's, its cost bounded by
 * the document size limits, and charging it would let a document she may not read (another
 * user's huge array under the rule's path) end her stream, and tell her so. The rule may only be
 * held back to a later pass ({@link #RULE_DEFERRED}), never refused for its cost.
 */
final class Matcher {
    /** What {@link #matchWithin} answers when the match ran out of value tests. */
    static final EventFrame TOO_COSTLY = new EventFrame("", new byte[0]);
    /**
     * What {@link #matchWithin} answers when the access rule alone ran past the rule's tests of a
     * quick pass: the subscriber is to be matched again with the rule unbounded. Never ends a stream.
     */
    static final EventFrame RULE_DEFERRED = new EventFrame("", new byte[0]);

    /** Thrown out of the rule's evaluation past its tests (control flow, no stack trace). */
    private static final class RuleOverTests extends RuntimeException {
        private RuleOverTests() {
            super("access rule past its tests", null, false, false);
        }
    }

    private static final RuleOverTests RULE_OVER_TESTS = new RuleOverTests();

    /** Value tests one event may cost one subscriber ({@code stream-match-budget}). */
    final long budget;
    private final AtomicLong evaluations = new AtomicLong();

    Matcher(long budget) {
        this.budget = budget;
    }

    /** Subscriber filters evaluated so far. */
    long evaluations() {
        return evaluations.get();
    }

    /**
     * {@link #match} with the subscriber's filter within {@code tests} value tests of
     * {@code budget} ({@link #TOO_COSTLY} past them) and the access rule unbounded.
     */
    EventFrame matchWithin(Subscriber s, EventView v, MatchBudget budget, long tests) {
        return matchWithin(s.query(), v, budget, tests, MatchBudget.UNLIMITED);
    }

    /**
     * {@link #matchWithin(Subscriber, EventView, MatchBudget, long)} for a subscriber whose query
     * (read once for the event) is {@code q}, the access rule within {@code rule} (ready for use:
     * {@link MatchBudget#UNLIMITED}, or reset by the caller; past it {@link #RULE_DEFERRED}): a
     * function of {@code q} and {@code v} alone, so subscribers with equal queries get the same answer.
     */
    EventFrame matchWithin(StreamQuery q, EventView v, MatchBudget budget, long tests, MatchBudget rule) {
        budget.reset(tests);
        try {
            return match(q, v, budget, rule);
        } catch (RuleOverTests x) {
            return RULE_DEFERRED;
        } catch (MatchBudget.Exceeded x) {
            return TOO_COSTLY;
        } catch (WeftException x) {
            return stageFailed(x.getMessage());
        }
    }

    /** What {@link #matchWithin} answers when a stream's stage failed on an event; its bytes are the reason. */
    private static EventFrame stageFailed(String reason) {
        return new EventFrame("", reason.getBytes(StandardCharsets.UTF_8));
    }

    /** Whether {@code frame} ends the stream rather than being sent: {@link #TOO_COSTLY} or a failed stage. */
    static boolean ends(EventFrame frame) {
        return frame != null && frame != RULE_DEFERRED && frame.token().isEmpty();
    }

    /** Why {@code frame} (one that {@link #ends}) ends the stream at {@code v}. */
    String endReason(EventFrame frame, EventView v) {
        return frame == TOO_COSTLY ? overBudgetReason(v)
                : "a stage of the stream failed on event " + v.frame().token() + ": " + frame.text();
    }

    String overBudgetReason(EventView v) {
        return "the stream's filter cost more than stream-match-budget (" + budget
                + " value tests) on event " + v.frame().token() + "; narrow the filter, or resume after that event";
    }

    /**
     * What {@code s} is to receive of {@code v}, or null. Nothing of another collection. Else
     * the event itself when the filter and the access rule pass; otherwise, for a subscriber
     * that asked for leaves, a leave event when the document matched (and was visible) before
     * this change. On a document filter a delete is judged by the deleted document. A drop has
     * no document: a document filter lets it through, an event filter ({@code $match}) judges it
     * as MongoDB does.
     */
    private EventFrame match(StreamQuery q, EventView v, MatchBudget budget, MatchBudget rule) {
        evaluations.incrementAndGet();
        if (!q.ns().equals(v.event.ns())) {
            return null;
        }
        if (v.isDrop()) {
            return q.onDocument() || q.filter().matches(v.eventNode()) ? shaped(q, v) : null;
        }
        boolean delete = v.event.operation() == ChangeEvent.Operation.DELETE;
        JsonNode doc = delete ? v.before() : v.after();
        JsonNode now = q.onDocument() ? doc : v.eventNode();
        // the access rule first, on its own budget: the subscriber's filter never runs on a document
        // she may not read, so neither its cost (past the budget her stream ends) nor its outcome
        // depends on one
        if (now != null && allowed(q, doc, rule) && q.filter().matches(now, budget)) {
            return shaped(q, v);
        }
        if (q.leaves() && v.before() != null && !(q.onDocument() && delete)) {
            JsonNode was = q.onDocument() ? v.before() : v.beforeNode();
            if (allowed(q, v.before(), rule) && q.filter().matches(was, budget)) {
                return v.leave();
            }
        }
        return null;
    }

    private static EventFrame shaped(StreamQuery q, EventView v) {
        if (q.stages().isPresent()) {
            return v.shaped(q.projection(), q.stages().get());
        }
        return q.projection().isPresent() ? v.projected(q.projection().get()) : v.frame();
    }

    /** Whether the access rule lets {@code doc} through, within {@code rule} ({@link RuleOverTests} past it). */
    private static boolean allowed(StreamQuery q, JsonNode doc, MatchBudget rule) {
        try {
            return q.readFilter().isEmpty() || doc != null && q.readFilter().get().matches(doc, rule);
        } catch (MatchBudget.Exceeded x) {
            throw RULE_OVER_TESTS;
        }
    }

    /** Whether {@code v} is the drop of {@code s}'s collection, which ends its stream. */
    static boolean drops(Subscriber s, EventView v) {
        return v.isDrop() && s.query().ns().equals(v.event.ns());
    }
}
