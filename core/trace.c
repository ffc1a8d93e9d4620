/* core/trace.c: the per-rank timeline behind core/trace.h. Spans are kept in
 * a ring allocated at the first span (so a rank that traces nothing
 * allocates nothing) and written at exit: prefix.<rank>.tsv, then a summary
 * per kind on stderr ("trace rank R kind: n spans, total ms, mean us, max
 * us"), which is what the multi-rank diagnosis reads first. */
#include "trace.h"
#include "core.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int ng_trace_on = 0;
static int tr_rank = 0, tr_inited = 0;
static char tr_prefix[256];
static struct tr_span { float t0, len; int kind; } *tr_ring;
static long tr_n;
static double tr_origin = -1.0;
static const char *tr_names[NG_TR_KINDS] = {"halo_pack", "halo_start", "halo_finish", "allreduce",
                                            "red_wait",  "precond",    "iteration",   "device_sync",
                                            "plan_setup", "transport_setup", "cuda_malloc", "cuda_free"};

static void tr_dump(void)
{
  if (!tr_ring) return;
  char path[300];
  snprintf(path, sizeof(path), "%s.%d.tsv", tr_prefix, tr_rank);
  FILE *f = fopen(path, "w");
  double tot[NG_TR_KINDS] = {0}, mx[NG_TR_KINDS] = {0};
  long cnt[NG_TR_KINDS] = {0};
  long first = tr_n > NG_TRACE_CAP ? tr_n - NG_TRACE_CAP : 0;
  if (f) fprintf(f, "kind\tstart_us\tlength_us\n");
  for (long i = first; i < tr_n; i++) {
    const struct tr_span *s = &tr_ring[i % NG_TRACE_CAP];
    if (f) fprintf(f, "%s\t%.1f\t%.1f\n", tr_names[s->kind], s->t0, s->len);
    tot[s->kind] += s->len;
    cnt[s->kind]++;
    if (s->len > mx[s->kind]) mx[s->kind] = s->len;
  }
  if (f) fclose(f);
  for (int k = 0; k < NG_TR_KINDS; k++)
    if (cnt[k])
      fprintf(stderr, "trace rank %d %-12s %8ld spans %10.3f ms %9.1f us mean %9.1f us max\n", tr_rank, tr_names[k],
              cnt[k], tot[k] * 1e-3, tot[k] / cnt[k], mx[k]);
  free(tr_ring);
  tr_ring = NULL;
}

void ng_trace_init(int rank)
{
  const char *p = getenv("NG_TRACE");
  tr_rank = rank;
  if (tr_inited || !p || !*p || !strcmp(p, "0")) return;
  tr_inited = 1;
  snprintf(tr_prefix, sizeof(tr_prefix), "%s", p);
  ng_trace_on = 1;
  atexit(tr_dump);
}

double ng_trace_t0(void) { return ng_trace_on ? ng_wtime() : 0.0; }

void ng_trace_span(int kind, double t0)
{
  if (!ng_trace_on) return;
  double t1 = ng_wtime();
  if (!tr_ring) {
    tr_ring = malloc(sizeof(*tr_ring) * NG_TRACE_CAP);
    if (!tr_ring) { ng_trace_on = 0; return; }
    tr_origin = t0;
  }
  struct tr_span *s = &tr_ring[tr_n++ % NG_TRACE_CAP];
  s->t0 = (float)((t0 - tr_origin) * 1e6);
  s->len = (float)((t1 - t0) * 1e6);
  s->kind = kind;
}
