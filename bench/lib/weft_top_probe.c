/*
 * Measurement probe (issue 22, bench/results/text-pair-occurrence-cut.txt), not part of Weft:
 * an FTS5 auxiliary function weft_top(tbl, n, weight...) that returns FTS5's bm25 (negated, as
 * bm25 does) for a row that may be among the best n seen so far, and NULL for one that cannot:
 * before looking up a row's length (xColumnSize, a statement on %_docsize per row, most of
 * bm25's cost), it bounds the row's score from its instances alone (weighted counts; a length
 * at least each column's last offset + 1) and gives up when the bound is under the n-th best
 * score so far (the best n kept in a min-heap). A NULL row scores below the final n-th best, so
 * ORDER BY score DESC LIMIT n gives FTS5's own page. Scores are computed as fts5_aux.c's bm25
 * computes them (same operations, same order), to be compared bit for bit with bm25().
 * Build: gcc -O2 -fPIC -shared -ffp-contract=off -o weft_top_probe.so weft_top_probe.c -lm
 */
#include <sqlite3ext.h>
SQLITE_EXTENSION_INIT1
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* The FTS5 extension API (Fts5ExtensionApi, fts5_api) comes with sqlite3.h. */

typedef struct Top {
  int nPhrase, nCol, n, nHeap;
  double avgdl;
  double *aIDF, *aFreq, *heap;
  int *lastOff;
  sqlite3_int64 lastRowid;
  int lastNull;
  double lastScore;
  sqlite3_int64 bounded, scored;
} Top;

static int countCb(const Fts5ExtensionApi *api, Fts5Context *f, void *p){ (void)api; (void)f; (*(sqlite3_int64*)p)++; return SQLITE_OK; }

static void topFree(void *p){ Top *t = p; free(t->aIDF); free(t->aFreq); free(t->heap); free(t->lastOff); free(t); }

static Top *topData(const Fts5ExtensionApi *api, Fts5Context *f, int n, int *rc){
  Top *t = api->xGetAuxdata(f, 0);
  if( t ) return t;
  sqlite3_int64 nRow = 0, nToken = 0;
  t = calloc(1, sizeof(Top));
  t->nPhrase = api->xPhraseCount(f);
  t->nCol = api->xColumnCount(f);
  t->n = n;
  t->aIDF = calloc(t->nPhrase, sizeof(double));
  t->aFreq = calloc(t->nPhrase, sizeof(double));
  t->heap = calloc(n > 0 ? n : 1, sizeof(double));
  t->lastOff = calloc(t->nCol, sizeof(int));
  t->lastRowid = -1;
  *rc = api->xRowCount(f, &nRow);
  if( *rc==SQLITE_OK ) *rc = api->xColumnTotalSize(f, -1, &nToken);
  if( *rc==SQLITE_OK ) t->avgdl = (double)nToken / (double)nRow;
  for(int i = 0; *rc==SQLITE_OK && i < t->nPhrase; i++){
    sqlite3_int64 nHit = 0;
    *rc = api->xQueryPhrase(f, i, (void*)&nHit, countCb);
    if( *rc==SQLITE_OK ){
      double idf = log( (nRow - nHit + 0.5) / (nHit + 0.5) );
      if( idf<=0.0 ) idf = 1e-6;
      t->aIDF[i] = idf;
    }
  }
  if( *rc==SQLITE_OK ) *rc = api->xSetAuxdata(f, t, topFree); else topFree(t);
  return *rc==SQLITE_OK ? t : 0;
}

static void heapPush(Top *t, double s){
  double *h = t->heap;
  if( t->nHeap < t->n ){
    int i = t->nHeap++;
    h[i] = s;
    while( i > 0 && h[(i-1)/2] > h[i] ){ double x = h[i]; h[i] = h[(i-1)/2]; h[(i-1)/2] = x; i = (i-1)/2; }
  }else if( s > h[0] ){
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
}

static void weftTop(const Fts5ExtensionApi *api, Fts5Context *f, sqlite3_context *ctx, int nVal, sqlite3_value **apVal){
  const double k1 = 1.2, b = 0.75;
  int rc = SQLITE_OK, nInst = 0;
  if( nVal < 1 ){ sqlite3_result_error(ctx, "weft_top: n", -1); return; }
  Top *t = topData(api, f, sqlite3_value_int(apVal[0]), &rc);
  if( !t ){ sqlite3_result_error_code(ctx, rc); return; }
  sqlite3_int64 rowid = api->xRowid(f);
  if( rowid==t->lastRowid ){ /* the same row asked again: the same answer, not counted twice */
    if( t->lastNull ) sqlite3_result_null(ctx); else sqlite3_result_double(ctx, -1.0 * t->lastScore);
    return;
  }
  t->lastRowid = rowid;
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
  if( t->nHeap==t->n ){
    double shortest = 0, bound = 0;
    for(int c = 0; c < t->nCol; c++) shortest += t->lastOff[c] + 1;
    for(int i = 0; i < t->nPhrase; i++){
      bound += t->aIDF[i] * ( ( t->aFreq[i] * (k1 + 1.0) ) / ( t->aFreq[i] + k1 * (1 - b + b * shortest / t->avgdl) ) );
    }
    if( bound * (1 + 1e-9) < t->heap[0] ){
      t->bounded++;
      t->lastNull = 1;
      sqlite3_result_null(ctx);
      return;
    }
  }
  int nTok = 0;
  rc = api->xColumnSize(f, -1, &nTok);
  if( rc!=SQLITE_OK ){ sqlite3_result_error_code(ctx, rc); return; }
  double D = (double)nTok, score = 0.0;
  for(int i = 0; i < t->nPhrase; i++){
    score += t->aIDF[i] * ( ( t->aFreq[i] * (k1 + 1.0) ) / ( t->aFreq[i] + k1 * (1 - b + b * D / t->avgdl) ) );
  }
  t->scored++;
  heapPush(t, score);
  t->lastNull = 0;
  t->lastScore = score;
  sqlite3_result_double(ctx, -1.0 * score);
}

#ifdef _WIN32
__declspec(dllexport)
#endif
int sqlite3_wefttopprobe_init(sqlite3 *db, char **pzErrMsg, const sqlite3_api_routines *pApi){
  SQLITE_EXTENSION_INIT2(pApi);
  (void)pzErrMsg;
  fts5_api *fts = 0;
  sqlite3_stmt *st = 0;
  if( sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &st, 0)!=SQLITE_OK ) return SQLITE_ERROR;
  sqlite3_bind_pointer(st, 1, (void*)&fts, "fts5_api_ptr", 0);
  sqlite3_step(st);
  sqlite3_finalize(st);
  if( !fts ) return SQLITE_ERROR;
  return fts->xCreateFunction(fts, "weft_top", 0, weftTop, 0);
}
