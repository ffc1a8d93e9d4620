/* fuzz/fuzz_mmio_matrix.c: libFuzzer harness for the Matrix Market matrix
 * reader (ng_mmio_read_csr, core/mmio.c). Any input must give either a
 * matrix that passes ng_csr_validate (monotone rows, columns in range,
 * finite values) or a failure with a message (parse errors name the file);
 * ASan/UBSan/LSan catch the rest. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  const char *path = ng_fuzz_file(data, size);
  ng_csr A;
  ng_error_clear();
  ng_status st = ng_mmio_read_csr(path, &A);
  if (st != NG_SUCCESS) {
    ng_fuzz_check_failure(st, path);
    return 0;
  }
  if (ng_csr_validate(&A) != NG_SUCCESS) {
    fprintf(stderr, "the reader returned an invalid matrix: %s\n", ng_last_error());
    abort();
  }
  ng_csr_free(&A);
  return 0;
}
