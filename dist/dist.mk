# dist/dist.mk: the distributed objects, where the core meets comm/ and
# spmv/: contexts (communicator, device), matrices (local and off-rank
# blocks, halo plan), vectors, and ng_matrix_generate over ranks.
libnagare_la_SOURCES += dist/dist.h dist/dist_options.c dist/context.c dist/matrix.c dist/vector.c dist/generate_dist.c dist/matrix_halo.c dist/matrix_gather.c
if NG_CUDA
libnagare_la_SOURCES += dist/matrix_gather_cuda.cu dist/matrix_cuda.cu
endif
EXTRA_DIST += dist/matrix_rows_cuda.cuh
