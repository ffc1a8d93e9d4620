# precond/amg.mk: smoothed-aggregation AMG (host setup, V-cycle on the
# context's memory through the SpMV and vector ops tables).
libnagare_la_SOURCES += precond/amg.h precond/amg.c precond/amg_strength.c precond/amg_aggregate.c \
  precond/amg_prolong.c precond/amg_galerkin.c precond/amg_setup.c precond/amg_cycle.c precond/dense_chol.c
