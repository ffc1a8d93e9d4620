/* test/test_amg_cycle.c: the V-cycle's fast paths on the host (issue 14
 * item 5). fused_equals_unfused: every host table's fused entry
 * (spmv/spmv.h) gives the unfused sweep (SpMV, xpay, pointwise_mult, axpy)
 * and residual to the bit. fine_format: the finest level's own operator
 * (-amg_fine_format dia / dia_half) gives the cycle of the matrix to
 * rounding (dia_half sums in another order), also with odd sweep counts
 * (the fused sweeps alternate between two vectors), the same AMG-PCG
 * iterations on lap27 and fem27, and it is converted again by an update;
 * a format that refuses the matrix leaves the matrix, an unknown one is an
 * error, "auto" keeps the matrix on the host. single_precision:
 * -amg_precision single (item 2), see there. w_cycle: -amg_cycle w (issue
 * 14 item 3), see there. k_cycle: -amg_cycle k, see there. */
#include "testutil.h"
#include "../solver/solver.h"
#include "../amg/amg.h"
#include "../spmv/formats.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static ng_context ctx;
static void setup(void) { NG_ASSERT_OK(ng_context_create("cpu", &ctx)); }
static void teardown(void) { ng_context_destroy(ctx); }

START_TEST(fused_equals_unfused)
{
  const char *probs[] = {"lap27:12", "fem27:9", "lap7:11"}, *fmts[] = {"csr", "dia", "dia_half"};
  for (int p = 0; p < 3; p++) {
    ng_matrix A;
    NG_ASSERT_OK(ng_matrix_generate(ctx, probs[p], &A, NULL));
    int32_t n = A->n_local;
    double *x = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double)), *d = malloc(n * sizeof(double));
    double *y1 = malloc(n * sizeof(double)), *y2 = malloc(n * sizeof(double)), *r = malloc(n * sizeof(double));
    ng_test_random(x, n);
    ng_test_random(b, n);
    ng_test_random(d, n);
    for (int f = 0; f < 3; f++) {
      const ng_spmv_ops *ops;
      void *data;
      NG_ASSERT_OK(ng_spmv_create(ctx, fmts[f], &A->local, &ops, &data));
      ck_assert_msg(ops->fused != NULL, "host %s has no fused entry", fmts[f]);
      /* residual */
      NG_ASSERT_OK(ops->fused(data, b, x, NULL, y1));
      NG_ASSERT_OK(ops->apply(data, 1.0, x, 0.0, y2));
      NG_ASSERT_OK(ctx->vops->xpay(ctx, n, b, -1.0, y2));
      ck_assert_msg(!memcmp(y1, y2, n * sizeof(double)), "%s %s: fused residual differs", probs[p], fmts[f]);
      /* Jacobi sweep */
      NG_ASSERT_OK(ops->fused(data, b, x, d, y1));
      memcpy(y2, x, n * sizeof(double));
      NG_ASSERT_OK(ops->apply(data, 1.0, y2, 0.0, r));
      NG_ASSERT_OK(ctx->vops->xpay(ctx, n, b, -1.0, r));
      NG_ASSERT_OK(ctx->vops->pointwise_mult(ctx, n, d, r, r));
      NG_ASSERT_OK(ctx->vops->axpy(ctx, n, 1.0, r, y2));
      ck_assert_msg(!memcmp(y1, y2, n * sizeof(double)), "%s %s: fused Jacobi sweep differs", probs[p], fmts[f]);
      ops->destroy(data);
    }
    free(x), free(b), free(d), free(y1), free(y2), free(r);
    ng_matrix_destroy(A);
  }
}
END_TEST

static ng_precond make_amg(ng_matrix A, const char *options) { return ng_test_amg(ctx, A, options); }


static double max_rel_diff(const double *a, const double *b, int32_t n)
{
  double m = 0, d = 0;
  for (int32_t i = 0; i < n; i++) {
    m = fmax(m, fabs(a[i]));
    d = fmax(d, fabs(a[i] - b[i]));
  }
  return m > 0 ? d / m : d;
}

/* AMG-PCG iterations with these options (the solve must succeed). */
static int pcg(ng_matrix A, ng_vector b, const char *extra)
{
  int its = ng_test_pcg_amg(ctx, A, b, extra);
  ck_assert_msg(its >= 0, "AMG-PCG %s failed: %s", extra, ng_last_error());
  return its;
}

