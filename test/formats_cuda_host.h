/* test/formats_cuda_host.h: the GPU converters' results in host containers
 * (test/formats_cuda_host.cu, CUDA builds only), for test_formats_gpu to
 * compare with the host converters byte for byte. */
#ifndef NG_TEST_FORMATS_CUDA_HOST_H
#define NG_TEST_FORMATS_CUDA_HOST_H
#include "../spmv/formats.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The same structures the host converters build, built on the device from a
 * CSR uploaded from A and downloaded into host containers (freed with
 * ng_dia_free, ng_ell_free, ng_sell_free, ng_codsell_free); the same
 * refusals as the host converters. */
ng_status ng_codsell_build_cuda_host(ng_context ctx, const ng_csr *A, const ng_spmv_opts *o, ng_codsell *S);
ng_status ng_sell_build_cuda_host(ng_context ctx, const ng_csr *A, const ng_spmv_opts *o, ng_sell *S);
ng_status ng_ell_build_cuda_host(ng_context ctx, const ng_csr *A, int ellr, const ng_spmv_opts *o, ng_ell *E);
ng_status ng_dia_build_cuda_host(ng_context ctx, const ng_csr *A, int half, const ng_spmv_opts *o, ng_dia *D);

#ifdef __cplusplus
}
#endif
#endif /* NG_TEST_FORMATS_CUDA_HOST_H */
