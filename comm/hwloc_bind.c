/* comm/hwloc_bind.c: where a rank runs. Reports its CPU binding (cpuset and
 * NUMA nodes, through hwloc when the build has it), picks the rank's GPU
 * (NG_DEVICE, else the GPU nearest its cores, else local rank modulo the
 * device count), and binds its memory to the NUMA node(s) of its cores (or
 * of its GPU) when asked (NG_BIND_MEMORY=1 or ng_context_bind_memory); on a
 * machine with one NUMA node that is already so, and nothing is called.
 * Compiled apart (comm/libbind.la) because the hwloc CUDA helpers need the
 * CUDA runtime headers. */
#ifdef HAVE_CONFIG_H
#include "config.h"
#endif
#include "comm_mpi.h"
#include <errno.h>
#include <unistd.h>
#ifdef NG_HAVE_HWLOC
#include <hwloc.h>
#ifdef NG_HAVE_CUDA
#include <hwloc/cudart.h>
#endif

/* One topology per process, loaded on first use (it is the same for every
 * context of the process); freed at exit. */
static hwloc_topology_t ng_topo;
static int ng_topo_state; /* 0 not tried, 1 loaded, -1 failed */

static void topo_free(void) { if (ng_topo_state == 1) hwloc_topology_destroy(ng_topo); ng_topo_state = 0; }

static ng_status topo_get(hwloc_topology_t *t)
{
  if (ng_topo_state == 0) {
    ng_topo_state = -1;
    if (hwloc_topology_init(&ng_topo) == 0) {
      if (hwloc_topology_load(ng_topo) == 0) {
        ng_topo_state = 1;
        atexit(topo_free);
      } else {
        hwloc_topology_destroy(ng_topo);
      }
    }
  }
  if (ng_topo_state != 1) return NG_ERROR(NG_ERR_UNSUPPORTED, "hwloc could not load the machine topology");
  *t = ng_topo;
  return NG_SUCCESS;
}

/* This process's CPU binding (all of the machine when unbound). */
static ng_status my_cpuset(hwloc_topology_t t, hwloc_bitmap_t set)
{
  if (hwloc_get_cpubind(t, set, HWLOC_CPUBIND_PROCESS) != 0)
    hwloc_bitmap_copy(set, hwloc_topology_get_complete_cpuset(t));
  return NG_SUCCESS;
}

/* The cpuset near device dev, or the process's own one on the host. */
static ng_status near_cpuset(hwloc_topology_t t, ng_context ctx, hwloc_bitmap_t set)
{
#ifdef NG_HAVE_CUDA
  if (ctx && ctx->on_gpu && ctx->gpu_device >= 0 &&
      hwloc_cudart_get_device_cpuset(t, ctx->gpu_device, set) == 0 && !hwloc_bitmap_iszero(set))
    return NG_SUCCESS;
#endif
  return my_cpuset(t, set);
}
#endif

ng_status ng_binding_pick_gpu(ng_context ctx, int ndev, int *device)
{
  const char *env = getenv("NG_DEVICE");
  NG_ASSERT_ARG(device && ndev > 0, "ng_binding_pick_gpu: no devices to pick from");
  if (env && *env) {
    char *end;
    long d = strtol(env, &end, 10);
    if (*end || d < 0 || d >= ndev)
      return NG_ERROR(NG_ERR_ARGUMENT, "NG_DEVICE='%s' is not a device number in 0..%d", env, ndev - 1);
    *device = (int)d;
    return NG_SUCCESS;
  }
  *device = ctx->comm->local_rank % ndev;
#if defined(NG_HAVE_HWLOC) && defined(NG_HAVE_CUDA)
  {
    hwloc_topology_t t;
    if (topo_get(&t) == NG_SUCCESS) {
      hwloc_bitmap_t mine = hwloc_bitmap_alloc(), dev = hwloc_bitmap_alloc();
      int near[64], nnear = 0;
      my_cpuset(t, mine);
      /* an unbound rank (its set is the whole machine) is near every GPU */
      if (!hwloc_bitmap_isequal(mine, hwloc_topology_get_complete_cpuset(t)))
        for (int d = 0; d < ndev && nnear < 64; d++)
          if (hwloc_cudart_get_device_cpuset(t, d, dev) == 0 && hwloc_bitmap_intersects(mine, dev)) near[nnear++] = d;
      /* several ranks on one socket share its GPUs round-robin */
      if (nnear > 0) *device = near[ctx->comm->local_rank % nnear];
      hwloc_bitmap_free(mine);
      hwloc_bitmap_free(dev);
    }
  }
#endif
  return NG_SUCCESS;
}

