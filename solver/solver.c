/* solver/solver.c: the public solver API. create() reads the options once
 * (method, preconditioner name, tolerances, limits, restart, -null_space),
 * set_operator() allocates the work vectors (one block), the host scratch
 * and the history, builds the preconditioner (timed as setup) and the null
 * space of -null_space constant, solve() projects b and x0 out of the null
 * space (null_space.c: minimum-norm solutions of singular systems), handles
 * b = 0 and times the method's solve. Every method takes -precond; none
 * means no preconditioner object at all (S->P NULL). */
#include "solver.h"
#include <float.h>
#include <math.h>

/* The local part of create: reads the options into s (no communication). */
static ng_status create_local(ng_solver s, ng_options opts)
{
  const char *name, *norm, *precond, *null_space;
  NG_CHECK(ng_options_copy(opts, &s->opts));
  NG_CHECK(ng_options_get_string(s->opts, "solver", &name));
  s->ops = ng_solver_find(name);
  if (!s->ops) {
    char list[256];
    ng_solver_list(list, sizeof(list));
    return NG_ERROR(NG_ERR_ARGUMENT, "unknown -solver '%s' (known: %s)", name, list);
  }
  NG_CHECK(ng_options_get_real(s->opts, "tol", &s->tol));
  NG_CHECK(ng_options_get_real(s->opts, "atol", &s->atol));
  NG_CHECK(ng_options_get_real(s->opts, "divtol", &s->divtol));
  NG_CHECK(ng_options_get_int(s->opts, "maxit", &s->maxit));
  NG_CHECK(ng_options_get_bool(s->opts, "monitor", &s->monitor));
  {
    int single = 0;
    NG_CHECK(ng_options_get_bool(s->opts, "cg_single_reduction", &single));
    s->classic_cg = !single;
  }
  NG_CHECK(ng_options_get_string(s->opts, "norm", &norm));
  s->norm_r0 = !strcmp(norm, "r0");
  NG_CHECK(ng_options_get_string(s->opts, "precond", &precond));
  s->has_precond = strcmp(precond, "none") != 0;
  NG_CHECK(ng_options_get_int(s->opts, "gmres_restart", &s->restart));
  NG_CHECK(ng_options_get_string(s->opts, "null_space", &null_space));
  s->null_constant = !strcmp(null_space, "constant");
  s->asymmetry = -1.0;
  if (s->maxit < 0) return NG_ERROR(NG_ERR_ARGUMENT, "-maxit %d must be >= 0", s->maxit);
  if (s->restart < 1 || s->restart > NG_GMRES_MAX_RESTART)
    return NG_ERROR(NG_ERR_ARGUMENT, "-gmres_restart %d must be between 1 and %d", s->restart,
                    NG_GMRES_MAX_RESTART);
  return NG_SUCCESS;
}

