/* examples/build_info.c: "-version" of the programs. The library's version
 * and its CUDA/MPI/hwloc/zlib come from the library itself (ng_version,
 * ng_have_*), so a program run against another installed libnagare reports
 * that one; OpenMP, Fortran and PETSc are what this build configured. The
 * CUDA line also says which GPUs the CUDA runtime sees now (ng_gpu_count,
 * ng_gpu_name: no device context is created). */
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

/* "yes (built for sm_90), GPUs visible: 1 (NVIDIA H100 80GB HBM3)": the
 * build's architectures, then what the CUDA runtime sees now. */
static void print_cuda(FILE *f)
{
  char archs[128] = "", name[256] = "", first[256] = "";
  int n, same = 1;
  if (!ng_have_cuda()) {
    fprintf(f, "CUDA    : no (a CPU-only build: GPUs are not used)\n");
    return;
  }
  for (const char *a = ng_cuda_archs(); *a;) {
    size_t len = strcspn(a, " ");
    if (len)
      snprintf(archs + strlen(archs), sizeof(archs) - strlen(archs), "%ssm_%.*s", archs[0] ? ", " : "", (int)len, a);
    a += len;
    a += strspn(a, " ");
  }
  fprintf(f, "CUDA    : yes (built for %s), GPUs visible: ", archs[0] ? archs : "the default architecture");
  n = ng_gpu_count();
  if (n == 0) {
    fprintf(f, "none\n");
    return;
  }
  ng_gpu_name(0, first, sizeof(first));
  for (int d = 1; d < n && same; d++) same = ng_gpu_name(d, name, sizeof(name)) == NG_SUCCESS && !strcmp(name, first);
  if (n == 1 || same) {
    if (n == 1)
      fprintf(f, "1 (%s)\n", first);
    else
      fprintf(f, "%d (%d x %s)\n", n, n, first);
    return;
  }
  fprintf(f, "%d (%s", n, first);
  for (int d = 1; d < n; d++) {
    ng_gpu_name(d, name, sizeof(name));
    fprintf(f, "; %s", name);
  }
  fprintf(f, ")\n");
}

void ng_example_print_version(const char *prog, FILE *f)
{
  int major = 0, minor = 0, patch = 0;
  const char *base = strrchr(prog, '/');
  ng_version(&major, &minor, &patch);
  fprintf(f, "%s %s (library libnagare %d.%d.%d)\n", base ? base + 1 : prog, PACKAGE_VERSION, major, minor, patch);
  print_cuda(f);
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
