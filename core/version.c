/* core/version.c: library version and the features it was built with. */
#include "core.h"

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
/* Run-time view of the GPUs: what the CUDA runtime sees in this process
 * (CUDA_VISIBLE_DEVICES applies), without creating a device context. */
int ng_gpu_count(void)
{
#ifdef NG_HAVE_CUDA
  return ng_cuda_device_count();
#else
  return 0;
#endif
}

ng_status ng_gpu_name(int device, char *name, size_t len)
{
  NG_ASSERT_ARG(name && len > 0, "ng_gpu_name: null or empty name buffer");
  name[0] = '\0';
#ifdef NG_HAVE_CUDA
  int n = ng_cuda_device_count();
  if (device < 0 || device >= n)
    return NG_ERROR(n ? NG_ERR_ARGUMENT : NG_ERR_NO_DEVICE, "ng_gpu_name: GPU %d asked for but %d visible", device, n);
  NG_CHECK(ng_cuda_device_name(device, name, len));
  return NG_SUCCESS;
#else
  (void)device;
  return NG_ERROR(NG_ERR_NO_DEVICE, "ng_gpu_name: nagare was built without CUDA");
#endif
}

const char *ng_cuda_archs(void)
{
#ifdef NG_CUDA_ARCHS
  return NG_CUDA_ARCHS;
#else
  return "";
#endif
}

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