ng_status ng_solver_create(ng_context ctx, ng_options opts, ng_solver *S)
{
  ng_solver s = NULL;
  NG_ASSERT_ARG(ctx && S, "ng_solver_create: null argument");
  ng_status st = NG_CALLOC(s, 1);
  if (!st) {
    s->ctx = ctx;
    st = create_local(s, opts);
  }
  /* collective, once on every path: a rank that failed here must not leave
   * the others waiting in the set_operator that follows */
  st = ng_comm_agree(ctx, st);
  if (st) {
    ng_solver_destroy(s);
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  *S = s;
  return NG_SUCCESS;
}

static void free_work(ng_solver S)
{
  if (S->work_block) S->ctx->vops->free_raw(S->ctx, S->work_block);
  ng_free(S->work);
  ng_free(S->hwork);
  ng_free(S->history);
  S->work_block = NULL;
  S->work = NULL;
  S->hwork = NULL;
  S->history = NULL;
  S->nwork = 0;
  S->nhwork = 0;
}

/* The work vectors (one block of context memory, each vector 256-byte
 * aligned, S->ld apart), the method's host scratch and the history for n
 * local rows (local, no communication). */
static ng_status alloc_work(ng_solver S, int64_t n)
{
  int nvec = S->has_precond ? S->ops->nwork_precond : S->ops->nwork;
  size_t nhost = 0;
  free_work(S);
  if (S->ops->work_size) S->ops->work_size(S, &nvec, &nhost);
  S->ld = (n + 31) / 32 * 32;
  NG_CHECK(NG_CALLOC(S->work, nvec > 0 ? nvec : 1));
  NG_CHECK(S->ctx->vops->alloc_raw(S->ctx, (void **)&S->work_block, (size_t)nvec * (size_t)S->ld * sizeof(double),
                                   "solver work vectors"));
  S->nwork = nvec;
  for (int k = 0; k < nvec; k++) S->work[k] = S->work_block + (int64_t)k * S->ld;
  NG_CHECK(NG_MALLOC(S->hwork, nhost));
  S->nhwork = nhost;
  NG_CHECK(NG_MALLOC(S->history, (size_t)S->maxit + 1));
  return NG_SUCCESS;
}

ng_status ng_solver_set_operator(ng_solver S, ng_matrix A)
{
  NG_ASSERT_ARG(S && A, "ng_solver_set_operator: null argument");
  NG_ASSERT_ARG(A->ctx == S->ctx, "ng_solver_set_operator: the matrix belongs to another context");
  NG_ASSERT_ARG(A->n_global > 0 && (int64_t)A->n_local >= 0, "ng_solver_set_operator: empty matrix");
  double t0 = ng_wtime();
  if (S->A == A && S->P) {
    /* same matrix (new values, same pattern): refresh the preconditioner;
     * one that has no update of its values (AMG with -amg_coarsening
     * classical) is set up again from the solver's options, as a hypre
     * user re-runs BoomerAMG's setup (the same verdict on every rank) */
    ng_status ust = ng_precond_update(S->P, A);
    if (ust == NG_ERR_UNSUPPORTED) {
      ng_error_clear();
      ng_precond_destroy(S->P);
      S->P = NULL;
      ust = ng_precond_create(S->ctx, S->opts, A, &S->P);
      if (ust != NG_SUCCESS) S->A = NULL; /* not usable: solve() refuses until a good set_operator */
    }
    NG_CHECK(ust);
    S->setup_seconds = ng_wtime() - t0;
    return NG_SUCCESS;
  }
  ng_status wst = NG_SUCCESS;
  if (!S->A || S->A->n_local != A->n_local) wst = alloc_work(S, A->n_local);
  /* collective (the preconditioner's setup follows): all or none go on */
  wst = ng_comm_agree(S->ctx, wst);
  if (wst != NG_SUCCESS) {
    S->A = NULL; /* not usable: solve() refuses until a good set_operator */
    return ng_error_trace(wst, __FILE__, __LINE__);
  }
  ng_precond_destroy(S->P);
  S->P = NULL;
  S->A = A;
  S->asymmetry = -1.0; /* a new matrix: CG measures it at its first solve (not after value updates) */
  wst = ng_null_space_setup(S); /* -null_space constant for A's rows (collective) */
  if (wst != NG_SUCCESS) {
    S->A = NULL;
    return ng_error_trace(wst, __FILE__, __LINE__);
  }
  if (S->has_precond) {
    ng_status st = ng_precond_create(S->ctx, S->opts, A, &S->P);
    if (st != NG_SUCCESS) {
      S->A = NULL; /* not usable: solve() refuses until a good set_operator */
      return ng_error_trace(st, __FILE__, __LINE__);
    }
  }
  S->setup_seconds = ng_wtime() - t0;
  return NG_SUCCESS;
}

ng_status ng_solver_solve(ng_solver S, ng_vector b, ng_vector x)
{
  NG_ASSERT_ARG(S && b && x, "ng_solver_solve: null argument");
  NG_ASSERT_ARG(S->A, "ng_solver_solve: no operator (call ng_solver_set_operator first)");
  NG_ASSERT_ARG(b->n == S->A->n_local && x->n == S->A->n_local,
                "ng_solver_solve: vector sizes %d (b), %d (x) differ from the %d local rows", (int)b->n, (int)x->n,
                (int)S->A->n_local);
  NG_ASSERT_ARG(b != x, "ng_solver_solve: b and x must be different vectors");
  double t0 = ng_wtime();
  S->iterations = 0;
  S->history_len = 0;
  S->residual = 0.0;
  S->rebuild_seconds = 0.0;
  /* ||b|| and ||x0|| in one reduction: NaN/Inf in either ends here, before
   * any iteration, on every rank alike (global sums) */
  double d[2];
  NG_CHECK(ng_dot2(S->ctx, b->n, b->data, b->data, x->data, x->data, d));
  S->bnorm = sqrt(d[0]);
  if (!isfinite(d[0]))
    return NG_ERROR(NG_ERR_NUMERIC, "ng_solver_solve: the right-hand side b has NaN or Inf entries (||b||^2 = %g)",
                    d[0]);
  if (!isfinite(d[1]))
    return NG_ERROR(NG_ERR_NUMERIC, "ng_solver_solve: the initial guess x has NaN or Inf entries (||x0||^2 = %g)",
                    d[1]);
  ng_status st;
  const double *bdata = b->data;
  S->null_removed = 0.0;
  if (S->null_n) {
    /* singular A: solve with P b (b's null-space part cannot be matched by
     * A x; how much there was is reported), from P x0, so x stays the
     * minimum-norm solution; -tol is then relative to ||P b|| */
    NG_ASSERT_ARG(S->null_len == b->n, "ng_solver_solve: the null space's vectors have %d local entries, b %d",
                  (int)S->null_len, (int)b->n);
    double removed;
    NG_CHECK(S->ctx->vops->copy(S->ctx, b->n, b->data, S->null_b));
    NG_CHECK(ng_krylov_null_project(S, S->null_b, &removed));
    NG_CHECK(ng_krylov_null_project(S, x->data, NULL));
    S->null_removed = S->bnorm > 0 ? removed / S->bnorm : 0.0;
    NG_CHECK(ng_dot(S->ctx, b->n, S->null_b, S->null_b, &d[0])); /* ||P b|| itself, not the difference */
    S->bnorm = sqrt(d[0]);
    bdata = S->null_b;
    /* b in the null space up to round-off (e.g. b = 1 on a pure-Neumann
     * problem: ||P b|| about sqrt(N) eps ||b||, the dot products' rounding):
     * P b is noise; x = 0 is the minimum-norm least-squares solution */
    if (S->bnorm <= 100.0 * sqrt((double)S->A->n_global) * DBL_EPSILON * (S->bnorm + removed)) S->bnorm = 0.0;
  }
  if (S->bnorm == 0.0) {
    /* A x = 0 has the solution x = 0 */
    S->history[0] = 0.0;
    S->history_len = 1;
    st = S->ctx->vops->fill(S->ctx, x->n, 0.0, x->data);
  } else {
    st = S->ops->solve(S, bdata, x->data);
    /* x's null-space part: round-off only; removed unless x is not finite */
    if (S->null_n && st != NG_ERR_NUMERIC) {
      ng_status pst = ng_krylov_null_project(S, x->data, NULL);
      if (st == NG_SUCCESS) st = pst;
    }
  }
  /* a preconditioner rebuilt during the solve (AMG's -amg_coarsening
   * auto) counts as setup, as if the user had asked for it */
  S->solve_seconds = ng_wtime() - t0 - S->rebuild_seconds;
  S->setup_seconds += S->rebuild_seconds;
  if (st != NG_SUCCESS) return ng_error_trace(st, __FILE__, __LINE__);
  return NG_SUCCESS;
}

ng_status ng_solver_get_iterations(ng_solver S, int *iterations)
{
  NG_ASSERT_ARG(S && iterations, "ng_solver_get_iterations: null argument");
  *iterations = S->iterations;
  return NG_SUCCESS;
}

ng_status ng_solver_get_residual(ng_solver S, double *relative_residual)
{
  NG_ASSERT_ARG(S && relative_residual, "ng_solver_get_residual: null argument");
  *relative_residual = S->residual;
  return NG_SUCCESS;
}

ng_status ng_solver_get_history(ng_solver S, const double **history, int *length)
{
  NG_ASSERT_ARG(S && history && length, "ng_solver_get_history: null argument");
  *history = S->history;
  *length = S->history_len;
  return NG_SUCCESS;
}

ng_status ng_solver_get_times(ng_solver S, double *setup_seconds, double *solve_seconds)
{
  NG_ASSERT_ARG(S, "ng_solver_get_times: null solver");
  if (setup_seconds) *setup_seconds = S->setup_seconds;
  if (solve_seconds) *solve_seconds = S->solve_seconds;
  return NG_SUCCESS;
}

ng_status ng_solver_get_precond_comm_seconds(ng_solver S, double *seconds)
{
  NG_ASSERT_ARG(S && seconds, "ng_solver_get_precond_comm_seconds: null argument");
  *seconds = S->P && S->P->ops->comm_seconds ? S->P->ops->comm_seconds(S->P) : 0.0;
  return NG_SUCCESS;
}

ng_status ng_solver_get_precond(ng_solver S, ng_precond *P)
{
  NG_ASSERT_ARG(S && P, "ng_solver_get_precond: null argument");
  *P = S->P;
  return NG_SUCCESS;
}

ng_status ng_solver_get_method(ng_solver S, const char **method, const char **precond)
{
  NG_ASSERT_ARG(S, "ng_solver_get_method: null solver");
  if (method) *method = S->ops->name;
  if (precond) *precond = S->P ? S->P->ops->name : "none";
  return NG_SUCCESS;
}

ng_status ng_solver_get_memory(ng_solver S, int device, int64_t bytes[4])
{
  NG_ASSERT_ARG(S && bytes, "ng_solver_get_memory: null argument");
  int space = device ? NG_MEM_DEVICE : NG_MEM_HOST;
  int64_t mat[NG_MEM_SPACES];
  ng_matrix_memory(S->A, mat);
  bytes[0] = mat[space];
  bytes[1] = S->P ? S->P->mem_held[space] : 0;
  bytes[2] = S->P ? S->P->mem_peak[space] : 0;
  /* the work vectors in context memory; the pointers, scratch and history on the host */
  bytes[3] = (S->ctx->on_gpu ? NG_MEM_DEVICE : NG_MEM_HOST) == space
                 ? (int64_t)S->nwork * S->ld * (int64_t)sizeof(double) : 0;
  if (space == NG_MEM_HOST && S->work)
    bytes[3] += (int64_t)((S->nwork > 0 ? (size_t)S->nwork : 1) * sizeof(double *) +
                          (S->nhwork + (size_t)S->maxit + 1) * sizeof(double));
  return NG_SUCCESS;
}

ng_status ng_solver_set_monitor(ng_solver S, ng_monitor_fn fn, void *user_ctx)
{
  NG_ASSERT_ARG(S, "ng_solver_set_monitor: null solver");
  S->monitor_fn = fn;
  S->monitor_ctx = user_ctx;
  return NG_SUCCESS;
}

ng_status ng_solver_destroy(ng_solver S)
{
  if (!S) return NG_SUCCESS;
  if (S->ops) free_work(S);
  ng_null_space_free(S);
  ng_precond_destroy(S->P);
  ng_options_destroy(S->opts);
  ng_free(S);
  return NG_SUCCESS;
}
