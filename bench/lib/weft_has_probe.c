/*
 * Measurement probe (issue 12, bench/results/regex-1m-memmem.txt), not part of Weft: weft_has(body, literal)
 * is 1 when the literal's bytes occur in the stored body (a BLOB, read where OP_Column copied it), by glibc's
 * memmem, else 0: what a substring test that does not stop at each occurrence of the literal's first byte
 * would cost SQLite, beside CAST(body AS TEXT) GLOB '*literal*'.
 * Build: gcc -O2 -fPIC -shared -o /tmp/weft_has_probe.so bench/lib/weft_has_probe.c
 */
#define _GNU_SOURCE
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1
#include <string.h>

static void has(sqlite3_context *ctx, int argc, sqlite3_value **argv){
  (void)argc;
  const void *h = sqlite3_value_blob(argv[0]);
  int nh = sqlite3_value_bytes(argv[0]);
  const void *n = sqlite3_value_blob(argv[1]);
  int nn = sqlite3_value_bytes(argv[1]);
  sqlite3_result_int(ctx, h != 0 && n != 0 && memmem(h, nh, n, nn) != 0);
}

int sqlite3_wefthasprobe_init(sqlite3 *db, char **err, const sqlite3_api_routines *api){
  (void)err;
  SQLITE_EXTENSION_INIT2(api);
  return sqlite3_create_function(db, "weft_has", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS, 0, has, 0, 0);
}
