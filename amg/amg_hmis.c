/* amg/amg_hmis.c: HMIS C/F splitting on one rank (De Sterck, Yang, Heys
 * 2006: the first pass of Ruge-Stueben coarsening inside each processor's
 * rows, then PMIS on the points the passes left; one rank leaves none).
 * The first pass (Ruge and Stueben 1987) is greedy: the undecided point of
 * the largest lambda_i = |S^T_i among undecided| + 2 |S^T_i among F| becomes
 * C, every undecided point depending on it becomes F, and the undecided
 * points those F points depend on gain 1 (they are wanted as C points), the
 * undecided points the new C point depends on lose 1. Buckets by lambda,
 * last in first out, filled in row order: deterministic. Points with no
 * strong connection are F from the start; every other F point depends on a
 * C point, as with ng_amg_pmis. */
#include "amg.h"

typedef struct {
  int32_t *next, *prev, *head, *lam;
  int32_t top;
} buckets;

static void bucket_insert(buckets *B, int32_t i, int32_t lam)
{
  B->lam[i] = lam;
  B->prev[i] = -1;
  B->next[i] = B->head[lam];
  if (B->head[lam] >= 0) B->prev[B->head[lam]] = i;
  B->head[lam] = i;
  if (lam > B->top) B->top = lam;
}

static void bucket_remove(buckets *B, int32_t i)
{
  if (B->prev[i] >= 0) B->next[B->prev[i]] = B->next[i];
  else B->head[B->lam[i]] = B->next[i];
  if (B->next[i] >= 0) B->prev[B->next[i]] = B->prev[i];
}

static void bucket_move(buckets *B, int32_t i, int32_t lam)
{
  bucket_remove(B, i);
  bucket_insert(B, i, lam < 0 ? 0 : lam);
}

/* The greedy first pass over the undecided points (cf 0). */
static void first_pass(const ng_graph *S, const ng_graph *T, int8_t *cf, buckets *B)
{
  for (;;) {
    while (B->top >= 0 && B->head[B->top] < 0) B->top--;
    if (B->top < 0) return;
    int32_t i = B->head[B->top];
    bucket_remove(B, i);
    cf[i] = 1;
    for (int64_t q = T->rowptr[i]; q < T->rowptr[i + 1]; q++) { /* j depends on i: F */
      int32_t j = T->col[q];
      if (cf[j] != 0) continue;
      bucket_remove(B, j);
      cf[j] = -1;
      for (int64_t r = S->rowptr[j]; r < S->rowptr[j + 1]; r++) {
        int32_t k = S->col[r];
        if (cf[k] == 0) bucket_move(B, k, B->lam[k] + 1);
      }
    }
    for (int64_t q = S->rowptr[i]; q < S->rowptr[i + 1]; q++) {
      int32_t k = S->col[q];
      if (cf[k] == 0) bucket_move(B, k, B->lam[k] - 1);
    }
  }
}

ng_status ng_amg_hmis(const ng_graph *S, int8_t *cf, int32_t *nc)
{
  int32_t n = S->n, maxlam = 0;
  size_t nn = n > 0 ? (size_t)n : 1;
  ng_graph T = {0};
  buckets B = {NULL, NULL, NULL, NULL, -1};
  ng_status st;
  NG_CHECK_GOTO(st, ng_graph_transpose(S, &T), out);
  for (int32_t i = 0; i < n; i++) {
    int32_t d = (int32_t)(T.rowptr[i + 1] - T.rowptr[i]);
    if (2 * d > maxlam) maxlam = 2 * d;
  }
  NG_CHECK_GOTO(st, NG_MALLOC(B.next, nn), out);
  NG_CHECK_GOTO(st, NG_MALLOC(B.prev, nn), out);
  NG_CHECK_GOTO(st, NG_MALLOC(B.lam, nn), out);
  NG_CHECK_GOTO(st, NG_MALLOC(B.head, (size_t)maxlam + 1), out);
  for (int32_t l = 0; l <= maxlam; l++) B.head[l] = -1;
  for (int32_t i = 0; i < n; i++) {
    int64_t influences = T.rowptr[i + 1] - T.rowptr[i], depends = S->rowptr[i + 1] - S->rowptr[i];
    cf[i] = influences + depends == 0 ? -1 : 0;
    if (cf[i] == 0) bucket_insert(&B, i, (int32_t)influences);
  }
  first_pass(S, &T, cf, &B);
  *nc = 0;
  for (int32_t i = 0; i < n; i++) *nc += cf[i] == 1;
out:
  ng_graph_free(&T);
  ng_free(B.next);
  ng_free(B.prev);
  ng_free(B.lam);
  ng_free(B.head);
  return st;
}
