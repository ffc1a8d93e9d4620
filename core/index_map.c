/* core/index_map.c: the sorted distinct values of a list of 64-bit indices
 * (halo columns, coarse columns met on a rank) and a lookup from a value to
 * its position in that sorted list. Lists hold many repeats of few values
 * (a boundary column appears once per row that couples to it), so the
 * values are deduplicated by an open-addressing hash table that grows with
 * the distinct count, only the distinct ones are sorted, and a lookup is one
 * probe sequence instead of a binary search. */
#include "core.h"

int ng_cmp_int64(const void *a, const void *b)
{
  int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
  return (x > y) - (x < y);
}

static int64_t slot_of(int64_t g, int64_t mask) { return (int64_t)(((uint64_t)g * 0x9e3779b97f4a7c15ull) >> 20) & mask; }

/* Table of cap (a power of 2) empty slots. */
static ng_status table_alloc(ng_index_map *M, int64_t cap)
{
  int64_t *key = NULL;
  int32_t *pos = NULL;
  ng_status st = NG_MALLOC(key, cap);
  if (!st) st = NG_MALLOC(pos, cap);
  if (st) {
    ng_free(key);
    ng_free(pos);
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  for (int64_t s = 0; s < cap; s++) key[s] = -1;
  M->key = key;
  M->pos = pos;
  M->mask = cap - 1;
  return NG_SUCCESS;
}

/* g's slot: where it is, or the empty one where it goes. */
static int64_t probe(const ng_index_map *M, int64_t g)
{
  int64_t s = slot_of(g, M->mask);
  while (M->key[s] >= 0 && M->key[s] != g) s = (s + 1) & M->mask;
  return s;
}

/* Twice the slots, the keys moved over (at half load). */
static ng_status grow(ng_index_map *M)
{
  int64_t *old = M->key, cap = 2 * (M->mask + 1);
  ng_free(M->pos);
  M->key = NULL;
  M->pos = NULL;
  ng_status st = table_alloc(M, cap);
  if (st) {
    ng_free(old);
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  for (int64_t s = 0; s < cap / 2; s++)
    if (old[s] >= 0) M->key[probe(M, old[s])] = old[s];
  ng_free(old);
  return NG_SUCCESS;
}

ng_status ng_index_map_build(ng_index_map *M, const int64_t *v, int64_t count)
{
  ng_status st;
  memset(M, 0, sizeof(*M));
  NG_CHECK_GOTO(st, table_alloc(M, 1024), fail);
  for (int64_t p = 0; p < count; p++) {
    int64_t s = probe(M, v[p]);
    if (M->key[s] == v[p]) continue;
    M->key[s] = v[p];
    if (++M->n > INT32_MAX / 2) {
      st = NG_ERROR(NG_ERR_UNSUPPORTED, "more than 2^30 distinct indices in one map");
      goto fail;
    }
    if (2 * (int64_t)M->n > M->mask) NG_CHECK_GOTO(st, grow(M), fail);
  }
  NG_CHECK_GOTO(st, NG_MALLOC(M->sorted, M->n), fail);
  int32_t k = 0;
  for (int64_t s = 0; s <= M->mask; s++)
    if (M->key[s] >= 0) M->sorted[k++] = M->key[s];
  qsort(M->sorted, (size_t)M->n, sizeof(int64_t), ng_cmp_int64);
  for (int32_t q = 0; q < M->n; q++) M->pos[probe(M, M->sorted[q])] = q;
  return NG_SUCCESS;
fail:
  ng_index_map_free(M);
  return st;
}

int32_t ng_index_map_find(const ng_index_map *M, int64_t g)
{
  int64_t s = probe(M, g);
  return M->key[s] == g ? M->pos[s] : -1;
}

void ng_index_map_free(ng_index_map *M)
{
  ng_free(M->key);
  ng_free(M->pos);
  ng_free(M->sorted);
  memset(M, 0, sizeof(*M));
}
