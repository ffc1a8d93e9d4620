/* test/test_formats_gpu.c: the cases of test_formats.c run on the GPU tables
 * (every CUDA format against the host CSR reference, same relative error
 * bound 1e-12 per row). Skips with exit 77 when there is no CUDA device. */
#define NG_FORMATS_ON_GPU 1
#include "test_formats.c"
