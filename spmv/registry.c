/* spmv/registry.c: the table of SpMV formats per memory space. A new format
 * adds its ops table here and nowhere else. */
#include "internal.h"

extern const ng_spmv_ops ng_spmv_csr_host;
#ifdef NG_HAVE_CUDA
extern const ng_spmv_ops ng_spmv_csr_cuda;
#endif

static const ng_spmv_ops *const host_formats[] = {&ng_spmv_csr_host, NULL};
#ifdef NG_HAVE_CUDA
static const ng_spmv_ops *const cuda_formats[] = {&ng_spmv_csr_cuda, NULL};
#else
static const ng_spmv_ops *const cuda_formats[] = {NULL};
#endif

const ng_spmv_ops *ng_spmv_find(const char *name, int on_gpu)
{
  const ng_spmv_ops *const *t = on_gpu ? cuda_formats : host_formats;
  for (; *t; t++)
    if (!strcmp((*t)->name, name)) return *t;
  return NULL;
}

const char *const *ng_spmv_names(int on_gpu)
{
  static const char *names[2][16];
  const ng_spmv_ops *const *t = on_gpu ? cuda_formats : host_formats;
  int k = 0;
  for (; *t && k < 15; t++) names[on_gpu ? 1 : 0][k++] = (*t)->name;
  names[on_gpu ? 1 : 0][k] = NULL;
  return names[on_gpu ? 1 : 0];
}
