/*
 * weft_sort_keep(body, name, threshold, descending): whether a stored document may still enter
 * the best rows of an unindexed sort whose first key is the top-level field `name`
 * (docs/decisions/0010-native-text-ranking.md, "weft_sort_keep"). Loaded with weft_top by Weft's
 * SQLite store (dev.weft.store.sqlite.NativeRanking); a whole-collection sort binds, statement by
 * statement, the first sort key of the worst row its heap keeps, so the rows that could not enter
 * never reach Java. Rows it keeps go through Weft's exact path, which decides.
 *
 * Answers 0 only when `name`'s value is a plain JSON number literal whose double (strtod: correctly
 * rounded, as Java's Double.parseDouble, so the same double as Weft's sort key of the row) is
 * strictly worse than `threshold` (descending: less; ascending: greater). Weft orders rows by that
 * double first, so such a row is strictly worse than the worst kept row and cannot enter.
 * Answers 1 (keep) for everything it does not read: threshold NULL or NaN, the field missing,
 * null, a string, an array, an object, true/false, a number followed by a letter, a body that is
 * not a JSON object, a top-level name holding a backslash escape met before the field (it might
 * spell `name`; once `name` is found spelled plainly, an escaped spelling would be a second
 * field of that name, which a stored document never has).
 * A stored document names each field once (it is written from a tree), so the first match is the
 * field. Only the top level is walked, from the last field back (sort fields are mostly near the
 * end, and the server's _etag is last): a string is skipped back to its opening quote (a quote
 * inside it is escaped, preceded by an odd run of backslashes), nested objects and arrays by
 * counting brackets outside strings.
 */
#define _GNU_SOURCE /* memrchr */
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT3
#include <stdlib.h>
#include <string.h>

static int isBlank(unsigned char c){
  return c==' ' || c=='\n' || c=='\r' || c=='\t';
}

/* The opening quote of the string whose closing quote is at b[j] (a quote inside it is escaped: an odd run of backslashes before it); -1 when none. */
static long stringStartBefore(const unsigned char *b, long j){
  long end = j;
  for(;;){
    const unsigned char *q = end > 0 ? memrchr(b, '"', (size_t)end) : 0;
    if( !q ) return -1;
    long k = q - b, slashes = 0;
    while( k - 1 - slashes >= 0 && b[k - 1 - slashes]=='\\' ) slashes++;
    if( (slashes & 1)==0 ) return k;
    end = k;
  }
}

/* The first index of the value ending at b[j] (inclusive), read backwards; -1 when unreadable. */
static long valueStartBefore(const unsigned char *b, long j){
  if( b[j]=='"' ) return stringStartBefore(b, j);
  if( b[j]=='}' || b[j]==']' ){
    long depth = 0;
    while( j >= 0 ){
      unsigned char c = b[j];
      if( c=='"' ){ j = stringStartBefore(b, j); if( j < 0 ) return -1; j--; continue; }
      if( c=='}' || c==']' ) depth++;
      else if( c=='{' || c=='[' ){ if( --depth==0 ) return j; }
      j--;
    }
    return -1;
  }
  while( j > 0 && b[j - 1]!=',' && b[j - 1]!=':' && b[j - 1]!='{' && b[j - 1]!='[' && !isBlank(b[j - 1]) ) j--;
  return j;
}

/*
 * Where the value of the top-level field `name` starts, the fields read from the last one back
 * (a sort field is mostly near the end: a counter, a timestamp, the server's _etag last): its
 * index, -2 when the object has no such field, -1 when the bytes are not read here (keep).
 */
