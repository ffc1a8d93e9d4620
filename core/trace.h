/* core/trace.h: a per-rank timeline of where a solve waits (NG_TRACE=prefix):
 * halo pack / start / finish, allreduces, waits for the device's reduction
 * results, preconditioner applies, a mark per Krylov iteration, and the
 * set-up of halo plans (index lists) and of their transports, and the
 * device's cudaMalloc and cudaFree calls (core/cuda_context.cu). Each
 * rank writes prefix.<rank>.tsv at exit (kind, start us, length us, from the
 * first span) and one summary line per kind on stderr. Off (the default) a
 * span costs one branch; on, no allocation after the first span (a fixed
 * ring of NG_TRACE_CAP spans, the oldest overwritten). */
#ifndef NG_TRACE_H
#define NG_TRACE_H
#ifdef __cplusplus
extern "C" {
#endif

enum {
  NG_TR_HALO_PACK, NG_TR_HALO_START, NG_TR_HALO_FINISH, NG_TR_ALLREDUCE, NG_TR_RED_WAIT, NG_TR_PRECOND,
  NG_TR_ITER, NG_TR_DEVICE_SYNC, NG_TR_PLAN, NG_TR_TRANSPORT, NG_TR_CUDA_MALLOC, NG_TR_CUDA_FREE, NG_TR_KINDS
};
#define NG_TRACE_CAP (1 << 20)

extern int ng_trace_on;
/* Reads NG_TRACE once (called by every context creation); rank names the file. */
void ng_trace_init(int rank);
/* Start time of a span (0 when off). */
double ng_trace_t0(void);
/* Records a span of `kind` from t0 to now (nothing when off). */
void ng_trace_span(int kind, double t0);

#ifdef __cplusplus
}
#endif
#endif
