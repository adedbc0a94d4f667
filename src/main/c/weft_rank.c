/*
 * weft_top(tbl, n, weight...): an FTS5 auxiliary function for a $text query's best n by bm25
 * (issue 22; docs/decisions/0010-native-text-ranking.md). Loaded by Weft's SQLite store
 * (dev.weft.store.sqlite.NativeRanking) into its connections; where it is absent Weft ranks with
 * FTS5's bm25() alone, and the answers are the same.
 *
 * For each matching row it returns what bm25(tbl, weight...) returns, or NULL for a row that
 * cannot be among the best n: before it looks up the row's length (xColumnSize, a statement on
 * %_docsize per row: most of bm25's cost over many matches), it bounds the row's score from its
 * instances alone (the weighted count of each phrase; a length at least each column's last
 * offset + 1: bm25 falls as the length grows) and returns NULL when that bound is under the n-th
 * best score so far (the best n kept in a min-heap). Every NULL row scores below the final n-th
 * best, and at least n rows are scored before any is NULL, so
 *   SELECT rowid, -weft_top(t, n, w...) AS s FROM t WHERE t MATCH ? ORDER BY s DESC LIMIT n
 * gives exactly the rows and scores of the same statement with bm25 (a row scoring the n-th's
 * score is always scored).
 *
 * Invariants: scores are computed as FTS5's fts5_aux.c computes bm25 (same constants, same
 * operations in the same order, so equal bit for bit; build with -ffp-contract=off so no multiply
 * and add are fused); weights must be positive (Weft's are whole numbers >= 1), so each phrase's
 * share only falls as the length grows, which makes the bound a bound. Memory: the heap grows
 * with the rows scored, at most n doubles (n at most WEFT_TOP_MAX_N); per-query state lives in
 * FTS5's auxiliary data and is freed with the query's cursor.
 *
 * Build (the weft script, scripts/build-native): cc -O2 -fPIC -shared -ffp-contract=off -o libweftrank.so weft_rank.c
 * It calls SQLite only through the routines the loading SQLite hands it (sqlite3ext.h), so it
 * needs SQLite's headers at build time and links against no SQLite library.
 */
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1
#include <math.h>
#include <string.h>

/* The largest n a query may ask for (Weft asks for a few pages' worth). */
#define WEFT_TOP_MAX_N 10000000

/* Relative margin on the bound before a row is given up (the bound and the score are computed by
   the same monotone operations, so none is needed; kept against any doubt). */
#define WEFT_TOP_MARGIN 1e-9

typedef struct Top {
  int nPhrase, nCol, n, nHeap, heapCap;
  double avgdl;
  double *aIDF, *aFreq, *heap;
  int *lastOff;
  sqlite3_int64 lastRowid;
  int lastNull;
  double lastScore;
} Top;

static int countHit(const Fts5ExtensionApi *api, Fts5Context *f, void *p){
  (void)api; (void)f;
  (*(sqlite3_int64*)p)++;
  return SQLITE_OK;
}

static void topFree(void *p){
  Top *t = p;
  if( !t ) return;
  sqlite3_free(t->aIDF);
  sqlite3_free(t->aFreq);
  sqlite3_free(t->heap);
  sqlite3_free(t->lastOff);
  sqlite3_free(t);
}

/* The query's state, made on its first row: bm25's idf of each phrase and the average length,
   computed as fts5_aux.c's fts5Bm25GetData computes them. */
static Top *topData(const Fts5ExtensionApi *api, Fts5Context *f, int n, int *rc){
  Top *t = api->xGetAuxdata(f, 0);
  if( t ) return t;
  sqlite3_int64 nRow = 0, nToken = 0;
  t = sqlite3_malloc(sizeof(Top));
  if( !t ){ *rc = SQLITE_NOMEM; return 0; }
  memset(t, 0, sizeof(Top));
  t->nPhrase = api->xPhraseCount(f);
  t->nCol = api->xColumnCount(f);
  t->n = n;
  t->lastRowid = 0;
  t->lastNull = -1; /* no row yet */
  t->aIDF = sqlite3_malloc64(sizeof(double) * (t->nPhrase + 1));
  t->aFreq = sqlite3_malloc64(sizeof(double) * (t->nPhrase + 1));
  t->lastOff = sqlite3_malloc64(sizeof(int) * (t->nCol + 1));
  if( !t->aIDF || !t->aFreq || !t->lastOff ){ topFree(t); *rc = SQLITE_NOMEM; return 0; }
  *rc = api->xRowCount(f, &nRow);
  if( *rc==SQLITE_OK ) *rc = api->xColumnTotalSize(f, -1, &nToken);
  if( *rc==SQLITE_OK ) t->avgdl = (double)nToken / (double)nRow;
  for(int i = 0; *rc==SQLITE_OK && i < t->nPhrase; i++){
    sqlite3_int64 nHit = 0;
    *rc = api->xQueryPhrase(f, i, (void*)&nHit, countHit);
    if( *rc==SQLITE_OK ){
      double idf = log( (nRow - nHit + 0.5) / (nHit + 0.5) );
      if( idf<=0.0 ) idf = 1e-6;
      t->aIDF[i] = idf;
    }
  }
  if( *rc!=SQLITE_OK ){ topFree(t); return 0; }
  *rc = api->xSetAuxdata(f, t, topFree); /* frees t itself on failure */
  return *rc==SQLITE_OK ? t : 0;
}

