package dev.weft.query;

import java.util.AbstractList;
import java.util.List;
import java.util.RandomAccess;

/**
 * A document's terms in a text index by weight class ({@link TextIndex#termsByWeight}): a list
 * of space-joined terms, equal to any list of the same strings, that also says whether none of
 * them holds a character a JSON string escapes ({@link #jsonPlain}). Known as the terms are cut
 * (on the thread that analyzes the document), so a store writing them into JSON text (SQLite's
 * pending rows, on its one writer) need not read every character again to know.
 */
public final class TermsByWeight extends AbstractList<String> implements RandomAccess {
    private final List<String> terms;
    private final boolean jsonPlain;

    TermsByWeight(List<String> terms, boolean jsonPlain) {
        this.terms = List.copyOf(terms);
        this.jsonPlain = jsonPlain;
    }

    /** Whether no string holds a quote, a backslash or a character below U+0020 (true for every term Weft derives). */
    public boolean jsonPlain() {
        return jsonPlain;
    }

    @Override
    public String get(int index) {
        return terms.get(index);
    }

    @Override
    public int size() {
        return terms.size();
    }
}
