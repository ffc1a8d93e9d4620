# precond/precond.mk: the public preconditioner API with its registry, and
# one file per preconditioner.
libnagare_la_SOURCES += precond/precond.h precond/precond_options.c precond/precond.c precond/jacobi.c
