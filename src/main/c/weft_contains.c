/*
 * weft_contains(body, literal): 1 when the bytes of `literal` occur in `body`, else 0 (NULL
 * arguments: 0). The SQLite store's text prefilter for a case-sensitive literal
 * (dev.weft.store.plan.TextPrefilter, dialect SQLITE_NATIVE): a necessary condition only, every
 * row it keeps is still evaluated by Weft, so answers never depend on it. It replaces
 * `CAST(body AS TEXT) GLOB '*literal*'`, which stops at every occurrence of the literal's first
 * byte and compares from there (a 'p' ten times in a seed-000 document for "pach"); glibc's memmem
 * searches with a vectorised scan for the literal's first bytes and a two-way match, and reads the
 * blob where SQLite holds it (no cast). Measured (bench/results/regex-1m-kinds.txt, a probe of
 * the same memmem): 330-410 against 357-459 ms CPU for one thread over 1M seed-000 rows.
 * Deterministic and innocuous: it reads its two arguments and nothing else, allocates nothing.
 */
#define _GNU_SOURCE /* memmem */
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#include <string.h>

static void weftContains(sqlite3_context *ctx, int argc, sqlite3_value **apVal){
  (void)argc;
  const void *h = sqlite3_value_blob(apVal[0]);
  int nh = sqlite3_value_bytes(apVal[0]);
  const void *n = sqlite3_value_blob(apVal[1]);
  int nn = sqlite3_value_bytes(apVal[1]);
  sqlite3_result_int(ctx, h != 0 && n != 0 && nn > 0 && memmem(h, (size_t)nh, n, (size_t)nn) != 0);
}

/* Registers weft_contains on `db` (called by the library's entry point, sqlite3_weftrank_init). */
int weft_contains_register(sqlite3 *db){
  return sqlite3_create_function_v2(db, "weft_contains", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
                                    0, weftContains, 0, 0, 0);
}
