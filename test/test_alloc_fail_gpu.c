/* test/test_alloc_fail_gpu.c: test_alloc_fail.c's walk on a GPU context:
 * every device allocation (NG_FAIL_ALLOC_DEVICE), then every host one.
 * Skips with exit 77 when there is no CUDA device. */
#define NG_ALLOC_FAIL_ON_GPU 1
#include "test_alloc_fail.c"
