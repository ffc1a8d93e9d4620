/* amg/amg_aggregate.c: deterministic MIS(2)-based aggregation (Bell,
 * Dalton, Olson, "Exposing fine-grained parallelism in algebraic multigrid
 * methods", SISC 2012). Every vertex carries a 64-bit key (state, hash of
 * its index, index); two rounds of "max over the neighbours and itself" give
 * each vertex the largest key within distance 2. An undecided vertex whose
 * own key is that maximum joins the independent set; one that sees a member
 * within distance 2 leaves. The roots of the distance-2 independent set are
 * the aggregates; their neighbours join them, then the vertices two steps
 * away join a neighbour's aggregate. The hash replaces random numbers, so
 * the result depends only on the graph (not on the thread count). */
#include "amg.h"

enum { OUT = 0, UNDECIDED = 1, IN = 2 };

/* 30-bit mix of the index (splitmix64 finaliser). */
static uint64_t hash30(uint64_t x)
{
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  x ^= x >> 31;
  return x & 0x3fffffffull;
}
/* Shared with the distributed aggregation (amg_dist_aggregate.c), which keys
 * vertices by their global index so that it finds the same aggregates. */
uint64_t ng_amg_mis_key(int state, uint32_t i) { return ((uint64_t)state << 62) | (hash30((uint64_t)i) << 32) | i; }
static uint64_t key(int state, int32_t i) { return ng_amg_mis_key(state, (uint32_t)i); }
static int key_state(uint64_t k) { return (int)(k >> 62); }
static int32_t key_index(uint64_t k) { return (int32_t)(uint32_t)k; }

/* out[i] = max(in[i], in[j] for j in N(i)); also the distributed rounds'
 * (amg_dist_aggregate.c, which then exchanges the halo's) */
void ng_amg_max_neighbours(const ng_graph *S, const uint64_t *in, uint64_t *out)
{
  int32_t n = S->n;
#pragma omp parallel for schedule(static) if (n > 20000)
  for (int32_t i = 0; i < n; i++) {
    uint64_t m = in[i];
    for (int64_t k = S->rowptr[i]; k < S->rowptr[i + 1]; k++)
      if (in[S->col[k]] > m) m = in[S->col[k]];
    out[i] = m;
  }
}

void ng_amg_max_marked(const ng_graph *S, const int32_t *need, int32_t stamp, const uint64_t *in, uint64_t *out)
{
  int32_t n = S->n;
#pragma omp parallel for schedule(static) if (n > 20000)
  for (int32_t j = 0; j < n; j++) {
    if (need[j] != stamp) continue;
    uint64_t m = in[j];
    for (int64_t k = S->rowptr[j]; k < S->rowptr[j + 1]; k++)
      if (in[S->col[k]] > m) m = in[S->col[k]];
    out[j] = m;
  }
}

void ng_amg_max_listed(const ng_graph *S, const int32_t *U, int64_t nu, const uint64_t *in, uint64_t *out)
{
#pragma omp parallel for schedule(static) if (nu > 20000)
  for (int64_t u = 0; u < nu; u++) {
    int32_t i = U[u];
    uint64_t m = in[i];
    for (int64_t k = S->rowptr[i]; k < S->rowptr[i + 1]; k++)
      if (in[S->col[k]] > m) m = in[S->col[k]];
    out[i] = m;
  }
}

/* One round restricted to the undecided vertices U (late rounds, when few
 * are left): M1 only where an undecided vertex will read it. */
static void sparse_round(const ng_graph *S, const int32_t *U, int64_t nu, int32_t *need, int32_t stamp,
                         uint64_t *T, uint64_t *M1, uint64_t *M2)
{
#pragma omp parallel for schedule(static)
  for (int64_t u = 0; u < nu; u++) {
    int32_t i = U[u];
    need[i] = stamp; /* benign race: every writer stores the same value */
    for (int64_t k = S->rowptr[i]; k < S->rowptr[i + 1]; k++) {
#pragma omp atomic write
      need[S->col[k]] = stamp;
    }
  }
  ng_amg_max_marked(S, need, stamp, T, M1);
  ng_amg_max_listed(S, U, nu, M1, M2);
}

