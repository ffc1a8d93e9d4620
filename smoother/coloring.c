/* smoother/coloring.c: graph coloring for the multicolor Gauss-Seidel
 * smoothers (METHODS.md section 4). The graph is the symmetric closure of
 * the level's pattern (or of its strong couplings, for modified MCGS); the
 * coloring is Jones-Plassmann-Luby (Jones and Plassmann 1993, Luby 1986):
 * rounds in which every uncolored vertex that beats all its uncolored
 * neighbours by key takes the smallest color its colored neighbours lack.
 * JPL is the sequential first-fit coloring in key order, so the key order
 * decides the colors (smoother.h): the finest level takes the row index
 * order (the seed's greedy: 8 colors on 27-point grids), coarse levels
 * largest-degree-first keys (Welsh-Powell order, as the seed did on the
 * irregular coarse levels), hashed keys remain for tests and comparisons.
 * A round reads only the previous rounds' colors, so the result depends on
 * the graph alone: this host reference and the GPU version (coloring_cuda.cu)
 * give identical colors. The index order runs here as the plain sequential
 * loop (the same result as JPL, without its hundreds of rounds). */
#include "smoother.h"
#include <math.h>

static uint32_t hash32(uint32_t x)
{
  x ^= x >> 16;
  x *= 0x7feb352dU;
  x ^= x >> 15;
  x *= 0x846ca68bU;
  x ^= x >> 16;
  return x;
}

uint64_t ng_coloring_key(int order, int64_t degree, uint32_t i)
{
  if (order == NG_COLOR_NATURAL) return ~(uint64_t)i; /* the lowest index first */
  if (order != NG_COLOR_LDF) return ((uint64_t)hash32(i) << 32) | i;
  uint64_t d = degree < (1 << 20) ? (uint64_t)degree : (1u << 20) - 1;
  return (d << 43) | ((uint64_t)(hash32(i) & 0xfffu) << 31) | i;
}

static int cmp_i32(const void *a, const void *b)
{
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* 1 when every row is sorted and the pattern is symmetric (binary search of i in row j for every a_ij). */
static int sorted_symmetric(const ng_csr *A)
{
  int32_t n = A->nrows;
  int ok = A->ncols == n;
#pragma omp parallel for schedule(static) reduction(&& : ok) if (n > 20000)
  for (int32_t i = 0; i < n; i++) {
    for (int64_t k = A->rowptr[i]; ok && k < A->rowptr[i + 1]; k++) {
      int32_t j = A->col[k];
      if (k > A->rowptr[i] && A->col[k - 1] >= j) ok = 0;
      else if (j >= 0 && j < n && j != i) {
        int64_t lo = A->rowptr[j], hi = A->rowptr[j + 1];
        while (lo < hi) {
          int64_t mid = lo + (hi - lo) / 2;
          if (A->col[mid] < i) lo = mid + 1;
          else hi = mid;
        }
        ok = lo < A->rowptr[j + 1] && A->col[lo] == i;
      }
    }
  }
  return ok;
}

ng_status ng_coloring_graph(const ng_csr *A, double theta, ng_graph *G)
{
  if (theta <= 0 && sorted_symmetric(A)) { /* the usual case: the pattern without its diagonal, in parallel */
    int32_t n = A->nrows;
    memset(G, 0, sizeof(*G));
    NG_CHECK(NG_MALLOC(G->rowptr, (size_t)n + 1));
    G->n = n;
    G->rowptr[0] = 0;
#pragma omp parallel for schedule(static) if (n > 20000)
    for (int32_t i = 0; i < n; i++) {
      int64_t c = 0;
      for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++) c += A->col[k] != i;
      G->rowptr[i + 1] = c;
    }
    for (int32_t i = 0; i < n; i++) G->rowptr[i + 1] += G->rowptr[i];
    ng_status st = NG_MALLOC(G->col, G->rowptr[n] ? G->rowptr[n] : 1);
    if (st) {
      ng_graph_free(G);
      return ng_error_trace(st, __FILE__, __LINE__);
    }
#pragma omp parallel for schedule(static) if (n > 20000)
    for (int32_t i = 0; i < n; i++) {
      int64_t p = G->rowptr[i];
      for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
        if (A->col[k] != i) G->col[p++] = A->col[k];
    }
    return NG_SUCCESS;
  }
  /* general: the symmetric closure, rows sorted and deduplicated */
  int32_t n = A->nrows;
  double *d = NULL;
  int64_t *cnt = NULL, *pos = NULL;
  int32_t *adj = NULL;
  ng_status st = NG_SUCCESS;
  memset(G, 0, sizeof(*G));
  if (theta > 0) {
    NG_CHECK(NG_MALLOC(d, n));
    NG_CHECK_GOTO(st, ng_csr_diagonal(A, d, 1), out);
  }
#define KEEP(i, k) (A->col[k] != (i) && A->col[k] < n && (!d || fabs(A->val[k]) > theta * fabs(d[i])))
  /* every kept (i, j) in row i and in row j; sorted and deduplicated below */
  NG_CHECK_GOTO(st, NG_CALLOC(cnt, (size_t)n + 1), out);
  for (int32_t i = 0; i < n; i++)
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      if (KEEP(i, k)) {
        cnt[i + 1]++;
        cnt[A->col[k] + 1]++;
      }
  for (int32_t i = 0; i < n; i++) cnt[i + 1] += cnt[i];
  NG_CHECK_GOTO(st, NG_MALLOC(adj, cnt[n]), out);
  NG_CHECK_GOTO(st, NG_MALLOC(pos, n), out);
  for (int32_t i = 0; i < n; i++) pos[i] = cnt[i];
  for (int32_t i = 0; i < n; i++)
    for (int64_t k = A->rowptr[i]; k < A->rowptr[i + 1]; k++)
      if (KEEP(i, k)) {
        adj[pos[i]++] = A->col[k];
        adj[pos[A->col[k]]++] = i;
      }
#undef KEEP
  /* sort and deduplicate each row in place; pos[i] = its new length */
#pragma omp parallel for schedule(dynamic, 1024) if (n > 20000)
  for (int32_t i = 0; i < n; i++) {
    int32_t *r = adj + cnt[i];
    int64_t len = cnt[i + 1] - cnt[i], m = 0;
    qsort(r, (size_t)len, sizeof(int32_t), cmp_i32);
    for (int64_t k = 0; k < len; k++)
      if (m == 0 || r[m - 1] != r[k]) r[m++] = r[k];
    pos[i] = m;
  }
  NG_CHECK_GOTO(st, NG_MALLOC(G->rowptr, (size_t)n + 1), out);
  G->n = n;
  G->rowptr[0] = 0;
  for (int32_t i = 0; i < n; i++) G->rowptr[i + 1] = G->rowptr[i] + pos[i];
  NG_CHECK_GOTO(st, NG_MALLOC(G->col, G->rowptr[n]), out);
#pragma omp parallel for schedule(static) if (n > 20000)
  for (int32_t i = 0; i < n; i++) memcpy(G->col + G->rowptr[i], adj + cnt[i], (size_t)pos[i] * sizeof(int32_t));
out:
  ng_free(d);
  ng_free(cnt);
  ng_free(pos);
  ng_free(adj);
  if (st) ng_graph_free(G);
  return st;
}

