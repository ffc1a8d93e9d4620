/* precond/precond.c: the public preconditioner API, the registry of
 * preconditioners by name, and "none" (z = r). A new preconditioner adds
 * its ops table to the list below. */
#include "precond.h"

extern const ng_precond_ops ng_precond_none, ng_precond_jacobi, ng_precond_amg;
/* amg/amg.c */
void *ng_amg_of(ng_precond P);
ng_status ng_amg_describe(ng_precond P, char *buf, size_t len);

static const ng_precond_ops *const preconds[] = {&ng_precond_none, &ng_precond_jacobi, &ng_precond_amg, NULL};

const ng_precond_ops *ng_precond_find(const char *name)
{
  for (int i = 0; name && preconds[i]; i++)
    if (!strcmp(preconds[i]->name, name)) return preconds[i];
  return NULL;
}

void ng_precond_list(char *buf, size_t len)
{
  buf[0] = '\0';
  for (int i = 0; preconds[i]; i++)
    snprintf(buf + strlen(buf), len - strlen(buf), "%s%s", i ? ", " : "", preconds[i]->name);
}

ng_status ng_precond_create(ng_context ctx, ng_options opts, ng_matrix A, ng_precond *P)
{
  ng_options defaults = NULL;
  const char *name;
  ng_precond p;
  ng_status st;
  NG_ASSERT_ARG(ctx && A && P, "ng_precond_create: null argument");
  NG_ASSERT_ARG(A->ctx == ctx, "ng_precond_create: the matrix belongs to another context");
  /* Collective: every rank makes the same two agreements whatever fails
   * where, once before the setup (which is collective itself: the AMG build
   * exchanges) and once after it (a local setup such as Jacobi's). */
  p = NULL;
  st = NG_SUCCESS;
  if (!opts) {
    st = ng_options_create(&defaults);
    opts = defaults;
  }
  if (!st) st = NG_CALLOC(p, 1);
  if (!st) st = ng_options_get_string(opts, "precond", &name);
  if (!st) {
    p->ops = ng_precond_find(name);
    if (!p->ops) {
      char list[256];
      ng_precond_list(list, sizeof(list));
      st = NG_ERROR(NG_ERR_ARGUMENT, "unknown -precond '%s' (known: %s)", name, list);
    }
  }
  st = ng_comm_agree(ctx, st);
  if (st) {
    if (p) p->ops = NULL; /* nothing set up */
    ng_precond_destroy(p);
    goto out;
  }
  p->ctx = ctx;
  p->A = A;
  /* the setup's bytes (core/memtrack.c) where it does not measure them
   * itself (the AMG does, for its -amg_view) */
  int64_t before[NG_MEM_SPACES];
  for (int s = 0; s < NG_MEM_SPACES; s++) before[s] = ng_mem_reset_peak(s);
  ng_status sst = p->ops->setup(p, A, opts);
  if (sst) p->ops = NULL; /* setup cleans up after itself on failure */
  if (!sst && !p->mem_peak[NG_MEM_HOST] && !p->mem_peak[NG_MEM_DEVICE])
    for (int s = 0; s < NG_MEM_SPACES; s++) {
      p->mem_held[s] = ng_mem_current(s) - before[s];
      p->mem_peak[s] = ng_mem_peak(s) - before[s];
    }
  st = ng_comm_agree(ctx, sst);
  if (st) {
    ng_precond_destroy(p);
    goto out;
  }
  *P = p;
out:
  ng_options_destroy(defaults);
  return st;
}

ng_status ng_precond_update(ng_precond P, ng_matrix A)
{
  NG_ASSERT_ARG(P && A, "ng_precond_update: null argument");
  NG_ASSERT_ARG(A->ctx == P->ctx && A->n_local == P->A->n_local && A->n_global == P->A->n_global,
                "ng_precond_update: the matrix differs in size or context from the one it was built for");
  P->A = A;
  NG_CHECK(P->ops->update(P, A));
  return NG_SUCCESS;
}

ng_status ng_precond_apply(ng_precond P, ng_vector r, ng_vector z)
{
  NG_ASSERT_ARG(P && r && z, "ng_precond_apply: null argument");
  NG_ASSERT_ARG(r->n == P->A->n_local && z->n == P->A->n_local,
                "ng_precond_apply: vector sizes %d, %d differ from the %d local rows", (int)r->n, (int)z->n,
                (int)P->A->n_local);
  NG_ASSERT_ARG(r != z, "ng_precond_apply: r and z must be different vectors");
  NG_CHECK(P->ops->apply(P, r->data, z->data));
  return NG_SUCCESS;
}

ng_status ng_precond_describe(ng_precond P, char *buf, size_t len)
{
  NG_ASSERT_ARG(P && buf && len > 0, "ng_precond_describe: null argument or empty buffer");
  buf[0] = '\0';
  if (ng_amg_of(P)) NG_CHECK(ng_amg_describe(P, buf, len)); /* the one with a hierarchy to show */
  else snprintf(buf, len, "%s\n", P->ops->name);
  return NG_SUCCESS;
}

ng_status ng_precond_destroy(ng_precond P)
{
  if (!P) return NG_SUCCESS;
  if (P->ops && P->ops->destroy) P->ops->destroy(P);
  ng_free(P);
  return NG_SUCCESS;
}

/* ---- "none": z = r ------------------------------------------------------- */
static ng_status none_setup(ng_precond P, ng_matrix A, ng_options opts) { return NG_SUCCESS; }
static ng_status none_update(ng_precond P, ng_matrix A) { return NG_SUCCESS; }
static ng_status none_apply(ng_precond P, const double *r, double *z)
{
  NG_CHECK(P->ctx->vops->copy(P->ctx, P->A->n_local, r, z));
  return NG_SUCCESS;
}
static void none_destroy(ng_precond P) {}
const ng_precond_ops ng_precond_none = {
  .name = "none", .setup = none_setup, .update = none_update, .apply = none_apply, .destroy = none_destroy};
