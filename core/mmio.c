/* core/mmio.c: placeholder until the Matrix Market module lands. */
#include "internal.h"
ng_status ng_mmio_read_csr(const char *path, ng_csr *A) { return NG_ERROR(NG_ERR_UNSUPPORTED, "mmio not built"); }
ng_status ng_mmio_write_csr(const char *path, const ng_csr *A) { return NG_ERROR(NG_ERR_UNSUPPORTED, "mmio not built"); }
ng_status ng_mmio_read_array(const char *path, double **x, int32_t *n) { return NG_ERROR(NG_ERR_UNSUPPORTED, "mmio not built"); }
ng_status ng_mmio_write_array(const char *path, const double *x, int32_t n) { return NG_ERROR(NG_ERR_UNSUPPORTED, "mmio not built"); }