static long fieldStartFromEnd(const unsigned char *b, long n, const unsigned char *name, long nameLen){
  long first = 0;
  while( first < n && isBlank(b[first]) ) first++;
  long j = n - 1;
  while( j > first && isBlank(b[j]) ) j--;
  if( first >= j || b[first]!='{' || b[j]!='}' ) return -1;
  j--; /* before the closing brace */
  for(;;){
    while( j > first && isBlank(b[j]) ) j--;
    if( j==first ) return -2; /* at the opening brace: no (more) fields */
    long start = valueStartBefore(b, j);
    if( start <= first ) return -1;
    long k = start - 1;
    while( k > first && isBlank(b[k]) ) k--;
    if( b[k]!=':' ) return -1;
    k--;
    while( k > first && isBlank(b[k]) ) k--;
    if( b[k]!='"' ) return -1;
    long open = stringStartBefore(b, k);
    if( open <= first ) return -1;
    if( memchr(b + open + 1, '\\', (size_t)(k - open - 1)) ) return -1; /* an escaped name might spell `name` */
    if( k - open - 1==nameLen && memcmp(b + open + 1, name, (size_t)nameLen)==0 ){
      while( start < n && isBlank(b[start]) ) start++;
      return start;
    }
    j = open - 1;
    while( j > first && isBlank(b[j]) ) j--;
    if( j==first ) return -2;
    if( b[j]!=',' ) return -1;
    j--;
  }
}

/* Reads the JSON number literal at b[i] into *v; 0 when it is not one read here. */
static int number(const unsigned char *b, long n, long i, double *v){
  long j = i;
  if( j < n && b[j]=='-' ) j++;
  long digits = j;
  while( j < n && b[j]>='0' && b[j]<='9' ) j++;
  if( j==digits ) return 0;
  if( j < n && b[j]=='.' ){
    long f = ++j;
    while( j < n && b[j]>='0' && b[j]<='9' ) j++;
    if( j==f ) return 0;
  }
  if( j < n && (b[j]=='e' || b[j]=='E') ){
    j++;
    if( j < n && (b[j]=='+' || b[j]=='-') ) j++;
    long e = j;
    while( j < n && b[j]>='0' && b[j]<='9' ) j++;
    if( j==e ) return 0;
  }
  if( j < n && b[j]!=',' && b[j]!='}' && !isBlank(b[j]) ) return 0; /* a letter or anything else follows: not read here */
  char buf[64];
  char *heap = 0, *text = buf;
  long len = j - i;
  if( len >= (long)sizeof(buf) ){
    heap = sqlite3_malloc64((sqlite3_uint64)len + 1);
    if( !heap ) return 0;
    text = heap;
  }
  memcpy(text, b + i, (size_t)len);
  text[len] = 0;
  char *stop = 0;
  *v = strtod(text, &stop);
  int ok = stop==text + len;
  sqlite3_free(heap);
  return ok;
}

static void weftSortKeep(sqlite3_context *ctx, int nVal, sqlite3_value **apVal){
  if( nVal!=4 ){ sqlite3_result_error(ctx, "weft_sort_keep(body, name, threshold, descending): four arguments", -1); return; }
  int type = sqlite3_value_type(apVal[2]);
  if( type!=SQLITE_INTEGER && type!=SQLITE_FLOAT ){ sqlite3_result_int(ctx, 1); return; }
  double threshold = sqlite3_value_double(apVal[2]);
  if( threshold!=threshold ){ sqlite3_result_int(ctx, 1); return; }
  int descending = sqlite3_value_int(apVal[3])!=0;
  const unsigned char *name = sqlite3_value_text(apVal[1]);
  long nameLen = sqlite3_value_bytes(apVal[1]);
  const unsigned char *b = sqlite3_value_blob(apVal[0]);
  long n = sqlite3_value_bytes(apVal[0]);
  if( !name || !b ){ sqlite3_result_int(ctx, 1); return; }
  long at = fieldStartFromEnd(b, n, name, nameLen);
  double v;
  if( at < 0 || !(b[at]=='-' || (b[at]>='0' && b[at]<='9')) || !number(b, n, at, &v) ){
    sqlite3_result_int(ctx, 1);
    return;
  }
  int worse = descending ? v < threshold : v > threshold;
  sqlite3_result_int(ctx, !worse);
}

/* Registers weft_sort_keep on `db` (called by the library's entry point, sqlite3_weftrank_init). */
int weft_sort_register(sqlite3 *db){
  return sqlite3_create_function_v2(db, "weft_sort_keep", 4, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
                                    0, weftSortKeep, 0, 0, 0);
}
