# spmv/spmv.mk: the SpMV format registry and one file per format.
libnagare_la_SOURCES += spmv/spmv.h spmv/spmv_options.c spmv/registry.c spmv/csr.c
# the off-rank block's CSR over its non-empty rows (dist/matrix.c)
libnagare_la_SOURCES += spmv/csr_rows.c
if NG_CUDA
libnagare_la_SOURCES += spmv/csr_cuda.cu spmv/csr_rows_cuda.cu
endif
# SpMV formats (issue 5): DIA full/half, ELL, ELLR, SELL-C-sigma, auto.
libnagare_la_SOURCES += spmv/formats.h spmv/dia.c spmv/ell.c spmv/sell.c spmv/autotune.c
# auto from a structural profile (issue 13 item 4): lower bounds, then conversions that can win.
libnagare_la_SOURCES += spmv/autotune.h spmv/autotune_predict.c
# CoD-SELL (issue 13): host converters and reference, the GPU converter and SpMV.
libnagare_la_SOURCES += spmv/codsell_core.h spmv/codsell.c
if NG_CUDA
libnagare_la_SOURCES += spmv/dia_cuda.cu spmv/ell_cuda.cu spmv/sell_cuda.cu spmv/autotune_cuda.cu
libnagare_la_SOURCES += spmv/convert_cuda.h spmv/convert_cuda.cu spmv/codsell_cuda.cu
libnagare_la_SOURCES += spmv/autotune_profile_cuda.cu
endif
if NG_CHECK
check_PROGRAMS += test/test_formats
test_test_formats_SOURCES = test/test_formats.c
test_test_formats_CFLAGS = $(NG_TEST_CFLAGS)
test_test_formats_LDADD = $(NG_TEST_LDADD)
TESTS += test/test_formats
check_PROGRAMS += test/test_formats_gpu
test_test_formats_gpu_SOURCES = test/test_formats_gpu.c test/formats_cuda_host.h
EXTRA_test_test_formats_gpu_SOURCES = test/test_formats.c
test_test_formats_gpu_CFLAGS = $(NG_TEST_CFLAGS)
if NG_CUDA
# The GPU converters' results in host containers: test code, built for make check only.
check_LTLIBRARIES += test/libformats_cuda_host.la
test_libformats_cuda_host_la_SOURCES = test/formats_cuda_host.cu
test_test_formats_gpu_LDADD = test/libformats_cuda_host.la $(NG_TEST_LDADD)
else
test_test_formats_gpu_LDADD = $(NG_TEST_LDADD)
endif
TESTS += test/test_formats_gpu
endif
if NG_CHECK
check_PROGRAMS += test/test_codsell
test_test_codsell_SOURCES = test/test_codsell.c
test_test_codsell_CFLAGS = $(NG_TEST_CFLAGS)
test_test_codsell_LDADD = $(NG_TEST_LDADD)
TESTS += test/test_codsell
endif