START_TEST(fine_format)
{
  const char *probs[] = {"lap27:20", "fem27:14"};
  const char *sweeps[] = {"", "-amg_sweeps 3,1", "-amg_presweeps 1 -amg_postsweeps 2"};
  for (int p = 0; p < 2; p++) {
    ng_matrix A;
    ng_vector b;
    NG_ASSERT_OK(ng_matrix_generate(ctx, probs[p], &A, &b));
    int32_t n = A->n_local;
    double *r = malloc(n * sizeof(double)), *z0 = malloc(n * sizeof(double)), *z1 = malloc(n * sizeof(double));
    ng_test_random(r, n);
    for (int s = 0; s < 3; s++) {
      char o0[128], o1[128], o2[128];
      snprintf(o0, sizeof(o0), "-amg_fine_format matrix %s", sweeps[s]);
      snprintf(o1, sizeof(o1), "-amg_fine_format dia %s", sweeps[s]);
      snprintf(o2, sizeof(o2), "-amg_fine_format dia_half %s", sweeps[s]);
      ng_precond P0 = make_amg(A, o0), P1 = make_amg(A, o1), P2 = make_amg(A, o2);
      ng_amg *M0 = ng_amg_of(P0), *M1 = ng_amg_of(P1), *M2 = ng_amg_of(P2);
      ck_assert_str_eq(M0->fine_used, "");
      ck_assert_str_eq(M1->fine_used, "dia");
      ck_assert_str_eq(M2->fine_used, "dia_half");
      ck_assert_ptr_null(M0->L[0].s.Aops);
      ng_test_apply(P0, A, r, z0);
      ng_test_apply(P1, A, r, z1);
      double e1 = max_rel_diff(z0, z1, n);
      ng_test_apply(P2, A, r, z1);
      double e2 = max_rel_diff(z0, z1, n);
      printf("%s %s: V-cycle with the finest A in dia / dia_half against the matrix: %.2e / %.2e\n", probs[p],
             sweeps[s], e1, e2);
      ck_assert_msg(e1 < 1e-12 && e2 < 1e-12, "%s %s: %.3e %.3e", probs[p], sweeps[s], e1, e2);
      ng_precond_destroy(P0);
      ng_precond_destroy(P1);
      ng_precond_destroy(P2);
    }
    int i0 = pcg(A, b, "-amg_fine_format matrix"), i2 = pcg(A, b, "-amg_fine_format dia_half");
    printf("%s: AMG-PCG %d iterations with the matrix, %d with dia_half\n", probs[p], i0, i2);
    ck_assert_int_eq(i0, i2);

    /* an update converts again: equal to a fresh setup on the new values */
    double *val = malloc((size_t)A->local.nnz * sizeof(double));
    for (int32_t i = 0; i < n; i++)
      for (int64_t k = A->local.rowptr[i]; k < A->local.rowptr[i + 1]; k++)
        val[k] = A->local.val[k] * (1.0 + 0.5 * ((i + A->local.col[k]) % 2));
    /* -amg_sparsify 0: an update keeps the setup's sparsified pattern, which
     * a fresh setup on other values would choose differently */
    ng_precond P2 = make_amg(A, "-amg_fine_format dia_half -amg_sparsify 0");
    NG_ASSERT_OK(ng_matrix_update_values(A, val));
    NG_ASSERT_OK(ng_precond_update(P2, A));
    ck_assert_str_eq(((ng_amg *)ng_amg_of(P2))->fine_used, "dia_half");
    ng_precond F = make_amg(A, "-amg_fine_format dia_half -amg_sparsify 0");
    ng_test_apply(P2, A, r, z0);
    ng_test_apply(F, A, r, z1);
    ck_assert_msg(!memcmp(z0, z1, n * sizeof(double)), "%s: the updated cycle differs from a fresh one", probs[p]);
    ng_precond_destroy(F);
    ng_precond_destroy(P2);
    free(val);
    free(r), free(z0), free(z1);
    ng_vector_destroy(b);
    ng_matrix_destroy(A);
  }
}
END_TEST