/* Keeps the best n scores seen: a min-heap, its least (the n-th best once full) at heap[0]. */
static int heapPush(Top *t, double s){
  if( t->nHeap < t->n ){
    if( t->nHeap==t->heapCap ){
      int cap = t->heapCap ? t->heapCap * 2 : 64;
      if( cap > t->n ) cap = t->n;
      double *h = sqlite3_realloc64(t->heap, sizeof(double) * cap);
      if( !h ) return SQLITE_NOMEM;
      t->heap = h;
      t->heapCap = cap;
    }
    double *h = t->heap;
    int i = t->nHeap++;
    h[i] = s;
    while( i > 0 && h[(i-1)/2] > h[i] ){ double x = h[i]; h[i] = h[(i-1)/2]; h[(i-1)/2] = x; i = (i-1)/2; }
  }else if( s > t->heap[0] ){
    double *h = t->heap;
    int i = 0;
    h[0] = s;
    for(;;){
      int l = 2*i+1, r = l+1, m = i;
      if( l < t->n && h[l] < h[m] ) m = l;
      if( r < t->n && h[r] < h[m] ) m = r;
      if( m==i ) break;
      double x = h[i]; h[i] = h[m]; h[m] = x; i = m;
    }
  }
  return SQLITE_OK;
}

static double bm25(const Top *t, double length){
  const double k1 = 1.2, b = 0.75;
  double score = 0.0;
  for(int i = 0; i < t->nPhrase; i++){
    score += t->aIDF[i] * ( ( t->aFreq[i] * (k1 + 1.0) ) / ( t->aFreq[i] + k1 * (1 - b + b * length / t->avgdl) ) );
  }
  return score;
}

static void weftTop(const Fts5ExtensionApi *api, Fts5Context *f, sqlite3_context *ctx, int nVal, sqlite3_value **apVal){
  int rc = SQLITE_OK, nInst = 0;
  if( nVal < 1 ){ sqlite3_result_error(ctx, "weft_top(table, n, weight...): n missing", -1); return; }
  sqlite3_int64 n = sqlite3_value_int64(apVal[0]);
  if( n < 1 || n > WEFT_TOP_MAX_N ){ sqlite3_result_error(ctx, "weft_top: n out of range", -1); return; }
  for(int c = 1; c < nVal; c++){
    if( !(sqlite3_value_double(apVal[c]) > 0.0) ){ sqlite3_result_error(ctx, "weft_top: weights must be positive", -1); return; }
  }
  Top *t = topData(api, f, (int)n, &rc);
  if( !t ){ sqlite3_result_error_code(ctx, rc); return; }
  sqlite3_int64 rowid = api->xRowid(f);
  if( t->lastNull>=0 && rowid==t->lastRowid ){ /* the same row asked again: the same answer, not counted twice */
    if( t->lastNull ) sqlite3_result_null(ctx); else sqlite3_result_double(ctx, -1.0 * t->lastScore);
    return;
  }
  memset(t->aFreq, 0, sizeof(double) * t->nPhrase);
  for(int c = 0; c < t->nCol; c++) t->lastOff[c] = -1;
  rc = api->xInstCount(f, &nInst);
  for(int i = 0; rc==SQLITE_OK && i < nInst; i++){
    int ip, ic, io;
    rc = api->xInst(f, i, &ip, &ic, &io);
    if( rc==SQLITE_OK ){
      double w = (nVal - 1 > ic) ? sqlite3_value_double(apVal[1 + ic]) : 1.0;
      t->aFreq[ip] += w;
      if( io > t->lastOff[ic] ) t->lastOff[ic] = io;
    }
  }
  if( rc!=SQLITE_OK ){ sqlite3_result_error_code(ctx, rc); return; }
  t->lastRowid = rowid;
  if( t->nHeap==t->n ){
    double shortest = 0;
    for(int c = 0; c < t->nCol; c++) shortest += t->lastOff[c] + 1;
    if( bm25(t, shortest) * (1 + WEFT_TOP_MARGIN) < t->heap[0] ){
      t->lastNull = 1;
      sqlite3_result_null(ctx);
      return;
    }
  }
  int nTok = 0;
  rc = api->xColumnSize(f, -1, &nTok);
  if( rc!=SQLITE_OK ){ t->lastNull = -1; sqlite3_result_error_code(ctx, rc); return; }
  double score = bm25(t, (double)nTok);
  rc = heapPush(t, score);
  if( rc!=SQLITE_OK ){ t->lastNull = -1; sqlite3_result_error_code(ctx, rc); return; }
  t->lastNull = 0;
  t->lastScore = score;
  sqlite3_result_double(ctx, -1.0 * score);
}

int weft_sort_register(sqlite3 *db); /* weft_sort.c */
int weft_contains_register(sqlite3 *db); /* weft_contains.c */

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_weftrank_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi){
  SQLITE_EXTENSION_INIT2(pApi);
  (void)pzErrMsg;
  if( weft_sort_register(db)!=SQLITE_OK ) return SQLITE_ERROR;
  if( weft_contains_register(db)!=SQLITE_OK ) return SQLITE_ERROR;
  fts5_api *fts = 0;
  sqlite3_stmt *st = 0;
  if( sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &st, 0)!=SQLITE_OK ) return SQLITE_ERROR;
  sqlite3_bind_pointer(st, 1, (void*)&fts, "fts5_api_ptr", 0);
  sqlite3_step(st);
  sqlite3_finalize(st);
  if( !fts || fts->iVersion < 2 ) return SQLITE_ERROR;
  return fts->xCreateFunction(fts, "weft_top", 0, weftTop, 0);
}
