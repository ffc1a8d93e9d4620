/* examples/build_info.h: "-version" of the programs: library version and the
 * features the build has (CUDA, MPI, hwloc, zlib, OpenMP, Fortran, PETSc),
 * and the GPUs visible at run time. */
#ifndef NG_EXAMPLES_BUILD_INFO_H
#define NG_EXAMPLES_BUILD_INFO_H
#include <stdio.h>

/* 1 when argv holds -version or --version (before any other parsing). */
int ng_example_version_requested(int argc, char **argv);
/* Prints "PROG VERSION" and one "feature : yes/no" line per feature. */
void ng_example_print_version(const char *prog, FILE *f);
#endif