START_TEST(fine_format_fallbacks)
{
  ng_matrix A;
  ng_vector b;
  NG_ASSERT_OK(ng_matrix_generate(ctx, "lap27:12", &A, &b));
  /* the host default keeps the matrix */
  ng_precond P = make_amg(A, "");
  ck_assert_str_eq(((ng_amg *)ng_amg_of(P))->fine_used, "");
  ng_precond_destroy(P);
  /* a format that refuses A (27 diagonals > 3): the matrix, and it converges */
  P = make_amg(A, "-amg_fine_format dia:maxdiag=3");
  ck_assert_str_eq(((ng_amg *)ng_amg_of(P))->fine_used, "");
  ck_assert_ptr_null(((ng_amg *)ng_amg_of(P))->L[0].s.Aops);
  ng_precond_destroy(P);
  ck_assert_int_le(pcg(A, b, "-amg_fine_format dia:maxdiag=3"), 15);
  /* an unknown format is an error naming it */
  ng_options o;
  NG_ASSERT_OK(ng_options_create(&o));
  NG_ASSERT_OK(ng_options_set_from_string(o, "-precond amg -amg_fine_format nosuch"));
  ck_assert_int_eq(ng_precond_create(ctx, o, A, &P), NG_ERR_ARGUMENT);
  ck_assert_msg(strstr(ng_last_error(), "nosuch") != NULL, "message: %s", ng_last_error());
  ng_options_destroy(o);
  ng_vector_destroy(b);
  ng_matrix_destroy(A);
}
END_TEST

/* -amg_precision single (issue 14 item 2) on the host: the float cycle is
 * the double one to float accuracy (1e-4 of max |z|), AMG-PCG converges to
 * 1e-8 within 2 iterations of double on lap27 and fem27 (also with the
 * finest level in dia / dia_half, odd sweeps and the coarsest smoothed),
 * an update gives the cycle of a fresh setup byte for byte, and the
 * choices without a float version are refused with a message. */
START_TEST(single_precision)
{
  const char *probs[] = {"lap27:20", "fem27:14"};
  const char *extra[] = {"", "-amg_fine_format dia_half", "-amg_fine_format dia -amg_sweeps 3,1",
                         "-amg_coarse_solver smoother"};
  for (int p = 0; p < 2; p++) {
    ng_matrix A;
    ng_vector b;
    NG_ASSERT_OK(ng_matrix_generate(ctx, probs[p], &A, &b));
    int32_t n = A->n_local;
    double *r = malloc(n * sizeof(double)), *zd = malloc(n * sizeof(double)), *zs = malloc(n * sizeof(double));
    ng_test_random(r, n);
    for (int e = 0; e < 4; e++) {
      char od[160], os[160];
      snprintf(od, sizeof(od), "%s", extra[e]);
      snprintf(os, sizeof(os), "-amg_precision single %s", extra[e]);
      ng_precond D = make_amg(A, od), S = make_amg(A, os);
      ng_test_apply(D, A, r, zd);
      ng_test_apply(S, A, r, zs);
      double err = max_rel_diff(zd, zs, n);
      int id = pcg(A, b, od), is = pcg(A, b, os);
      printf("%s %s: single vs double V-cycle %.2e; AMG-PCG double %d, single %d\n", probs[p], extra[e], err, id, is);
      ck_assert_msg(err < 1e-4 && err > 0, "%s %s: single-precision cycle differs by %.3e", probs[p], extra[e], err);
      ck_assert_int_le(is, id + 2);
      ng_precond_destroy(D);
      ng_precond_destroy(S);
    }
    /* an update: the float copies are made again */
    double *val = malloc((size_t)A->local.nnz * sizeof(double));
    for (int32_t i = 0; i < n; i++)
      for (int64_t k = A->local.rowptr[i]; k < A->local.rowptr[i + 1]; k++)
        val[k] = A->local.val[k] * (1.0 + 0.5 * ((i + A->local.col[k]) % 2));
    ng_precond S = make_amg(A, "-amg_precision single -amg_fine_format dia_half -amg_sparsify 0");
    NG_ASSERT_OK(ng_matrix_update_values(A, val));
    NG_ASSERT_OK(ng_precond_update(S, A));
    ng_precond F = make_amg(A, "-amg_precision single -amg_fine_format dia_half -amg_sparsify 0");
    ng_test_apply(S, A, r, zd);
    ng_test_apply(F, A, r, zs);
    ck_assert_msg(!memcmp(zd, zs, n * sizeof(double)), "%s: updated single cycle differs from a fresh one", probs[p]);
    ng_precond_destroy(S);
    ng_precond_destroy(F);
    free(val), free(r), free(zd), free(zs);
    ng_vector_destroy(b);
    ng_matrix_destroy(A);
  }
  /* refusals */
  ng_matrix A;
  NG_ASSERT_OK(ng_matrix_generate(ctx, "lap27:8", &A, NULL));
  const char *bad[] = {"-amg_precision single -amg_smoother mcgs", "-amg_precision single -amg_format ell",
                       "-amg_precision single -amg_fine_format sell", "-amg_precision half"};
  const char *why[] = {"jacobi", "csr", "dia", "half"};
  for (int k = 0; k < 4; k++) {
    ng_options o;
    ng_precond P = NULL;
    NG_ASSERT_OK(ng_options_create(&o));
    NG_ASSERT_OK(ng_options_set_from_string(o, "-precond amg"));
    ng_status st = ng_options_set_from_string(o, bad[k]);
    if (st == NG_SUCCESS) st = ng_precond_create(ctx, o, A, &P);
    ck_assert_msg(st != NG_SUCCESS, "'%s' was accepted", bad[k]);
    ck_assert_msg(strstr(ng_last_error(), why[k]) != NULL, "'%s': message '%s'", bad[k], ng_last_error());
    ng_options_destroy(o);
  }
  ng_matrix_destroy(A);
}
END_TEST

