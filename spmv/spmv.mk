# spmv/spmv.mk: the SpMV format registry and one file per format.
libnagare_la_SOURCES += spmv/registry.c spmv/csr.c
if NG_CUDA
libnagare_la_SOURCES += spmv/csr_cuda.cu
endif
