/* examples/build_info.c: "-version" of the programs. The library's version
 * and its CUDA/MPI/hwloc/zlib come from the library itself (ng_version,
 * ng_have_*), so a program run against another installed libnagare reports
 * that one; OpenMP, Fortran and PETSc are what this build configured. */
#include "config.h"
#include "build_info.h"
#include "nagare.h"
#include <string.h>
#ifdef _OPENMP
#include <omp.h>
#endif

int ng_example_version_requested(int argc, char **argv)
{
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--")) break;
    if (!strcmp(argv[i], "-version") || !strcmp(argv[i], "--version")) return 1;
  }
  return 0;
}

static const char *yes_no(int b) { return b ? "yes" : "no"; }

void ng_example_print_version(const char *prog, FILE *f)
{
  int major = 0, minor = 0, patch = 0;
  const char *base = strrchr(prog, '/');
  ng_version(&major, &minor, &patch);
  fprintf(f, "%s %s (library libnagare %d.%d.%d)\n", base ? base + 1 : prog, PACKAGE_VERSION, major, minor, patch);
  fprintf(f, "CUDA    : %s\n", yes_no(ng_have_cuda()));
  fprintf(f, "MPI     : %s\n", yes_no(ng_have_mpi()));
  fprintf(f, "hwloc   : %s\n", yes_no(ng_have_hwloc()));
  fprintf(f, "zlib    : %s\n", yes_no(ng_have_zlib()));
#ifdef _OPENMP
  fprintf(f, "OpenMP  : yes (%d threads)\n", omp_get_max_threads());
#else
  fprintf(f, "OpenMP  : no\n");
#endif
#ifdef NG_HAVE_FORTRAN
  fprintf(f, "Fortran : yes (module nagare, libnagare_fortran)\n");
#else
  fprintf(f, "Fortran : no\n");
#endif
#ifdef NG_HAVE_PETSC
  fprintf(f, "PETSc   : yes (plug-in libnagare-petsc, -pc_type nagare)\n");
#else
  fprintf(f, "PETSc   : no\n");
#endif
}
