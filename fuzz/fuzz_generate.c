/* fuzz/fuzz_generate.c: libFuzzer harness for the generator specs
 * (ng_generate_csr, core/generate.c; and the grid-spec parser behind
 * ng_matrix_generate's slabs, ng_partition_spec_grid in comm/partition.c).
 * A generated matrix must pass ng_csr_validate with a finite b.
 *
 * Size cap (here only, not in the library): a valid spec such as
 * lap27:100000 asks for the memory it needs, which a fuzzer cannot give, so
 * specs whose row count would exceed NG_FUZZ_MAX_ROWS are skipped before the
 * call. The estimate takes the decimal numbers of the sizes' field, between
 * the first ':' and the next (N alone means N^3 rows, N^2 for the 2-D
 * problems, mps:N about 8 N^3 particles; NXxNYxNZ their product): a later
 * field is a parameter (a seed, a ratio, ":neumann"), not a size
 * (p1tet:127:27, 2M nodes counted as 127 x 27, took the fuzzer past its
 * limit when they were multiplied in). A number with more significant
 * digits than a size can have is kept, as the generator must refuse it
 * without allocating (leading zeros do not count: mps:00000000120, 13.8M
 * particles, took the fuzzer past its 25 s limit when they did). */
#include "fuzz_common.h"
#include <math.h>

#define NG_FUZZ_MAX_ROWS 20000.0

int ng_partition_spec_grid(const char *spec, int64_t dims[3]); /* comm/halo.h (MPI-free part) */

static int too_large(const char *spec)
{
  const char *s = strchr(spec, ':');
  double prod = 1.0, first = 0.0;
  int count = 0;
  if (!s) return 0;
  for (s++; *s && *s != ':';) {
    if (*s < '0' || *s > '9') { s++; continue; }
    double v = 0.0;
    int digits = 0; /* significant ones: "00000000120" is 120 to the parser */
    for (; *s >= '0' && *s <= '9'; s++) {
      if (digits || *s != '0') digits++;
      v = v * 10.0 + (*s - '0');
    }
    if (digits > 10) return 0; /* beyond int32: refused while parsing */
    if (count++ == 0) first = v;
    prod *= v;
  }
  static const char *const planar[] = {"jump2q1:", "bubbles5:", "het5:", "rotaniso:"};
  int two = 0;
  for (size_t k = 0; k < sizeof(planar) / sizeof(planar[0]); k++) two |= !strncmp(spec, planar[k], strlen(planar[k]));
  if (count == 1) prod = (strncmp(spec, "mps:", 4) == 0 ? 8.0 : 1.0) * first * first * (two ? 1.0 : first);
  return prod > NG_FUZZ_MAX_ROWS;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
  char *spec = malloc(size + 1);
  memcpy(spec, data, size);
  spec[size] = '\0';
  int64_t dims[3];
  (void)ng_partition_spec_grid(spec, dims);
  if (too_large(spec)) {
    free(spec);
    return 0;
  }
  ng_csr A;
  double *b = NULL;
  ng_error_clear();
  ng_status st = ng_generate_csr(spec, &A, &b);
  if (st != NG_SUCCESS) {
    ng_fuzz_check_failure(st, NULL);
    if (b || A.rowptr) { fprintf(stderr, "failed generator left output\n"); abort(); }
  } else {
    if (ng_csr_validate(&A) != NG_SUCCESS) { fprintf(stderr, "invalid matrix: %s\n", ng_last_error()); abort(); }
    for (int32_t i = 0; i < A.nrows; i++)
      if (!isfinite(b[i])) { fprintf(stderr, "b[%d] not finite\n", (int)i); abort(); }
    ng_csr_free(&A);
    ng_free(b);
  }
  free(spec);
  return 0;
}
