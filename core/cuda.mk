# core/cuda.mk: the CUDA sources of the core (device context, vector kernels).
if NG_CUDA
libnagare_la_SOURCES += core/cuda_internal.h core/cuda_context.cu core/cuda_keep_pool.cu core/vec_cuda.cu
endif
