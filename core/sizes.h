/* core/sizes.h: the size and offset arithmetic of big matrices (issue 16
 * item 6), in plain C so that the Check suite tests it on the CPU with fake
 * sizes past 2^31 without allocating them. Device code asks here which
 * offset width a CSR needs, how many blocks cover n items, and refuses
 * (NG_ERR_UNSUPPORTED naming the limit) what its 32-bit indices cannot
 * address, before it allocates or launches anything. */
#ifndef NG_SIZES_H
#define NG_SIZES_H
#include "core.h"

#ifdef __cplusplus
extern "C" {
#endif

#define NG_INDEX32_MAX ((int64_t)INT32_MAX)    /* largest entry count a 32-bit index addresses */
#define NG_GRID_X_MAX ((int64_t)2147483647)    /* CUDA's limit on gridDim.x */

/* ceil(n / d) for n >= 0, d > 0, without the n + d - 1 overflow. */
int64_t ng_ceil_div64(int64_t n, int64_t d);
/* 1 when a CSR of nnz entries needs 64-bit row offsets (nnz > 2^31 - 1). */
int ng_csr_needs_offsets64(int64_t nnz);
/* Blocks of `threads` covering n items (1 for n <= 0, so a launch stays
 * valid); NG_ERR_UNSUPPORTED naming `what` past CUDA's grid limit. */
ng_status ng_grid_blocks(int64_t n, int threads, const char *what, unsigned *blocks);
/* NG_ERR_UNSUPPORTED "<what>: <count> entries, more than the 2^31 - 1 ..."
 * when count does not fit a 32-bit index; hint (may be NULL) is appended. */
ng_status ng_require_index32(int64_t count, const char *what, const char *hint);
/* *out = a * b for a, b >= 0; NG_ERR_UNSUPPORTED naming `what` when the
 * product passes 2^63 - 1 (e.g. rows x width of an ELL layout). */
ng_status ng_mul_checked(int64_t a, int64_t b, const char *what, int64_t *out);
/* dst[k] = src[k] for k < count: 64-bit offsets narrowed to 32 bits;
 * NG_ERR_UNSUPPORTED (dst partly written) at the first one past 2^31 - 1
 * or below 0. */
ng_status ng_offsets_narrow(const int64_t *src, int64_t count, int32_t *dst);
/* dst[k] = src[k] for k < count: 32-bit offsets widened to 64 bits. */
void ng_offsets_widen(const int32_t *src, int64_t count, int64_t *dst);
/* Device bytes of a CSR with nrows rows and nnz entries: row offsets of 8
 * bytes (offsets64) or 4, 32-bit columns, double values. */
size_t ng_csr_device_bytes(int32_t nrows, int64_t nnz, int offsets64);

#ifdef __cplusplus
}
#endif
#endif /* NG_SIZES_H */
