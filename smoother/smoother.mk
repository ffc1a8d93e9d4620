# smoother/smoother.mk: the AMG smoothers (one ops table each: Jacobi,
# Chebyshev, multicolor Gauss-Seidel) and the graph colorings of MCGS.
libnagare_la_SOURCES += smoother/smoother.h smoother/level.h smoother/smoother_level.c smoother/smoother_options.c smoother/smoother_jacobi.c smoother/smoother_mcgs.c \
  smoother/smoother_chebyshev.c smoother/coloring.c
if NG_CUDA
libnagare_la_SOURCES += smoother/smoother_mcgs_cuda.cu smoother/coloring_cuda.cu
endif
