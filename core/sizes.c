/* core/sizes.c: 64-bit size arithmetic and 32/64-bit offset conversion for
 * big matrices (see sizes.h). */
#include "sizes.h"

int64_t ng_ceil_div64(int64_t n, int64_t d) { return n <= 0 ? 0 : n / d + (n % d != 0); }

int ng_csr_needs_offsets64(int64_t nnz) { return nnz > NG_INDEX32_MAX; }

ng_status ng_grid_blocks(int64_t n, int threads, const char *what, unsigned *blocks)
{
  NG_ASSERT_ARG(threads > 0 && blocks, "ng_grid_blocks: bad arguments");
  int64_t b = ng_ceil_div64(n, threads);
  if (b > NG_GRID_X_MAX)
    return NG_ERROR(NG_ERR_UNSUPPORTED, "%s: %lld items need %lld blocks of %d threads, more than the %lld a grid holds",
                    what, (long long)n, (long long)b, threads, (long long)NG_GRID_X_MAX);
  *blocks = b < 1 ? 1u : (unsigned)b;
  return NG_SUCCESS;
}

ng_status ng_require_index32(int64_t count, const char *what, const char *hint)
{
  if (count >= 0 && count <= NG_INDEX32_MAX) return NG_SUCCESS;
  return NG_ERROR(NG_ERR_UNSUPPORTED, "%s: %lld entries, more than the 2^31 - 1 = %lld that its 32-bit indices address%s%s",
                  what, (long long)count, (long long)NG_INDEX32_MAX, hint ? "; " : "", hint ? hint : "");
}

ng_status ng_mul_checked(int64_t a, int64_t b, const char *what, int64_t *out)
{
  NG_ASSERT_ARG(a >= 0 && b >= 0 && out, "ng_mul_checked: negative size or null result");
  if (a != 0 && b > INT64_MAX / a)
    return NG_ERROR(NG_ERR_UNSUPPORTED, "%s: %lld x %lld entries overflow a 64-bit count", what, (long long)a,
                    (long long)b);
  *out = a * b;
  return NG_SUCCESS;
}

ng_status ng_offsets_narrow(const int64_t *src, int64_t count, int32_t *dst)
{
  for (int64_t k = 0; k < count; k++) {
    if (src[k] < 0 || src[k] > NG_INDEX32_MAX)
      return NG_ERROR(NG_ERR_UNSUPPORTED, "row offset %lld is %lld, outside the 0..2^31 - 1 of 32-bit offsets",
                      (long long)k, (long long)src[k]);
    dst[k] = (int32_t)src[k];
  }
  return NG_SUCCESS;
}

void ng_offsets_widen(const int32_t *src, int64_t count, int64_t *dst)
{
  for (int64_t k = 0; k < count; k++) dst[k] = src[k];
}

size_t ng_csr_device_bytes(int32_t nrows, int64_t nnz, int offsets64)
{
  size_t off = offsets64 ? sizeof(int64_t) : sizeof(int32_t);
  return ((size_t)nrows + 1) * off + (size_t)nnz * (sizeof(int32_t) + sizeof(double));
}
