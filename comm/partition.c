/* comm/partition.c: how whole inputs are split into contiguous row blocks:
 * by nonzeros for a matrix given whole (file or CSR on rank 0), and by
 * whole z-planes (slabs) for generated grid problems, whose natural order
 * (x fastest, z slowest) makes a slab a contiguous row range whose halo is
 * one plane on each side. */
#include "halo.h"

/* Balances rows + nonzeros (rows count too, so that empty rows are not
 * piled onto one rank): starts[r] is the first row whose prefix weight
 * reaches r/size of the total. Pure: uses only A and ctx->size. */
ng_status ng_partition_rows_by_nnz(ng_context ctx, const ng_csr *A, int64_t *starts)
{
  int size = ctx->size;
  int64_t n = A->nrows, total = A->rowptr[n] + n, i = 0;
  NG_ASSERT_ARG(starts, "ng_partition_rows_by_nnz: null starts");
  starts[0] = 0;
  for (int r = 1; r < size; r++) {
    int64_t target = (int64_t)((double)total * r / size);
    while (i < n && A->rowptr[i] + i < target) i++;
    starts[r] = i;
  }
  starts[size] = n;
  return NG_SUCCESS;
}

ng_status ng_partition_slabs(int64_t plane, int64_t nz, int size, int64_t *starts)
{
  for (int r = 0; r <= size; r++) starts[r] = plane * (nz * r / size);
  return NG_SUCCESS;
}

/* Strict: plain decimal digits only, as core/generate.c accepts; anything
 * else is left to the generator (and its message). */
int ng_partition_spec_grid(const char *spec, int64_t dims[3])
{
  const char *s = strchr(spec, ':');
  int nd = 0;
  if (!s || (s - spec == 3 && !strncmp(spec, "mps", 3))) return 0;
  s++;
  for (;;) {
    int64_t v = 0;
    if (*s < '0' || *s > '9') return 0;
    for (; *s >= '0' && *s <= '9'; s++)
      if ((v = v * 10 + (*s - '0')) > INT32_MAX) return 0;
    if (v == 0 || nd == 3) return 0;
    dims[nd++] = v;
    if (*s == '\0') break;
    if (*s++ != 'x') return 0;
  }
  if (nd == 1) dims[1] = dims[2] = dims[0];
  else if (nd != 3) return 0;
  return 1;
}

/* Rank owning global index g: the last r with starts[r] <= g (ranks with no
 * rows share their start with the next rank and are skipped). */
int ng_partition_owner(const int64_t *starts, int size, int64_t g)
{
  int lo = 0, hi = size - 1;
  while (lo < hi) {
    int mid = (lo + hi + 1) / 2;
    if (starts[mid] <= g) lo = mid; else hi = mid - 1;
  }
  return lo;
}