ng_status ng_amg_aggregate(const ng_graph *S, int32_t *agg, int32_t *nagg)
{
  int32_t n = S->n;
  uint64_t *T = NULL, *M1 = NULL, *M2 = NULL;
  int32_t *step = NULL, *U = NULL, *need = NULL;
  int64_t nu = n;
  ng_status st = NG_SUCCESS;
  NG_CHECK_GOTO(st, NG_MALLOC(T, n), out);
  NG_CHECK_GOTO(st, NG_MALLOC(M1, n), out);
  NG_CHECK_GOTO(st, NG_MALLOC(M2, n), out);
  NG_CHECK_GOTO(st, NG_MALLOC(U, n), out);
  NG_CHECK_GOTO(st, NG_CALLOC(need, n), out);
  /* vertices without strong neighbours take no part */
#pragma omp parallel for schedule(static) if (n > 20000)
  for (int32_t i = 0; i < n; i++) T[i] = key(S->rowptr[i + 1] > S->rowptr[i] ? UNDECIDED : OUT, i);
  for (int round = 0;; round++) {
    /* few undecided left: only their distance-2 neighbourhoods are read */
    int sparse = nu < n / 16;
    if (sparse) sparse_round(S, U, nu, need, round + 1, T, M1, M2);
    else {
      ng_amg_max_neighbours(S, T, M1);
      ng_amg_max_neighbours(S, M1, M2);
    }
    int64_t undecided = 0;
    if (sparse) {
      for (int64_t u = 0; u < nu; u++) { /* serial: keeps U in order */
        int32_t i = U[u];
        if (key_index(M2[i]) == i) T[i] = key(IN, i);
        else if (key_state(M2[i]) == IN) T[i] = key(OUT, i);
        else U[undecided++] = i;
      }
    } else {
#pragma omp parallel for schedule(static) reduction(+ : undecided) if (n > 20000)
      for (int32_t i = 0; i < n; i++) {
        if (key_state(T[i]) != UNDECIDED) continue;
        if (key_index(M2[i]) == i) T[i] = key(IN, i);
        else if (key_state(M2[i]) == IN) T[i] = key(OUT, i);
        else undecided++;
      }
      if (undecided < n / 16) { /* list them for the sparse rounds */
        int64_t k = 0;
        for (int32_t i = 0; i < n; i++)
          if (key_state(T[i]) == UNDECIDED) U[k++] = i;
      }
    }
    nu = undecided;
    if (!undecided) break;
    if (round > n) { /* the global maximum joins every round, so this cannot happen */
      st = NG_ERROR(NG_ERR_INTERNAL, "MIS(2) aggregation did not finish after %d rounds", round);
      goto out;
    }
  }
  /* roots numbered in index order */
  int32_t count = 0;
  for (int32_t i = 0; i < n; i++) agg[i] = key_state(T[i]) == IN ? count++ : -1;
  /* neighbours of a root join it (two roots are never adjacent to one vertex
   * in a symmetric graph; the first in column order wins otherwise) */
  NG_CHECK_GOTO(st, NG_MALLOC(step, n), out);
#pragma omp parallel for schedule(static) if (n > 20000)
  for (int32_t i = 0; i < n; i++) {
    step[i] = agg[i];
    if (agg[i] >= 0) continue;
    for (int64_t k = S->rowptr[i]; k < S->rowptr[i + 1]; k++)
      if (key_state(T[S->col[k]]) == IN) {
        step[i] = agg[S->col[k]];
        break;
      }
  }
  /* the rest joins the aggregate of its first assigned neighbour */
#pragma omp parallel for schedule(static) if (n > 20000)
  for (int32_t i = 0; i < n; i++) {
    agg[i] = step[i];
    if (step[i] >= 0) continue;
    for (int64_t k = S->rowptr[i]; k < S->rowptr[i + 1]; k++)
      if (step[S->col[k]] >= 0) {
        agg[i] = step[S->col[k]];
        break;
      }
  }
  /* left over only in a nonsymmetric graph: own aggregates */
  for (int32_t i = 0; i < n; i++)
    if (agg[i] < 0 && S->rowptr[i + 1] > S->rowptr[i]) agg[i] = count++;
  *nagg = count;
out:
  ng_free(T);
  ng_free(M1);
  ng_free(M2);
  ng_free(step);
  ng_free(U);
  ng_free(need);
  return st;
}