/* The smallest color none of v's colored neighbours has. */
static int32_t first_free(const ng_graph *G, int32_t v, const int32_t *color)
{
  for (int32_t base = 0;; base += 64) {
    uint64_t used = 0;
    for (int64_t k = G->rowptr[v]; k < G->rowptr[v + 1]; k++) {
      int32_t c = color[G->col[k]] - base;
      if (c >= 0 && c < 64) used |= 1ull << c;
    }
    if (~used) return base + __builtin_ctzll(~used);
  }
}

/* First-fit in row order (NG_COLOR_NATURAL): row v's color avoids its lower neighbours' only. */
static void color_natural(const ng_graph *G, int32_t *color, int *ncolors)
{
  int32_t most = -1;
  for (int32_t v = 0; v < G->n; v++) color[v] = -1;
  for (int32_t v = 0; v < G->n; v++) {
    color[v] = first_free(G, v, color);
    if (color[v] > most) most = color[v];
  }
  *ncolors = most + 1;
}

static ng_status color_host(ng_context ctx, const ng_graph *G, int order, int32_t *color, int *ncolors)
{
  int32_t n = G->n, *next = NULL;
  if (order == NG_COLOR_NATURAL) {
    color_natural(G, color, ncolors);
    return NG_SUCCESS;
  }
  uint64_t *key = NULL;
  NG_CHECK(NG_MALLOC(key, n));
  ng_status st = NG_MALLOC(next, n);
  if (st) {
    ng_free(key);
    return ng_error_trace(st, __FILE__, __LINE__);
  }
#pragma omp parallel for schedule(static) if (n > 20000)
  for (int32_t i = 0; i < n; i++) {
    key[i] = ng_coloring_key(order, G->rowptr[i + 1] - G->rowptr[i], (uint32_t)i);
    color[i] = -1;
  }
  int64_t left = n;
  int32_t most = -1;
  while (left > 0) {
    /* decide from the colors of the previous rounds, then commit */
#pragma omp parallel for schedule(dynamic, 2048) if (n > 20000)
    for (int32_t v = 0; v < n; v++) {
      next[v] = -1;
      if (color[v] >= 0) continue;
      int win = 1;
      for (int64_t k = G->rowptr[v]; k < G->rowptr[v + 1] && win; k++) {
        int32_t u = G->col[k];
        win = color[u] >= 0 || key[u] < key[v];
      }
      if (win) next[v] = first_free(G, v, color);
    }
    int64_t done = 0;
#pragma omp parallel for schedule(static) reduction(+ : done) reduction(max : most) if (n > 20000)
    for (int32_t v = 0; v < n; v++)
      if (next[v] >= 0) {
        color[v] = next[v];
        done++;
        if (next[v] > most) most = next[v];
      }
    left -= done;
  }
  *ncolors = most + 1;
  ng_free(key);
  ng_free(next);
  return NG_SUCCESS;
}

const ng_coloring_ops ng_coloring_host = {.name = "host", .color = color_host};
