/* test/test_numeric_gpu.c: test_numeric.c's numeric faults on GPU contexts
 * (one rank here; on two with mpi-run.sh 2 test/test_numeric_gpu). Skips
 * with exit 77 when there is no CUDA device. */
#define NG_NUMERIC_ON_GPU 1
#include "test_numeric.c"