/* -amg_cycle w (issue 14 item 3): on the small hard 2D problems (enough
 * levels through -amg_coarse_size 20) AMG-PCG takes fewer iterations than
 * with the V-cycle, with Jacobi and Chebyshev smoothing and in FP32; the
 * W-cycle is symmetric (x'My = y'Mx) for the smoothers and both coarsest
 * solvers; an unknown cycle is refused. */
START_TEST(w_cycle)
{
  const char *probs[] = {"het5:64", "rotaniso:64"};
  const char *extra[] = {"", "-amg_smoother chebyshev", "-amg_precision single"};
  for (int p = 0; p < 2; p++) {
    ng_matrix A;
    ng_vector b;
    NG_ASSERT_OK(ng_matrix_generate(ctx, probs[p], &A, &b));
    for (int e = 0; e < 3; e++) {
      char ov[160], ow[160];
      /* aggregation's cycles (auto may rebuild the V-cycle's hierarchy as
       * classical where the W-cycle's converges fast enough to keep it) */
      snprintf(ov, sizeof(ov), "-amg_coarse_size 20 -amg_coarsening aggregation %s", extra[e]);
      snprintf(ow, sizeof(ow), "-amg_coarse_size 20 -amg_coarsening aggregation -amg_cycle w %s", extra[e]);
      int v = pcg(A, b, ov), w = pcg(A, b, ow);
      printf("%s %s: AMG-PCG V-cycle %d, W-cycle %d iterations\n", probs[p], extra[e], v, w);
      ck_assert_msg(w < v, "%s %s: W-cycle %d iterations, V-cycle %d", probs[p], extra[e], w, v);
    }
    ng_vector_destroy(b);
    ng_matrix_destroy(A);
  }
  ng_matrix A;
  NG_ASSERT_OK(ng_matrix_generate(ctx, "het5:40", &A, NULL));
  int32_t n = A->n_local;
  double *x = malloc(n * sizeof(double)), *y = malloc(n * sizeof(double));
  double *mx = malloc(n * sizeof(double)), *my = malloc(n * sizeof(double));
  ng_test_random(x, n);
  for (int32_t i = 0; i < n; i++) y[i] = cos(0.37 * i) + 0.1;
  const char *sm[] = {"jacobi", "mcgs", "chebyshev"};
  for (int s = 0; s < 3; s++)
    for (int coarse = 0; coarse < 2; coarse++) {
      char opt[200];
      snprintf(opt, sizeof(opt), "-amg_cycle w -amg_smoother %s -amg_coarse_size 20 -amg_coarse_solver %s", sm[s],
               coarse ? "smoother -amg_coarse_sweeps 9" : "direct");
      ng_precond P = make_amg(A, opt);
      ng_test_apply(P, A, x, mx);
      ng_test_apply(P, A, y, my);
      double xmy = 0, ymx = 0, scale = 0;
      for (int32_t i = 0; i < n; i++) {
        xmy += x[i] * my[i];
        ymx += y[i] * mx[i];
        scale += fabs(x[i] * my[i]);
      }
      ck_assert_msg(fabs(xmy - ymx) <= 1e-12 * scale, "%s: x'My = %.17g, y'Mx = %.17g", opt, xmy, ymx);
      ng_precond_destroy(P);
    }
  free(x), free(y), free(mx), free(my);
  ng_options o;
  ng_precond P = NULL;
  NG_ASSERT_OK(ng_options_create(&o));
  NG_ASSERT_OK(ng_options_set_from_string(o, "-precond amg"));
  ng_status st = ng_options_set_from_string(o, "-amg_cycle x"); /* the options table knows v|w|k */
  if (st == NG_SUCCESS) st = ng_precond_create(ctx, o, A, &P);
  ck_assert_msg(st != NG_SUCCESS && strstr(ng_last_error(), "amg_cycle"), "-amg_cycle x: status %d, '%s'", st,
                ng_last_error());
  ng_options_destroy(o);
  ng_matrix_destroy(A);
}
END_TEST

