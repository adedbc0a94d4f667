package dev.weft.store.sql;

import dev.weft.query.DocumentHead;
import dev.weft.query.Filter;
import dev.weft.query.Sort;
import dev.weft.store.Catalog;
import dev.weft.store.StoredDocument;
import dev.weft.store.plan.TopK;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * The bodies of a page chosen on document heads ({@link DocumentHead}): a scan that read each
 * row's head where it could stand for the document kept heads, not documents, so the page's
 * documents are read by {@code _id} afterwards, and only they.
 *
 * <p>Each is checked to be the row that was evaluated: its stored head is the bytes kept and
 * still stands for the document for the query's names, or its body is the bytes kept. A row
 * written or deleted between the scan and this read (on SQLite a split scan's parts read in
 * transactions of their own) fails the check, and the caller answers by reading bodies again
 * (null here), so a page never holds a document its filter, access rules and sort did not see.
 */
final class HeadPages {
    private HeadPages() {}

    /** The {@link DocumentHead} bits of the names a filter and sort read, or empty when heads cannot stand for documents. */
    static OptionalLong heads(Filter filter, Sort sort) {
        Optional<java.util.Set<String>> names = DocumentHead.namesRead(filter, sort);
        return names.isPresent() ? OptionalLong.of(DocumentHead.bits(names.get())) : OptionalLong.empty();
    }

    /** The page's documents in order, or null when one of them changed since it was evaluated. */
    static List<StoredDocument> bodies(SqlConnection sql, Catalog.Coll coll, List<TopK.Kept> page, long heads)
            throws SQLException {
        PreparedStatement ps = sql.prepare("SELECT body, head, rest FROM " + coll.table() + " WHERE id = ?");
        List<StoredDocument> out = new ArrayList<>(page.size());
        for (TopK.Kept kept : page) {
            ps.setBytes(1, kept.id());
            try (ResultSet rs = ps.executeQuery()) {
                if (!rs.next()) {
                    return null;
                }
                byte[] body = rs.getBytes(1);
                byte[] head = rs.getBytes(2);
                boolean sameHead = head != null && (rs.getLong(3) & heads) == 0 && Arrays.equals(head, kept.body());
                if (!sameHead && !Arrays.equals(body, kept.body())) {
                    return null;
                }
                out.add(new StoredDocument(body));
            }
        }
        return out;
    }
}
