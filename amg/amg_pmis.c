/* amg/amg_pmis.c: PMIS C/F splitting (De Sterck, Yang, Heys, "Reducing
 * complexity in parallel algebraic multigrid preconditioners", SIAM J.
 * Matrix Anal. Appl. 27, 2006). Measure w_i = |S^T_i| + a hash of i in
 * [0, 1), so a run repeats bit for bit (and for any thread count: every
 * round reads the states of the round before). Each round:
 *   1. the undecided points whose measure beats every undecided neighbour
 *      in S_i + S^T_i (ties by index) become C: an independent set;
 *   2. the undecided points with a new C point in S_i become F.
 * Points with no strong connection at all are F from the start (the
 * smoother takes them). Unlike hypre, a point that influences nobody is
 * not made F at once: it stays undecided until one of its influences is C,
 * or it is a local maximum itself, so every other F point has a C point in
 * S_i (what direct interpolation needs). */
#include "amg.h"

double ng_amg_pmis_random(int32_t i)
{
  uint64_t x = (uint64_t)(uint32_t)i + 0x9e3779b97f4a7c15ull; /* splitmix64 finalizer */
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  x ^= x >> 31;
  return (double)(x >> 11) * 0x1.0p-53;
}

/* 1 when j, undecided, beats i: a larger measure, or the same and a larger index. */
static int beats(const double *w, const int8_t *cf, int32_t j, int32_t i)
{
  return cf[j] == 0 && (w[j] > w[i] || (w[j] == w[i] && j > i));
}

static int local_max(const ng_graph *S, const ng_graph *T, const double *w, const int8_t *cf, int32_t i)
{
  for (int64_t k = S->rowptr[i]; k < S->rowptr[i + 1]; k++)
    if (beats(w, cf, S->col[k], i)) return 0;
  for (int64_t k = T->rowptr[i]; k < T->rowptr[i + 1]; k++)
    if (beats(w, cf, T->col[k], i)) return 0;
  return 1;
}

/* The rounds over the undecided list U (nu of them); cf holds 0 for them. */
static void rounds(const ng_graph *S, const ng_graph *T, const double *w, int8_t *cf, int8_t *newc, int32_t *U,
                   int32_t nu)
{
  while (nu > 0) {
#pragma omp parallel for schedule(static) if (nu > 20000)
    for (int32_t q = 0; q < nu; q++) newc[U[q]] = (int8_t)local_max(S, T, w, cf, U[q]);
    for (int32_t q = 0; q < nu; q++)
      if (newc[U[q]]) cf[U[q]] = 1;
#pragma omp parallel for schedule(static) if (nu > 20000)
    for (int32_t q = 0; q < nu; q++) {
      int32_t i = U[q];
      if (cf[i]) continue;
      for (int64_t k = S->rowptr[i]; k < S->rowptr[i + 1]; k++)
        if (newc[S->col[k]]) {
          cf[i] = -1;
          break;
        }
    }
    for (int32_t q = 0; q < nu; q++) newc[U[q]] = 0;
    int32_t m = 0;
    for (int32_t q = 0; q < nu; q++)
      if (cf[U[q]] == 0) U[m++] = U[q];
    nu = m;
  }
}

ng_status ng_amg_pmis(const ng_graph *S, int8_t *cf, int32_t *nc)
{
  int32_t n = S->n, nu = 0;
  ng_graph T = {0};
  double *w = NULL;
  int32_t *U = NULL;
  int8_t *newc = NULL;
  ng_status st;
  NG_CHECK_GOTO(st, ng_graph_transpose(S, &T), out);
  NG_CHECK_GOTO(st, NG_MALLOC(w, n > 0 ? n : 1), out);
  NG_CHECK_GOTO(st, NG_MALLOC(U, n > 0 ? n : 1), out);
  NG_CHECK_GOTO(st, NG_CALLOC(newc, n > 0 ? n : 1), out);
  for (int32_t i = 0; i < n; i++) {
    int64_t influences = T.rowptr[i + 1] - T.rowptr[i], depends = S->rowptr[i + 1] - S->rowptr[i];
    w[i] = (double)influences + ng_amg_pmis_random(i);
    cf[i] = influences + depends == 0 ? -1 : 0;
    if (cf[i] == 0) U[nu++] = i;
  }
  rounds(S, &T, w, cf, newc, U, nu);
  *nc = 0;
  for (int32_t i = 0; i < n; i++) *nc += cf[i] == 1;
out:
  ng_graph_free(&T);
  ng_free(w);
  ng_free(U);
  ng_free(newc);
  return st;
}