/* PCG iterations, or -1 when the solve fails (an indefinite preconditioner
 * breaks CG down: the message is printed). */
static int pcg_or_fail(ng_matrix A, ng_vector b, const char *extra) { return ng_test_pcg_amg(ctx, A, b, extra); }

/* The W-cycle is positive definite wherever the V-cycle is (issue 31 item
 * 3): on the CFD classes with the default sparsified coarse operators the
 * unweighted W-cycle was indefinite (stretch7:24 broke CG down at its
 * second iteration; lambda_max(B G) 3 there, 14.7 on jump2q1:24). The
 * W-cycle's sparsification lumps with the hybrid rule (amg_sparsify.c:
 * |g_ij| where a row has positive couplings), which keeps the coarse
 * operator above the Galerkin one: lambda_max(B G) stays below 2 on
 * every level of stretch7:24 (the second correction's weight, amg_wcycle.c,
 * is then 1), AMG-PCG with W takes at most as many iterations as with V,
 * also with the Galerkin and the path-lumped operators; x'Mx > 0 on random
 * x, and the V-cycle carries no weight (w = 1: unchanged). */
START_TEST(w_cycle_spd)
{
  /* the last two at the sizes with default options: W took 52 and
   * 663 iterations there against V's 30 and 186 with signed lumping */
  const char *probs[] = {"stretch7:24", "bubbles7:20", "spheres7:20", "jump2q1:24", "jump2q1:24", "jump2q1:24",
                         "stretch7:64", "jump2q1:70"};
  const char *extra[] = {"-amg_coarse_size 20", "-amg_coarse_size 20", "-amg_coarse_size 20", "-amg_coarse_size 20",
                         "-amg_coarse_size 20 -amg_sparsify 0", "-amg_coarse_size 20 -amg_sparsify_lump path", "", ""};
  for (int p = 0; p < 8; p++) {
    ng_matrix A;
    ng_vector b;
    NG_ASSERT_OK(ng_matrix_generate(ctx, probs[p], &A, &b));
    char ow[160];
    snprintf(ow, sizeof(ow), "%s -amg_cycle w", extra[p]);
    int v = pcg_or_fail(A, b, extra[p]), w = pcg_or_fail(A, b, ow);
    printf("%s %s: AMG-PCG V-cycle %d, W-cycle %d iterations\n", probs[p], extra[p], v, w);
    ck_assert_msg(v > 0, "%s %s: the V-cycle PCG failed", probs[p], extra[p]);
    ck_assert_msg(w > 0 && w <= v, "%s %s: W-cycle %d iterations (-1: failed), V-cycle %d", probs[p], extra[p], w, v);
    if (p == 0) {
      int32_t n = A->n_local;
      double *x = malloc(n * sizeof(double)), *mx = malloc(n * sizeof(double));
      ng_precond P = make_amg(A, ow), Pv = make_amg(A, extra[p]);
      ng_amg *M = ng_amg_of(P), *Mv = ng_amg_of(Pv);
      for (int l = 0; l < Mv->nlevels; l++) ck_assert_double_eq(Mv->L[l].wscale, 1.0);
      int estimated = 0; /* levels whose second correction is a cycle (not the coarsest's exact solve) */
      for (int l = 0; l + 1 < M->nlevels; l++) {
        if (M->L[l].wlambda == 0.0) continue;
        estimated++;
        printf("%s W-cycle level %d: lambda_max(B G) %.3f, weight %.3f\n", probs[p], l, M->L[l].wlambda,
               M->L[l].wscale);
        ck_assert_msg(M->L[l].wlambda < 2.0, "%s level %d: lambda_max(B G) = %g", probs[p], l, M->L[l].wlambda);
      }
      ck_assert_msg(estimated > 0, "%s: no level with a second correction to estimate", probs[p]);
      for (int k = 0; k < 4; k++) {
        ng_test_random(x, n);
        for (int32_t i = 0; i < n; i++) x[i] += k * cos(0.05 * k * i);
        ng_test_apply(P, A, x, mx);
        double xmx = 0, xx = 0;
        for (int32_t i = 0; i < n; i++) xmx += x[i] * mx[i], xx += x[i] * x[i];
        ck_assert_msg(xmx > 0, "%s W-cycle: x'Mx = %g (x'x = %g)", probs[p], xmx, xx);
      }
      ng_precond_destroy(P);
      ng_precond_destroy(Pv);
      free(x), free(mx);
    }
    ng_vector_destroy(b);
    ng_matrix_destroy(A);
  }
}
END_TEST

