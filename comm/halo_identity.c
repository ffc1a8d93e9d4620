/* comm/halo_identity.c: the identity SEND table (entry k sends row k) of
 * the plans whose entries are packed in send order (a gather plan, a rows
 * plan, a reverse plan), one a context and shared by them. Each plan made
 * its own before: a host loop and an upload of its length, at every setup
 * (4.2M entries for lap27:256's level 1 gathered onto rank 0 from 2 GPUs).
 * Grown when a plan needs more; a table outgrown stays until the context
 * goes, since the plans made before still read it. */
#include "transport.h"

typedef struct ident_table {
  int32_t *host, *dev; /* k -> k, host and context memory */
  int32_t n;
  struct ident_table *older;
} ident_table;

ng_status ng_halo_identity(ng_context ctx, int32_t n, int32_t **host, int32_t **dev)
{
  ident_table *t = ctx->identity;
  if (!t || t->n < n) {
    int64_t want = t && 2 * (int64_t)t->n > n ? 2 * (int64_t)t->n : n;
    int32_t m = want > INT32_MAX ? INT32_MAX : (int32_t)want;
    size_t bytes = (size_t)(m ? m : 1) * sizeof(int32_t);
    ident_table *u = NULL;
    NG_CHECK(NG_CALLOC(u, 1));
    ng_status st = NG_MALLOC(u->host, m ? m : 1);
    for (int32_t k = 0; !st && k < m; k++) u->host[k] = k;
    if (!st) st = ctx->vops->alloc_raw(ctx, (void **)&u->dev, bytes, "identity SEND table");
    if (!st) st = ctx->vops->upload_raw(ctx, u->dev, u->host, bytes);
    if (st) {
      if (u->dev) ctx->vops->free_raw(ctx, u->dev);
      ng_free(u->host);
      ng_free(u);
      return ng_error_trace(st, __FILE__, __LINE__);
    }
    u->n = m;
    u->older = t;
    ctx->identity = t = u;
  }
  *host = t->host;
  *dev = t->dev;
  return NG_SUCCESS;
}

void ng_halo_identity_release(ng_context ctx)
{
  ident_table *t = ctx->identity;
  while (t) {
    ident_table *o = t->older;
    if (t->dev) ctx->vops->free_raw(ctx, t->dev);
    ng_free(t->host);
    ng_free(t);
    t = o;
  }
  ctx->identity = NULL;
}
