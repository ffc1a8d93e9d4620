/* test/amg_cuda_host.h: what the GPU AMG tests read from the device state
 * of a hierarchy (test/amg_cuda_host.cu, CUDA builds only; linked into
 * test_amg_gpu and test_amg_cycle_gpu). */
#ifndef NG_TEST_AMG_CUDA_HOST_H
#define NG_TEST_AMG_CUDA_HOST_H
#include "../amg/amg.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Level l's P, R and (Ac != NULL) Galerkin product A_c as built on the GPU,
 * downloaded into host CSRs (freed with ng_csr_free); NG_ERR_ARGUMENT when
 * level l was not built on the GPU. */
ng_status ng_amg_gpu_download(ng_amg *M, int l, ng_csr *P, ng_csr *R, ng_csr *Ac);
/* -amg_cuda_graph: graph launches so far; *broken = 1 when a capture failed. */
long ng_amg_graph_launches(ng_amg *M, int *broken);

#ifdef __cplusplus
}
#endif
#endif /* NG_TEST_AMG_CUDA_HOST_H */
