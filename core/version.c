/* core/version.c: library version and the features it was built with. */
#include "internal.h"

ng_status ng_version(int *major, int *minor, int *patch)
{
  if (major) *major = NG_VERSION_MAJOR;
  if (minor) *minor = NG_VERSION_MINOR;
  if (patch) *patch = NG_VERSION_PATCH;
  return NG_SUCCESS;
}

const char *ng_version_string(void) { return PACKAGE_VERSION; }

#ifdef NG_HAVE_CUDA
int ng_have_cuda(void) { return 1; }
#else
int ng_have_cuda(void) { return 0; }
#endif
#ifdef NG_HAVE_MPI
int ng_have_mpi(void) { return 1; }
#else
int ng_have_mpi(void) { return 0; }
#endif
#ifdef NG_HAVE_HWLOC
int ng_have_hwloc(void) { return 1; }
#else
int ng_have_hwloc(void) { return 0; }
#endif
#ifdef NG_HAVE_ZLIB
int ng_have_zlib(void) { return 1; }
#else
int ng_have_zlib(void) { return 0; }
#endif