ng_status ng_context_bind_memory(ng_context ctx)
{
  NG_ASSERT_ARG(ctx, "ng_context_bind_memory: null context");
#ifdef NG_HAVE_HWLOC
  hwloc_topology_t t;
  NG_CHECK(topo_get(&t));
  /* One NUMA node: all memory is on it, so the binding holds already. The
   * memory-policy syscall is not made: kernels built without NUMA support
   * (Firecracker VMs) fail it with ENOSYS even on their only node. */
  if (hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE) == 1) {
    ctx->memory_bound = NG_MEMORY_ONLY_NODE;
    return NG_SUCCESS;
  }
  hwloc_bitmap_t set = hwloc_bitmap_alloc(), nodes = hwloc_bitmap_alloc();
  near_cpuset(t, ctx, set);
  hwloc_cpuset_to_nodeset(t, set, nodes);
  int rc = hwloc_set_membind(t, nodes, HWLOC_MEMBIND_BIND, HWLOC_MEMBIND_PROCESS | HWLOC_MEMBIND_BYNODESET);
  int err = errno;
  char *s = NULL;
  hwloc_bitmap_list_asprintf(&s, nodes);
  hwloc_bitmap_free(set);
  hwloc_bitmap_free(nodes);
  if (rc != 0) {
    ng_status st = NG_ERROR(NG_ERR_UNSUPPORTED, "binding memory to NUMA node(s) %s failed: %s", s ? s : "?",
                            strerror(err));
    free(s);
    return st;
  }
  free(s);
  ctx->memory_bound = NG_MEMORY_BOUND;
  return NG_SUCCESS;
#else
  return NG_ERROR(NG_ERR_UNSUPPORTED, "binding memory needs hwloc (nagare was built without it)");
#endif
}

ng_status ng_context_report_binding(ng_context ctx, char *buf, size_t len)
{
  char host[64] = "?";
  NG_ASSERT_ARG(ctx && buf && len > 0, "ng_context_report_binding: null argument");
  gethostname(host, sizeof(host) - 1);
  host[sizeof(host) - 1] = '\0';
#ifdef NG_HAVE_HWLOC
  hwloc_topology_t t;
  if (topo_get(&t) == NG_SUCCESS) {
    hwloc_bitmap_t set = hwloc_bitmap_alloc(), nodes = hwloc_bitmap_alloc();
    char *cpus = NULL, *numa = NULL;
    my_cpuset(t, set);
    int bound = !hwloc_bitmap_isequal(set, hwloc_topology_get_complete_cpuset(t));
    hwloc_cpuset_to_nodeset(t, set, nodes);
    hwloc_bitmap_list_asprintf(&cpus, set);
    hwloc_bitmap_list_asprintf(&numa, nodes);
    const char *mem = ctx->memory_bound == NG_MEMORY_BOUND ? " (memory bound)"
                      : ctx->memory_bound == NG_MEMORY_ONLY_NODE ? " (only node)" : "";
    snprintf(buf, len, "%s cpus %s%s numa %s%s", host, cpus ? cpus : "?", bound ? "" : " (unbound)",
             numa ? numa : "?", mem);
    if (ctx->on_gpu) {
      size_t k = strlen(buf);
      snprintf(buf + k, len - k, " gpu %d", ctx->gpu_device);
    }
    free(cpus);
    free(numa);
    hwloc_bitmap_free(set);
    hwloc_bitmap_free(nodes);
    return NG_SUCCESS;
  }
#endif
  snprintf(buf, len, "%s (hwloc not available: binding unknown)", host);
  if (ctx->on_gpu) {
    size_t k = strlen(buf);
    snprintf(buf + k, len - k, " gpu %d", ctx->gpu_device);
  }
  return NG_SUCCESS;
}
