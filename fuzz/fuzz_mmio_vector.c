/* fuzz/fuzz_mmio_vector.c: libFuzzer harness for the Matrix Market vector
 * reader (ng_mmio_read_array, core/mmio.c: array or one-column coordinate
 * files). Success must give n >= 0 finite values; failure a message. */
#include "fuzz_common.h"
#include <math.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  const char *path = ng_fuzz_file(data, size);
  double *x = NULL;
  int32_t n = -1;
  ng_error_clear();
  ng_status st = ng_mmio_read_array(path, &x, &n);
  if (st != NG_SUCCESS) {
    ng_fuzz_check_failure(st, path);
    if (x) { fprintf(stderr, "failed read left a vector\n"); abort(); }
    return 0;
  }
  if (n < 0 || !x) { fprintf(stderr, "success with n = %d, x = %p\n", (int)n, (void *)x); abort(); }
  for (int32_t i = 0; i < n; i++)
    if (!isfinite(x[i])) { fprintf(stderr, "value %d is not finite\n", (int)i); abort(); }
  ng_free(x);
  return 0;
}