/* The K-cycle (-amg_cycle k, amg_kcycle.c): on a 2D jump problem with
 * rotated anisotropy and Galerkin coarse operators AMG-PCG (CG's flexible
 * beta) takes fewer iterations than with the V-cycle (jump2q1:40, coarse
 * size 20: measured V 70, K 52, W 53), and on het5:64 (V 17, K 15); the
 * preconditioner says it is variable (CG's flexible form), the V-cycle's
 * does not; the K-steps' vectors exist on the levels between the finest
 * and the coarsest only; the FP32 cycle refuses it. */
START_TEST(k_cycle)
{
  const char *probs[] = {"jump2q1:40", "het5:64"};
  /* aggregation's cycles compared (auto would rebuild the V-cycle's as classical) */
  const char *extra[] = {"-amg_coarse_size 20 -amg_sparsify 0 -amg_coarsening aggregation",
                         "-amg_coarse_size 20 -amg_coarsening aggregation"};
  const int margin[] = {10, 1};
  for (int p = 0; p < 2; p++) {
    ng_matrix A;
    ng_vector b;
    NG_ASSERT_OK(ng_matrix_generate(ctx, probs[p], &A, &b));
    char ok[160];
    snprintf(ok, sizeof(ok), "%s -amg_cycle k", extra[p]);
    int v = pcg_or_fail(A, b, extra[p]), k = pcg_or_fail(A, b, ok);
    printf("%s %s: AMG-PCG V-cycle %d, K-cycle %d iterations\n", probs[p], extra[p], v, k);
    ck_assert_msg(v > 0, "%s %s: the V-cycle PCG failed", probs[p], extra[p]);
    ck_assert_msg(k > 0 && k <= v - margin[p], "%s %s: K-cycle %d iterations (-1: failed), V-cycle %d", probs[p],
                  extra[p], k, v);
    if (p == 0) {
      ng_precond P = make_amg(A, ok), Pv = make_amg(A, extra[p]);
      ng_amg *M = ng_amg_of(P);
      ck_assert_int_eq(P->variable, 1);
      ck_assert_int_eq(Pv->variable, 0);
      ck_assert_int_ge(M->nlevels, 3);
      for (int l = 0; l < M->nlevels; l++)
        for (int j = 0; j < 4; j++)
          ck_assert_msg((M->L[l].kw[j] != NULL) == (l >= 1 && l < M->nlevels - 1), "level %d work %d", l, j);
      ng_precond_destroy(P);
      ng_precond_destroy(Pv);
    }
    ng_vector_destroy(b);
    ng_matrix_destroy(A);
  }
  ng_matrix A;
  NG_ASSERT_OK(ng_matrix_generate(ctx, "lap7:8", &A, NULL));
  ng_options o;
  ng_precond P = NULL;
  NG_ASSERT_OK(ng_options_create(&o));
  NG_ASSERT_OK(ng_options_set_from_string(o, "-precond amg -amg_cycle k -amg_precision single"));
  ng_status st = ng_precond_create(ctx, o, A, &P);
  ck_assert_msg(st == NG_ERR_UNSUPPORTED && strstr(ng_last_error(), "-amg_cycle k"), "status %d, '%s'", st,
                ng_last_error());
  ng_options_destroy(o);
  ng_matrix_destroy(A);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("amg_cycle");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_unchecked_fixture(tc, setup, teardown);
  tcase_add_test(tc, fused_equals_unfused);
  tcase_add_test(tc, fine_format);
  tcase_add_test(tc, fine_format_fallbacks);
  tcase_add_test(tc, single_precision);
  tcase_add_test(tc, w_cycle);
  tcase_add_test(tc, w_cycle_spd);
  tcase_add_test(tc, k_cycle);
  suite_add_tcase(s, tc);
  return ng_test_run(s);
}
