/* test/test_amg_gpu.c: AMG on the GPU against the host. gpu_setup_matches_host:
 * the levels built on the GPU (-amg_setup gpu, -amg_gpu_min_rows 1000) have
 * the host's aggregates exactly, their P, R and coarse operators equal the host's to
 * 1e-12 relative (the rho estimates differ in the last bits, the Galerkin
 * sums are in another order), the same levels, AMG-PCG iterations within 1,
 * and the same after an update with scaled values; an update with the same
 * values rebuilds the GPU levels byte for byte. gpu_matches_host: with
 * the hierarchy built by the same host code, the GPU V-cycle applied to a random vector
 * must equal the host one to rounding (rho estimates and SpMV sums differ in
 * the last bits, amplified by the coarse solve: 1e-9 of max |z| is allowed,
 * a wrong level gives O(1)), and AMG-PCG must take the same number
 * of iterations within 1. gpu_smoothers_match_host: for every smoother
 * (jacobi, mcgs, mmcgs, chebyshev) the GPU colors every level exactly as
 * the host does, its V-cycle equals the host's to rounding and AMG-PCG /
 * PBiCGSTAB takes the host's iterations within 1; with the levels built on
 * the GPU an update with scaled values (device-only level values) keeps the
 * iterations. gpu_mcgs_device_setup: the mcgs / mmcgs colors and blocks
 * built on the device equal the host's (colors exactly, V-cycles to
 * rounding, also after an update), each level swept as planned: these small
 * levels in one cooperative launch, and with -amg_mcgs_coop_entries 0 a launch
 * per color, the 27-point finest level in color-DIA blocks, FP32 ones with
 * -amg_mcgs_values single (V-cycle within 1e-5, and not the FP64 one).
 * gpu_mcgs_residual: the cycle's level-0 residual from the mcgs blocks is
 * b - A x. gpu_coloring_stencil_guess: the natural order's stencil guess holds on
 * grids, fails on a cut grid and on real matrices, and the colors are the
 * host's either way. Skips (77) without a CUDA device. */
#include "testutil.h"
#include "true_residual.h"
#include "coloring_check.h"
#include "../solver/solver.h"
#include "../amg/amg.h"
#ifdef NG_HAVE_CUDA
#include "amg_cuda_host.h" /* the device state read back (test/amg_cuda_host.cu) */
#endif
#include "../smoother/smoother.h"
#include <math.h>
#include <stdlib.h>
#include <string.h>

static ng_context host, gpu;
static void setup(void)
{
  NG_ASSERT_OK(ng_context_create("gpu", &gpu));
  NG_ASSERT_OK(ng_context_create("cpu", &host));
}
static void teardown(void)
{
  ng_context_destroy(gpu);
  ng_context_destroy(host);
}


static ng_precond make_amg(ng_context c, ng_matrix A)
{
  return ng_test_amg(c, A, "-precond amg -amg_setup host -amg_sweeps 2,2,1");
}

static int pcg_iterations_opts(ng_context c, ng_matrix A, ng_vector b, const char *extra);
static int pcg_iterations(ng_context c, ng_matrix A, ng_vector b) { return pcg_iterations_opts(c, A, b, "-amg_setup host"); }
/* a solver of A on c with these options (its preconditioner set up) */
static ng_solver make_solver(ng_context c, ng_matrix A, const char *opts)
{
  ng_options o;
  ng_solver S;
  NG_ASSERT_OK(ng_options_create(&o));
  NG_ASSERT_OK(ng_options_set_from_string(o, opts));
  NG_ASSERT_OK(ng_solver_create(c, o, &S));
  ng_options_destroy(o);
  NG_ASSERT_OK(ng_solver_set_operator(S, A));
  return S;
}

static int pcg_iterations_opts(ng_context c, ng_matrix A, ng_vector b, const char *extra)
{
  char opt[512];
  ng_vector x;
  int its;
  snprintf(opt, sizeof(opt), "-solver pcg -precond amg -tol 1e-8 -amg_coarsening aggregation %s", extra);
  ng_solver S = make_solver(c, A, opt);
  NG_ASSERT_OK(ng_vector_create(A, &x));
  NG_ASSERT_OK(ng_vector_fill(x, 0.0));
  NG_ASSERT_OK(ng_solver_solve(S, b, x));
  NG_ASSERT_OK(ng_solver_get_iterations(S, &its));
  ng_vector_destroy(x);
  ng_solver_destroy(S);
  return its;
}

/* -amg_coarsening classical on a GPU context (the levels made on the host,
 * the cycle on the device) against the CPU context: the same V-cycle to
 * rounding, the same PCG iterations (within 1) on the hard classes. */
START_TEST(gpu_classical_matches_host)
{
  const char *specs[] = {"stretch7:12", "jump2q1:24", "spheres7:12"};
  for (int s = 0; s < 3; s++) {
    ng_matrix A[2];
    ng_vector b[2], r[2], z[2];
    ng_precond P[2];
    int its[2];
    ng_context c[2] = {host, gpu};
    for (int k = 0; k < 2; k++) {
      NG_ASSERT_OK(ng_matrix_generate(c[k], specs[s], &A[k], &b[k]));
      NG_ASSERT_OK(ng_vector_create(A[k], &r[k]));
      NG_ASSERT_OK(ng_vector_create(A[k], &z[k]));
    }
    int32_t n = A[0]->n_local;
    double *rv = malloc(n * sizeof(double)), *zh = malloc(n * sizeof(double)), *zg = malloc(n * sizeof(double));
    ng_test_random(rv, n);
    for (int k = 0; k < 2; k++) {
      P[k] = ng_test_amg(c[k], A[k], "-amg_coarsening classical");
      NG_ASSERT_OK(ng_vector_set_values(r[k], rv));
      NG_ASSERT_OK(ng_precond_apply(P[k], r[k], z[k]));
    }
    NG_ASSERT_OK(ng_vector_get_values(z[0], zh));
    NG_ASSERT_OK(ng_vector_get_values(z[1], zg));
    double dmax = 0, zmax = 0;
    for (int32_t i = 0; i < n; i++) {
      dmax = fmax(dmax, fabs(zh[i] - zg[i]));
      zmax = fmax(zmax, fabs(zh[i]));
    }
    ck_assert_msg(dmax <= 1e-9 * zmax, "%s classical: GPU V-cycle differs from the host by %.3e (max |z| %.3e)",
                  specs[s], dmax, zmax);
    for (int k = 0; k < 2; k++) its[k] = pcg_iterations_opts(c[k], A[k], b[k], "-amg_coarsening classical");
    printf("%s classical: V-cycle max difference %.2e (|z| %.2e), pcg iterations host %d gpu %d\n", specs[s], dmax,
           zmax, its[0], its[1]);
    ck_assert_msg(abs(its[0] - its[1]) <= 1, "%s classical: %d iterations on the host, %d on the GPU", specs[s],
                  its[0], its[1]);
    for (int k = 0; k < 2; k++) {
      ng_precond_destroy(P[k]);
      ng_vector_destroy(r[k]);
      ng_vector_destroy(z[k]);
      ng_vector_destroy(b[k]);
      ng_matrix_destroy(A[k]);
    }
    free(rv);
    free(zh);
    free(zg);
  }
}
END_TEST

START_TEST(gpu_matches_host)
{
  const char *specs[] = {"fem27:40", "lap27:33", "aniso27:24"};
  for (int s = 0; s < 3; s++) {
    ng_matrix A[2];
    ng_vector b[2], r[2], z[2];
    ng_precond P[2];
    int its[2];
    ng_context c[2] = {host, gpu};
    for (int k = 0; k < 2; k++) {
      NG_ASSERT_OK(ng_matrix_generate(c[k], specs[s], &A[k], &b[k]));
      NG_ASSERT_OK(ng_vector_create(A[k], &r[k]));
      NG_ASSERT_OK(ng_vector_create(A[k], &z[k]));
    }
    int32_t n = A[0]->n_local;
    double *rv = malloc(n * sizeof(double)), *zh = malloc(n * sizeof(double)), *zg = malloc(n * sizeof(double));
    ng_test_random(rv, n);
    for (int k = 0; k < 2; k++) {
      P[k] = make_amg(c[k], A[k]);
      NG_ASSERT_OK(ng_vector_set_values(r[k], rv));
      NG_ASSERT_OK(ng_precond_apply(P[k], r[k], z[k]));
    }
    NG_ASSERT_OK(ng_vector_get_values(z[0], zh));
    NG_ASSERT_OK(ng_vector_get_values(z[1], zg));
    double dmax = 0, zmax = 0;
    for (int32_t i = 0; i < n; i++) {
      dmax = fmax(dmax, fabs(zh[i] - zg[i]));
      zmax = fmax(zmax, fabs(zh[i]));
    }
    ck_assert_msg(dmax <= 1e-9 * zmax, "%s: GPU V-cycle differs from the host by %.3e (max |z| %.3e)", specs[s], dmax,
                  zmax);
    for (int k = 0; k < 2; k++) its[k] = pcg_iterations(c[k], A[k], b[k]);
    printf("%s: V-cycle max difference %.2e (|z| %.2e), pcg iterations host %d gpu %d\n", specs[s], dmax, zmax, its[0],
           its[1]);
    ck_assert_int_le(abs(its[0] - its[1]), 1);
    for (int k = 0; k < 2; k++) {
      ng_precond_destroy(P[k]);
      ng_vector_destroy(z[k]);
      ng_vector_destroy(r[k]);
      ng_vector_destroy(b[k]);
      ng_matrix_destroy(A[k]);
    }
    free(rv);
    free(zh);
    free(zg);
  }
}
END_TEST

#ifdef NG_HAVE_CUDA
/* Same pattern; values equal to rel of the largest |value|. */
static void assert_csr_close(const ng_csr *H, const ng_csr *G, double rel, const char *what, const char *spec)
{
  ck_assert_msg(H->nrows == G->nrows && H->ncols == G->ncols && H->nnz == G->nnz,
                "%s %s: %dx%d with %lld entries on the GPU, %dx%d with %lld on the host", spec, what, (int)G->nrows,
                (int)G->ncols, (long long)G->nnz, (int)H->nrows, (int)H->ncols, (long long)H->nnz);
  double vmax = 0, dmax = 0;
  for (int32_t i = 0; i <= H->nrows; i++)
    ck_assert_msg(H->rowptr[i] == G->rowptr[i], "%s %s: row offsets differ at %d", spec, what, (int)i);
  for (int64_t k = 0; k < H->nnz; k++) {
    ck_assert_msg(H->col[k] == G->col[k], "%s %s: column %lld differs (%d vs %d)", spec, what, (long long)k,
                  (int)G->col[k], (int)H->col[k]);
    vmax = fmax(vmax, fabs(H->val[k]));
    dmax = fmax(dmax, fabs(H->val[k] - G->val[k]));
  }
  ck_assert_msg(dmax <= rel * vmax, "%s %s: values differ by %.3e (max %.3e)", spec, what, dmax, vmax);
}

/* Mg (levels built on the GPU while big enough) against the host-built Mh. */
static void compare_hierarchies(ng_amg *Mh, ng_amg *Mg, const char *spec)
{
  ck_assert_msg(Mg->gpu != NULL && Mg->L[0].gpu, "%s: the finest level was not built on the GPU", spec);
  ck_assert_int_eq(Mh->nlevels, Mg->nlevels);
  for (int l = 0; l < Mg->nlevels - 1 && Mg->L[l].gpu; l++) {
    ng_csr P = {0}, R = {0}, Ac = {0};
    char what[64];
    ck_assert_int_eq(Mh->L[l].nagg, Mg->L[l].nagg);
    NG_ASSERT_OK(ng_amg_gpu_aggregates(Mg, l));
    for (int32_t i = 0; i < Mh->L[l].s.n; i++)
      ck_assert_msg(Mh->L[l].agg[i] == Mg->L[l].agg[i], "%s level %d: row %d in aggregate %d on the GPU, %d on the host",
                    spec, l, (int)i, (int)Mg->L[l].agg[i], (int)Mh->L[l].agg[i]);
    NG_ASSERT_OK(ng_amg_gpu_download(Mg, l, &P, &R, &Ac));
    snprintf(what, sizeof(what), "level %d P", l);
    assert_csr_close(&Mh->L[l].P, &P, 1e-12, what, spec);
    snprintf(what, sizeof(what), "level %d R", l);
    assert_csr_close(&Mh->L[l].R, &R, 1e-12, what, spec);
    /* the device product, and the host copy made current on demand (the
     * setup leaves it on the device for a GPU level fed by a GPU level; an
     * update refreshes only the device values there) */
    snprintf(what, sizeof(what), "level %d A (device)", l + 1);
    /* with -amg_sparsify the device sparsifies its product as the host does */
    assert_csr_close(&Mh->L[l + 1].A, &Ac, 1e-12, what, spec);
    NG_ASSERT_OK(ng_amg_level_host(Mg, l + 1));
    ck_assert_int_eq(Mg->L[l + 1].host_stale, 0);
    snprintf(what, sizeof(what), "level %d A (host copy)", l + 1);
    assert_csr_close(&Mh->L[l + 1].A, &Mg->L[l + 1].A, 1e-12, what, spec);
    ng_csr_free(&P);
    ng_csr_free(&R);
    ng_csr_free(&Ac);
  }
  /* rho of every level (those after a GPU level estimated on the device) */
  for (int l = 0; l < Mg->nlevels; l++)
    ck_assert_msg(fabs(Mh->L[l].s.rho - Mg->L[l].s.rho) <= 1e-10 * Mh->L[l].s.rho, "%s level %d: rho %.15g on the GPU, %.15g on the host",
                  spec, l, Mg->L[l].s.rho, Mh->L[l].s.rho);
}

/* Every GPU level's P, R and device A_c, and every level's rho (copies). */
typedef struct {
  int n;
  double rho[16];
  ng_csr X[16][3];
} snapshot;
static void take_snapshot(ng_amg *M, snapshot *S)
{
  memset(S, 0, sizeof(*S));
  ck_assert_int_le(M->nlevels, 16);
  S->n = M->nlevels;
  for (int l = 0; l < M->nlevels; l++) {
    S->rho[l] = M->L[l].s.rho;
    if (l < M->nlevels - 1 && M->L[l].gpu) NG_ASSERT_OK(ng_amg_gpu_download(M, l, &S->X[l][0], &S->X[l][1], &S->X[l][2]));
  }
}
/* An update with unchanged values must rebuild the setup's hierarchy byte
 * for byte: every level's rho, P, R and A_c (the same kernels on the same
 * values; the Galerkin products add in a fixed order, no floating-point
 * atomics). A warm-started or stale value differs. */
static void assert_same_snapshot(const snapshot *a, const snapshot *b, const char *spec)
{
  ck_assert_int_eq(a->n, b->n);
  for (int l = 0; l < a->n; l++) {
    ck_assert_msg(a->rho[l] == b->rho[l],
                  "%s level %d: rho %.17g after the update, %.17g at setup", spec, l, b->rho[l], a->rho[l]);
    for (int q = 0; q < 3; q++) {
      const ng_csr *X = &a->X[l][q], *Y = &b->X[l][q];
      ck_assert_int_eq(X->nnz, Y->nnz);
      if (!X->val) continue;
      double vmax = 0, dmax = 0;
      for (int64_t k = 0; k < X->nnz; k++) {
        vmax = fmax(vmax, fabs(X->val[k]));
        dmax = fmax(dmax, fabs(X->val[k] - Y->val[k]));
      }
      ck_assert_msg(dmax == 0 && memcmp(X->val, Y->val, (size_t)X->nnz * sizeof(double)) == 0,
                    "%s level %d %s: values changed by %.3e (max %.3e) in an update with the same values", spec, l,
                    q == 0 ? "P" : q == 1 ? "R" : "A_c", dmax, vmax);
    }
  }
}
static void free_snapshot(snapshot *S)
{
  for (int l = 0; l < S->n; l++)
    for (int q = 0; q < 3; q++) ng_csr_free(&S->X[l][q]);
}

#ifdef NG_HAVE_CUDA
/* ||b - W x|| / ||b|| on the host, x read back from the device */
static double true_rel(const ng_csr *W, const double *b, ng_vector x)
{
  double *xh = malloc(((size_t)W->nrows + 1) * sizeof(double));
  NG_ASSERT_OK(ng_vector_get_values(x, xh));
  double rel = ng_test_true_rel(W, b, xh);
  free(xh);
  return rel;
}

/* The Krylov products run on AMG's finest-level copy of A (dia_half) while
 * it holds A's values (ng_op_apply, amg.c's operator_table): a solve with
 * the default AMG lends them and meets the tolerance in the true residual.
 * New matrix values without a preconditioner update leave the copy stale:
 * the products then use the matrix, and the solve answers the new system
 * (with the stale copy it would answer the old one: 1e-1 off here). After
 * ng_precond_update the copy is current and lent again. */
START_TEST(gpu_krylov_products_on_the_fine_copy)
{
  ng_csr W;
  double *b;
  NG_ASSERT_OK(ng_generate_csr("lap27:20", &W, &b));
  int32_t n = W.nrows;
  ng_matrix A;
  ng_vector vb, x;
  ng_precond P;
  int its;
  NG_ASSERT_OK(ng_matrix_create_csr(gpu, n, n, W.rowptr, W.col, W.val, &A));
  NG_ASSERT_OK(ng_vector_create(A, &vb));
  NG_ASSERT_OK(ng_vector_create(A, &x));
  NG_ASSERT_OK(ng_vector_set_values(vb, b));
  ng_solver S = make_solver(gpu, A, "-solver pcg -precond amg -tol 1e-10");
  NG_ASSERT_OK(ng_solver_get_precond(S, &P));
  NG_ASSERT_OK(ng_vector_fill(x, 0.0));
  NG_ASSERT_OK(ng_solver_solve(S, vb, x));
  NG_ASSERT_OK(ng_solver_get_iterations(S, &its));
  int64_t lent = S->lent_products;
  ck_assert_msg(lent >= its, "%lld products lent for %d iterations", (long long)lent, its);
  double rel = true_rel(&W, b, x);
  ck_assert_msg(rel < 1e-9, "true relative residual %.3e with the lent products", rel);
  /* new values: the diagonal doubled (still SPD) */
  for (int32_t i = 0; i < n; i++)
    for (int64_t k = W.rowptr[i]; k < W.rowptr[i + 1]; k++)
      if (W.col[k] == i) W.val[k] *= 2.0;
  NG_ASSERT_OK(ng_matrix_update_values(A, W.val));
  NG_ASSERT_OK(ng_vector_fill(x, 0.0));
  NG_ASSERT_OK(ng_solver_solve(S, vb, x));
  ck_assert_msg(S->lent_products == lent, "%lld products lent from a stale copy",
                (long long)(S->lent_products - lent));
  rel = true_rel(&W, b, x);
  ck_assert_msg(rel < 1e-9, "true relative residual %.3e of the new system, stale preconditioner", rel);
  NG_ASSERT_OK(ng_precond_update(P, A));
  NG_ASSERT_OK(ng_vector_fill(x, 0.0));
  NG_ASSERT_OK(ng_solver_solve(S, vb, x));
  NG_ASSERT_OK(ng_solver_get_iterations(S, &its));
  ck_assert_msg(S->lent_products >= lent + its, "%lld products lent after the update for %d iterations",
                (long long)(S->lent_products - lent), its);
  rel = true_rel(&W, b, x);
  ck_assert_msg(rel < 1e-9, "true relative residual %.3e after the update", rel);
  ng_solver_destroy(S);
  ng_vector_destroy(vb);
  ng_vector_destroy(x);
  ng_matrix_destroy(A);
  ng_csr_free(&W);
  free(b);
}
END_TEST
#endif

START_TEST(gpu_setup_matches_host)
{
  /* the 27-point cases with the exact Galerkin product (-amg_sparsify 0:
   * levels after the finest built on the device from its product), the
   * 7-point ones with the defaults (sparsified: the finest level's transfer
   * on the GPU, the rest on the host; signed strength and the filter on the
   * device too) */
  const char *specs[] = {"fem27:40", "lap27:33", "aniso27:24", "lap7:40", "het7:32"};
  for (int s = 0; s < 5; s++) specs[s] = ng_test_spec(specs[s]); /* smaller under racecheck */
  for (int s = 0; s < 5; s++) {
    ng_matrix A[2];
    ng_vector b[2];
    ng_precond P[2];
    ng_context c[2] = {host, gpu};
    int its[2];
    const char *extra = s < 3 ? " -amg_sparsify 0" : "";
    char o1[160], o2[160];
    for (int k = 0; k < 2; k++) {
      NG_ASSERT_OK(ng_matrix_generate(c[k], specs[s], &A[k], &b[k]));
      /* GPU: every level of >= 1000 rows on the device (fem27:40's level 1 too) */
      snprintf(o1, sizeof(o1), "%s%s", k ? "-precond amg -amg_setup gpu -amg_gpu_min_rows 1000" : "-precond amg -amg_setup host", extra);
      P[k] = ng_test_amg(c[k], A[k], o1);
    }
    /* a GPU level after a GPU level: its host copy was never made (2) */
    ng_amg *Mg = ng_amg_of(P[1]);
    for (int l = 1; l < Mg->nlevels; l++)
      ck_assert_int_eq(Mg->L[l].host_stale, Mg->L[l].gpu && Mg->L[l - 1].gpu ? 2 : 0);
    compare_hierarchies(ng_amg_of(P[0]), ng_amg_of(P[1]), specs[s]); /* makes them (ng_amg_level_host) */
    for (int k = 0; k < 2; k++) {
      snprintf(o2, sizeof(o2), "%s%s", k ? "-amg_setup gpu -amg_gpu_min_rows 1000" : "-amg_setup host", extra);
      its[k] = pcg_iterations_opts(c[k], A[k], b[k], o2);
    }
    ck_assert_int_le(abs(its[0] - its[1]), 1);
    /* update with the same values: the same hierarchy exactly */
    int64_t nnz = A[0]->local.nnz;
    double *val = malloc((size_t)nnz * sizeof(double));
    snapshot before, after;
    take_snapshot(ng_amg_of(P[1]), &before);
    memcpy(val, A[1]->local.val, (size_t)nnz * sizeof(double));
    NG_ASSERT_OK(ng_matrix_update_values(A[1], val));
    NG_ASSERT_OK(ng_precond_update(P[1], A[1]));
    take_snapshot(ng_amg_of(P[1]), &after);
    assert_same_snapshot(&before, &after, specs[s]);
    free_snapshot(&before);
    free_snapshot(&after);
    /* update with values times 3 (same pattern) */
    for (int64_t k = 0; k < nnz; k++) val[k] = 3.0 * A[0]->local.val[k];
    for (int k = 0; k < 2; k++) {
      NG_ASSERT_OK(ng_matrix_update_values(A[k], val));
      NG_ASSERT_OK(ng_precond_update(P[k], A[k]));
    }
    free(val);
    /* a GPU level after a GPU level kept only its device values current (1) */
    for (int l = 1; l < Mg->nlevels; l++)
      ck_assert_int_eq(Mg->L[l].host_stale, Mg->L[l].gpu && Mg->L[l - 1].gpu);
    compare_hierarchies(ng_amg_of(P[0]), ng_amg_of(P[1]), specs[s]);
    int its2 = pcg_iterations_opts(gpu, A[1], b[1], o2);
    printf("%s: GPU setup matches the host; pcg iterations host %d gpu %d, after update gpu %d\n", specs[s], its[0],
           its[1], its2);
    ck_assert_int_le(abs(its2 - its[1]), 1);
    for (int k = 0; k < 2; k++) {
      ng_precond_destroy(P[k]);
      ng_vector_destroy(b[k]);
      ng_matrix_destroy(A[k]);
    }
  }
}
END_TEST
#endif

START_TEST(gpu_smoothers_match_host)
{
  const char *sm[] = {"jacobi", "mcgs", "mmcgs", "chebyshev"};
  struct { const char *spec, *solver; } c[] = {{"fem27:40", "pcg"}, {"aniso27:24", "pbicgstab"}};
  for (int q = 0; q < 2; q++) c[q].spec = ng_test_spec(c[q].spec); /* smaller under racecheck */
  for (int q = 0; q < 2; q++)
    for (int s = 0; s < 4; s++) {
      ng_matrix A[2];
      ng_vector b[2], r[2], z[2];
      ng_precond P[2];
      ng_context cx[2] = {host, gpu};
      char opt[200];
      int its[2];
      snprintf(opt, sizeof(opt), "-precond amg -amg_setup host -amg_smoother %s", sm[s]);
      for (int k = 0; k < 2; k++) {
        NG_ASSERT_OK(ng_matrix_generate(cx[k], c[q].spec, &A[k], &b[k]));
        NG_ASSERT_OK(ng_vector_create(A[k], &r[k]));
        NG_ASSERT_OK(ng_vector_create(A[k], &z[k]));
        P[k] = ng_test_amg(cx[k], A[k], opt);
      }
      ng_amg *Mh = ng_amg_of(P[0]), *Mg = ng_amg_of(P[1]);
      ck_assert_int_eq(Mh->nlevels, Mg->nlevels);
      for (int l = 0; l < Mh->nlevels; l++) {
        int nh = 0, ng = 0;
        const int32_t *ch = ng_smoother_row_colors(Mh->sopts.ops, &Mh->L[l].s, &nh), *cg = ng_smoother_row_colors(Mg->sopts.ops, &Mg->L[l].s, &ng);
        if (!ch || !Mh->L[l].s.sdata) continue;
        ck_assert_int_eq(nh, ng);
        ck_assert_msg(memcmp(ch, cg, (size_t)Mh->L[l].s.n * sizeof(int32_t)) == 0,
                      "%s %s level %d: GPU colors differ from the host's", c[q].spec, sm[s], l);
      }
      int32_t n = A[0]->n_local;
      double *rv = malloc(n * sizeof(double)), *zh = malloc(n * sizeof(double)), *zg = malloc(n * sizeof(double));
      ng_test_random(rv, n);
      for (int k = 0; k < 2; k++) {
        NG_ASSERT_OK(ng_vector_set_values(r[k], rv));
        NG_ASSERT_OK(ng_precond_apply(P[k], r[k], z[k]));
      }
      NG_ASSERT_OK(ng_vector_get_values(z[0], zh));
      NG_ASSERT_OK(ng_vector_get_values(z[1], zg));
      double dmax = 0, zmax = 0;
      for (int32_t i = 0; i < n; i++) {
        dmax = fmax(dmax, fabs(zh[i] - zg[i]));
        zmax = fmax(zmax, fabs(zh[i]));
      }
      ck_assert_msg(dmax <= 1e-9 * zmax, "%s %s: GPU V-cycle differs from the host by %.3e (max |z| %.3e)", c[q].spec,
                    sm[s], dmax, zmax);
      for (int k = 0; k < 2; k++) {
        char o2[200];
        ng_options o;
        ng_solver S;
        ng_vector x;
        snprintf(o2, sizeof(o2), "-solver %s -precond amg -tol 1e-8 -amg_coarsening aggregation -amg_setup %s -amg_smoother %s", c[q].solver,
                 k ? "gpu -amg_gpu_min_rows 1000" : "host", sm[s]);
        NG_ASSERT_OK(ng_options_create(&o));
        NG_ASSERT_OK(ng_options_set_from_string(o, o2));
        NG_ASSERT_OK(ng_solver_create(cx[k], o, &S));
        NG_ASSERT_OK(ng_solver_set_operator(S, A[k]));
        NG_ASSERT_OK(ng_vector_create(A[k], &x));
        NG_ASSERT_OK(ng_vector_fill(x, 0.0));
        NG_ASSERT_OK(ng_solver_solve(S, b[k], x));
        NG_ASSERT_OK(ng_solver_get_iterations(S, &its[k]));
        if (k) { /* GPU-built levels: an update with values times 3 (device-only values below the finest) */
          int64_t nnz = A[k]->local.nnz;
          double *val = malloc((size_t)nnz * sizeof(double));
          int its3;
          for (int64_t p = 0; p < nnz; p++) val[p] = 3.0 * A[k]->local.val[p];
          NG_ASSERT_OK(ng_matrix_update_values(A[k], val));
          NG_ASSERT_OK(ng_solver_set_operator(S, A[k]));
          NG_ASSERT_OK(ng_vector_fill(x, 0.0));
          NG_ASSERT_OK(ng_solver_solve(S, b[k], x));
          NG_ASSERT_OK(ng_solver_get_iterations(S, &its3));
          printf("%s %-9s %-9s: V-cycle difference %.2e (|z| %.2e), iterations host %d gpu %d, gpu setup after update "
                 "(3A) %d\n", c[q].spec, c[q].solver, sm[s], dmax, zmax, its[0], its[1], its3);
          ck_assert_int_le(abs(its3 - its[1]), 1);
          for (int64_t p = 0; p < nnz; p++) val[p] /= 3.0;
          NG_ASSERT_OK(ng_matrix_update_values(A[k], val));
          free(val);
        }
        ng_vector_destroy(x);
        ng_solver_destroy(S);
        ng_options_destroy(o);
      }
      ck_assert_msg(abs(its[0] - its[1]) <= 1, "%s %s: %d iterations on the host, %d on the GPU", c[q].spec, sm[s],
                    its[0], its[1]);
      free(rv); free(zh); free(zg);
      for (int k = 0; k < 2; k++) {
        ng_precond_destroy(P[k]);
        ng_vector_destroy(z[k]);
        ng_vector_destroy(r[k]);
        ng_vector_destroy(b[k]);
        ng_matrix_destroy(A[k]);
      }
    }
}
END_TEST

/* max |zh - zg| / max |zh| of one V-cycle on a random vector (the same on both contexts). */
static double vcycle_diff(ng_precond P[2], ng_vector r[2], ng_vector z[2], int32_t n)
{
  double *rv = malloc(n * sizeof(double)), *zh = malloc(n * sizeof(double)), *zg = malloc(n * sizeof(double));
  ng_test_random(rv, n);
  for (int k = 0; k < 2; k++) {
    NG_ASSERT_OK(ng_vector_set_values(r[k], rv));
    NG_ASSERT_OK(ng_precond_apply(P[k], r[k], z[k]));
  }
  NG_ASSERT_OK(ng_vector_get_values(z[0], zh));
  NG_ASSERT_OK(ng_vector_get_values(z[1], zg));
  double dmax = 0, zmax = 0;
  for (int32_t i = 0; i < n; i++) {
    dmax = fmax(dmax, fabs(zh[i] - zg[i]));
    zmax = fmax(zmax, fabs(zh[i]));
  }
  free(rv); free(zh); free(zg);
  return zmax > 0 ? dmax / zmax : dmax;
}

/* The mcgs / mmcgs setup on the device (colors, grouping, per-color blocks
 * from the level's device CSR; smoother_mcgs_cuda.cu): every smoothed level
 * of the GPU hierarchy was built there, its colors are the host's exactly
 * (the finest level's from the early coloring where mcgs colors it in row
 * order), the V-cycle equals the host's to rounding, and again after an
 * update with values times 3 (values refreshed on the device); for each
 * coloring order, the seed's configuration (mmcgs colors below the finest)
 * and FP32 blocks, and for both ways of sweeping (mode, below). */
START_TEST(gpu_mcgs_device_setup)
{
  const char *cfg[] = {"-amg_smoother mcgs", "-amg_smoother mcgs -amg_coloring hash", "-amg_smoother mmcgs",
                       "-amg_smoother mcgs -amg_mcgs_coarse mmcgs -amg_sweeps 4,3,2,1",
                       "-amg_smoother mcgs -amg_mcgs_values single"};
  const char *specs[] = {"fem27:40", "aniso27:24"};
  /* mode 0: these levels sweep in one cooperative launch each (they are
   * small); mode 1 (-amg_mcgs_coop_entries 0): a launch per color, the
   * 27-point finest level in color-DIA blocks, as big levels run */
  for (int mode = 0; mode < 2; mode++)
  for (int q = 0; q < 2; q++)
    for (int s = 0; s < 5; s++) {
      ng_matrix A[2];
      ng_vector r[2], z[2];
      ng_precond P[2];
      ng_context cx[2] = {host, gpu};
      char opt[256];
      snprintf(opt, sizeof(opt), "-precond amg -amg_setup host -amg_coarse_size 50 %s%s", cfg[s],
               mode ? " -amg_mcgs_coop_entries 0" : "");
      for (int k = 0; k < 2; k++) {
        NG_ASSERT_OK(ng_matrix_generate(cx[k], specs[q], &A[k], NULL));
        NG_ASSERT_OK(ng_vector_create(A[k], &r[k]));
        NG_ASSERT_OK(ng_vector_create(A[k], &z[k]));
        P[k] = ng_test_amg(cx[k], A[k], opt);
      }
      ng_amg *Mh = ng_amg_of(P[0]), *Mg = ng_amg_of(P[1]);
      ck_assert_int_eq(Mh->nlevels, Mg->nlevels);
      int smoothed = 0;
      for (int l = 0; l < Mh->nlevels; l++) {
        int nh = 0, ng = 0;
        const int32_t *ch = ng_smoother_row_colors(Mh->sopts.ops, &Mh->L[l].s, &nh), *cg = ng_smoother_row_colors(Mg->sopts.ops, &Mg->L[l].s, &ng);
        if (!ch || !Mh->L[l].s.sdata) continue;
        smoothed++;
        /* a level in the 64-bit offset layout (NG_CSR_OFFSETS64 forces it on
         * the finest) is built on the host by design */
        if (l > 0 || !getenv("NG_CSR_OFFSETS64"))
          ck_assert_msg(ng_smoother_built_on_device(Mg->sopts.ops, &Mg->L[l].s), "%s %s level %d: not built on the device", specs[q], cfg[s],
                        l);
        ck_assert(!ng_smoother_built_on_device(Mh->sopts.ops, &Mh->L[l].s));
        ck_assert_int_eq(nh, ng);
        ck_assert_msg(memcmp(ch, cg, (size_t)Mh->L[l].s.n * sizeof(int32_t)) == 0,
                      "%s %s level %d: device colors differ from the host's", specs[q], cfg[s], l);
        if (l == 0 && !strstr(cfg[s], "hash")) ck_assert_int_le(nh, 8); /* natural order on a 27-point grid */
        const char *how = ng_smoother_sweep_kind(Mg->sopts.ops, &Mg->L[l].s);
        ck_assert(how != NULL);
        if (!mode) ck_assert_msg(strstr(how, "one launch") != NULL, "level %d sweeps by: %s", l, how);
        else if (strstr(cfg[s], "single")) ck_assert_msg(strstr(how, "FP32") != NULL, "level %d sweeps by: %s", l, how);
        else if (l == 0 && strcmp(cfg[s], "-amg_smoother mmcgs") != 0) /* every coupling colored: DIA fits */
          ck_assert_msg(strstr(how, "color-DIA") != NULL, "%s %s level 0 sweeps by: %s", specs[q], cfg[s], how);
        else ck_assert_msg(strstr(how, "launch per color") != NULL, "level %d sweeps by: %s", l, how);
      }
      ck_assert_int_ge(smoothed, 2);
      if (s == 0) { /* -amg_smoother_setup host on the GPU context: the host layout, the same colors */
        snprintf(opt, sizeof(opt), "-precond amg -amg_setup host -amg_coarse_size 50 -amg_smoother_setup host %s", cfg[s]);
        ng_precond Q = ng_test_amg(gpu, A[1], opt);
        ng_amg *Mq = ng_amg_of(Q);
        for (int l = 0; l < Mq->nlevels; l++) {
          int nq = 0, nh = 0;
          const int32_t *cq = ng_smoother_row_colors(Mq->sopts.ops, &Mq->L[l].s, &nq), *ch = ng_smoother_row_colors(Mh->sopts.ops, &Mh->L[l].s, &nh);
          if (!cq || !Mq->L[l].s.sdata) continue;
          ck_assert(!ng_smoother_built_on_device(Mq->sopts.ops, &Mq->L[l].s));
          ck_assert_int_eq(nq, nh);
          ck_assert(memcmp(cq, ch, (size_t)Mq->L[l].s.n * sizeof(int32_t)) == 0);
        }
        ng_precond_destroy(Q);
      }
      int32_t n = A[0]->n_local;
      double d0 = vcycle_diff(P, r, z, n);
      /* an update with values times 3: the device blocks refreshed from the device CSR */
      int64_t nnz = A[0]->local.nnz;
      double *val = malloc((size_t)nnz * sizeof(double));
      for (int64_t p = 0; p < nnz; p++) val[p] = 3.0 * A[0]->local.val[p];
      for (int k = 0; k < 2; k++) {
        NG_ASSERT_OK(ng_matrix_update_values(A[k], val));
        NG_ASSERT_OK(ng_precond_update(P[k], A[k]));
      }
      free(val);
      double d3 = vcycle_diff(P, r, z, n);
      printf("%s %s (%s): device setup, V-cycle relative difference %.2e, after update (3A) %.2e\n", specs[q], cfg[s],
             mode ? "a launch per color" : "cooperative", d0, d3);
      /* FP32 blocks (the launch-per-color levels of mode 1): the V-cycle to FP32 rounding of the values */
      double tol = mode && strstr(cfg[s], "single") ? 1e-5 : 1e-9;
      ck_assert_msg(d0 <= tol && d3 <= tol, "%s %s: GPU V-cycle differs from the host: %.3e / %.3e after update",
                    specs[q], cfg[s], d0, d3);
      if (mode && strstr(cfg[s], "single")) ck_assert_msg(d0 > 1e-12, "FP32 blocks gave the FP64 V-cycle exactly");
      for (int k = 0; k < 2; k++) {
        ng_precond_destroy(P[k]);
        ng_vector_destroy(z[k]);
        ng_vector_destroy(r[k]);
        ng_matrix_destroy(A[k]);
      }
    }
}
END_TEST

/* The cycle's level-0 residual from the mcgs / mmcgs blocks (the hierarchy
 * keeps no copy of the matrix of its own then, -amg_fine_format auto):
 * b - A x as the host's CSR gives it, to rounding with FP64 blocks
 * (color-DIA, ELL, mmcgs's ELL with intra-color couplings; mode 0: the
 * ELL of a level swept in one launch) and to FP32 rounding with
 * -amg_mcgs_values single; a wrong slot or row gives O(1). */
START_TEST(gpu_mcgs_residual)
{
  const char *cfg[] = {"-amg_smoother mcgs", "-amg_smoother mmcgs", "-amg_smoother mcgs -amg_mcgs_values single"};
  for (int mode = 0; mode < 2; mode++)
    for (int s = 0; s < 3; s++) {
      ng_matrix A;
      ng_vector b, x, r;
      char opt[256];
      NG_ASSERT_OK(ng_matrix_generate(gpu, "aniso27:24", &A, NULL));
      snprintf(opt, sizeof(opt), "-precond amg -amg_coarse_size 50 %s%s", cfg[s],
               mode ? " -amg_mcgs_coop_entries 0" : "");
      ng_precond P = ng_test_amg(gpu, A, opt);
      ng_amg *M = ng_amg_of(P);
      ck_assert_msg(M->L[0].s.Aops == NULL, "%s: the hierarchy made a copy of the finest matrix", cfg[s]);
      const char *how = ng_smoother_sweep_kind(M->sopts.ops, &M->L[0].s);
      ck_assert(how != NULL);
      if (mode) ck_assert_msg(strstr(how, "color-DIA") || strstr(cfg[s], "mmcgs"), "level 0 sweeps by: %s", how);
      else ck_assert_msg(strstr(how, "one launch") != NULL, "level 0 sweeps by: %s", how);
      int32_t n = A->n_local;
      double *bh = malloc(n * sizeof(double)), *xh = malloc(n * sizeof(double)), *rh = malloc(n * sizeof(double));
      ng_test_random(bh, n);
      ng_test_random(xh, n);
      NG_ASSERT_OK(ng_vector_create(A, &b));
      NG_ASSERT_OK(ng_vector_create(A, &x));
      NG_ASSERT_OK(ng_vector_create(A, &r));
      NG_ASSERT_OK(ng_vector_set_values(b, bh));
      NG_ASSERT_OK(ng_vector_set_values(x, xh));
      NG_ASSERT_OK(ng_amg_residual(P, M, 0, b->data, x->data, r->data));
      NG_ASSERT_OK(ng_vector_get_values(r, rh));
      const ng_csr *H = &A->local;
      double dmax = 0, rmax = 0;
      for (int32_t i = 0; i < n; i++) {
        double ri = bh[i];
        for (int64_t k = H->rowptr[i]; k < H->rowptr[i + 1]; k++) ri -= H->val[k] * xh[H->col[k]];
        dmax = fmax(dmax, fabs(ri - rh[i]));
        rmax = fmax(rmax, fabs(ri));
      }
      double tol = strstr(cfg[s], "single") ? 1e-6 : 1e-13;
      printf("%s (%s): level-0 residual from the blocks, relative difference %.2e\n", cfg[s], how, dmax / rmax);
      ck_assert_msg(dmax <= tol * rmax, "%s: residual differs by %.3e (max %.3e)", cfg[s], dmax, rmax);
      if (mode && strstr(cfg[s], "single")) ck_assert_msg(dmax > 0, "FP32 blocks gave the FP64 residual exactly");
      free(bh); free(xh); free(rh);
      ng_vector_destroy(b);
      ng_vector_destroy(x);
      ng_vector_destroy(r);
      ng_precond_destroy(P);
      ng_matrix_destroy(A);
    }
}
END_TEST

#ifdef NG_HAVE_CUDA
/* The natural order's stencil guess (coloring_cuda.cu) against the host's
 * first-fit coloring in row order: on 7-point grids (a box and a plane) and
 * 27-point ones the guess holds (NG_COLORING_GUESS=only succeeds) and its
 * colors are the host's; on a 27-point grid with one coupling removed and
 * on real matrices it does not (=only fails) and the greedy kernel's colors
 * (by default, and with =off on every graph) are the host's. */
static ng_status color_gpu_with(const char *mode, const ng_graph *G, int32_t *color, int *nc)
{
  if (mode) setenv("NG_COLORING_GUESS", mode, 1);
  else unsetenv("NG_COLORING_GUESS");
  ng_status st = ng_coloring_cuda.color(gpu, G, NG_COLOR_NATURAL, color, nc);
  unsetenv("NG_COLORING_GUESS");
  return st;
}

/* G without the coupling (v, u), both ways. */
static void graph_cut(const ng_graph *G, int32_t v, int32_t u, ng_graph *H)
{
  int32_t n = G->n;
  H->n = n;
  H->rowptr = malloc(((size_t)n + 1) * sizeof(int64_t));
  H->col = malloc((size_t)G->rowptr[n] * sizeof(int32_t));
  int64_t p = 0;
  H->rowptr[0] = 0;
  for (int32_t i = 0; i < n; i++) {
    for (int64_t k = G->rowptr[i]; k < G->rowptr[i + 1]; k++)
      if (!((i == v && G->col[k] == u) || (i == u && G->col[k] == v))) H->col[p++] = G->col[k];
    H->rowptr[i + 1] = p;
  }
  ck_assert_int_eq(p, G->rowptr[n] - 2);
}

START_TEST(gpu_coloring_stencil_guess)
{
  const char *src[] = {"lap7:12", "lap7:17x9x1", "lap27:11", "fem27:9x7x6", "aniso27:10", "lap27:13", "bcsstk13.mtx",
                       "jagmesh7.mtx"};
  for (int q = 0; q < 8; q++) {
    int cut = q == 5, grid = q < 5;
    ng_matrix A;
    ng_graph G, H;
    if (strstr(src[q], ".mtx")) NG_ASSERT_OK(ng_matrix_read_mtx(host, ng_test_data(src[q]), &A));
    else NG_ASSERT_OK(ng_matrix_generate(host, src[q], &A, NULL));
    NG_ASSERT_OK(ng_coloring_graph(&A->local, 0.0, &G));
    if (cut) { /* lap27:13: row (5, 5, 5) loses its lower neighbour (4, 5, 5), the only one of color 6 */
      int32_t v = 5 + 13 * (5 + 13 * 5);
      graph_cut(&G, v, v - 1, &H);
      ng_graph_free(&G);
      G = H;
    }
    int32_t n = G.n, *ref = malloc(n * sizeof(int32_t)), *c = malloc(n * sizeof(int32_t));
    int nref = 0, nc = 0;
    NG_ASSERT_OK(ng_coloring_host.color(host, &G, NG_COLOR_NATURAL, ref, &nref));
    ck_assert(ng_test_coloring_valid(&G, ref));
    const char *modes[] = {"off", NULL, "only"};
    for (int m = 0; m < 3; m++) {
      memset(c, 0xff, n * sizeof(int32_t));
      ng_status st = color_gpu_with(modes[m], &G, c, &nc);
      if (m == 2 && !grid) {
        ck_assert_msg(st == NG_ERR_UNSUPPORTED, "%s: the stencil guess held (status %d)", src[q], (int)st);
        continue;
      }
      ck_assert_msg(st == NG_SUCCESS, "%s mode %s: %s", src[q], modes[m] ? modes[m] : "default", ng_last_error());
      int32_t d = 0;
      while (d < n && c[d] == ref[d]) d++;
      ck_assert_msg(d == n, "%s mode %s: GPU natural colors differ from the host's first at row %d (%d, host %d)",
                    src[q], modes[m] ? modes[m] : "default", (int)d, (int)c[d < n ? d : 0], (int)ref[d < n ? d : 0]);
      ck_assert_int_eq(nc, nref);
    }
    printf("%s: %d natural colors, the stencil guess %s\n", src[q], nref, grid ? "held" : "did not hold");
    free(ref);
    free(c);
    ng_graph_free(&G);
    ng_matrix_destroy(A);
  }
}
END_TEST

/* The coarsest dense inverse on the device (amg/amg_coarse_cuda.cu) against
 * the host's pivoting one: a symmetric indefinite operator (a 2D Laplacian
 * shifted between its two smallest eigenvalues, one negative pivot in the
 * natural order, as -amg_sparsify makes of fem27:256's coarsest level),
 * scaled by a fresh random diagonal (the inertia kept), is inverted on the
 * device and equals the host's inverse to 1e-10; a singular one (the 1D
 * Neumann Laplacian) is left to the host (done = 0). */
static ng_status device_inverse(const ng_csr *A, double *X, int *done)
{
  ng_amg *M = calloc(1, sizeof(*M));
  int32_t *rp, *col, n = A->nrows;
  double *val;
  ck_assert_ptr_nonnull(M);
  snprintf(M->format, sizeof(M->format), "csr");
  M->nlevels = 1;
  ng_status st = ng_amg_gpu_coarse_inverse(gpu, M, A, done);
  if (!st && *done) st = ng_csr_cuda_arrays(M->Cops, M->Cdata, &rp, &col, &val);
  if (!st && *done) st = gpu->vops->download_raw(gpu, X, val, (size_t)n * n * sizeof(double));
  if (M->Cops) M->Cops->destroy(M->Cdata);
  ng_csr_free(&M->coarse_inv);
  free(M);
  return st;
}

START_TEST(gpu_coarse_inverse_indefinite)
{
  const int32_t m = 8, n = m * m;
  const double pi = 3.14159265358979323846;
  double l1 = 4.0 - 4.0 * cos(pi / (m + 1)), l2 = 4.0 - 2.0 * cos(pi / (m + 1)) - 2.0 * cos(2.0 * pi / (m + 1));
  double sigma = 0.5 * (l1 + l2), sc[64];
  ng_test_random(sc, n);
  ng_csr A;
  NG_ASSERT_OK(ng_csr_alloc(&A, n, n, (int64_t)n * n));
  double *dense = calloc((size_t)n * n, sizeof(double)), *X = calloc((size_t)n * n, sizeof(double));
  ck_assert(dense && X);
  for (int32_t i = 0; i < m; i++)
    for (int32_t j = 0; j < m; j++) {
      int32_t k = i * m + j;
      dense[(size_t)k * n + k] = 4.0 - sigma;
      if (i > 0) dense[(size_t)k * n + k - m] = -1.0;
      if (i < m - 1) dense[(size_t)k * n + k + m] = -1.0;
      if (j > 0) dense[(size_t)k * n + k - 1] = -1.0;
      if (j < m - 1) dense[(size_t)k * n + k + 1] = -1.0;
    }
  for (int32_t i = 0; i < n; i++) /* S A S, S = diag(1 + 0.5 r): the same inertia */
    for (int32_t j = 0; j < n; j++) dense[(size_t)i * n + j] *= (1.0 + 0.5 * sc[i]) * (1.0 + 0.5 * sc[j]);
  for (int32_t i = 0; i <= n; i++) A.rowptr[i] = (int64_t)i * n;
  for (int64_t k = 0; k < (int64_t)n * n; k++) {
    A.col[k] = (int32_t)(k % n);
    A.val[k] = dense[k];
  }
  int done = 0;
  NG_ASSERT_OK(device_inverse(&A, X, &done));
  ck_assert_msg(done, "an indefinite operator with pivots of fair size is inverted on the device");
  NG_ASSERT_OK(ng_dense_inverse(n, dense)); /* the host's: pivoting Gauss-Jordan */
  double d = 0.0, big = 0.0;
  for (int64_t k = 0; k < (int64_t)n * n; k++) {
    d = fmax(d, fabs(X[k] - dense[k]));
    big = fmax(big, fabs(dense[k]));
  }
  d /= big;
  printf("indefinite %d x %d: the device inverse is the host's to %.2e\n", (int)n, (int)n, d);
  ck_assert_msg(d <= 1e-10, "device inverse differs from the host's by %g", d);
  ng_csr_free(&A);
  /* singular: the 1D Neumann Laplacian (its last pivot is round-off) */
  const int32_t ns = 30;
  NG_ASSERT_OK(ng_csr_alloc(&A, ns, ns, (int64_t)ns * ns));
  for (int32_t i = 0; i <= ns; i++) A.rowptr[i] = (int64_t)i * ns;
  for (int64_t k = 0; k < (int64_t)ns * ns; k++) {
    int32_t i = (int32_t)(k / ns), j = (int32_t)(k % ns);
    A.col[k] = j;
    A.val[k] = i == j ? (i == 0 || i == ns - 1 ? 1.0 : 2.0) : (i - j == 1 || j - i == 1 ? -1.0 : 0.0);
  }
  done = 1;
  NG_ASSERT_OK(device_inverse(&A, X, &done));
  ck_assert_msg(!done, "a singular operator is left to the host's pseudo-inverse");
  ng_csr_free(&A);
  free(dense);
  free(X);
}
END_TEST
#endif

int main(void)
{
  if (ng_test_no_gpu()) return 77;
  setenv("CK_FORK", "no", 1); /* CUDA does not survive fork() after the device check */
  Suite *s = suite_create("amg_gpu");
  TCase *tc = tcase_create("amg_gpu");
  tcase_add_unchecked_fixture(tc, setup, teardown);
  tcase_set_timeout(tc, 120);
  NG_TEST_ADD(tc, gpu_matches_host);
  NG_TEST_ADD(tc, gpu_classical_matches_host);
  NG_TEST_ADD(tc, gpu_smoothers_match_host);
  NG_TEST_ADD(tc, gpu_mcgs_device_setup);
  NG_TEST_ADD(tc, gpu_mcgs_residual);
#ifdef NG_HAVE_CUDA
  NG_TEST_ADD(tc, gpu_setup_matches_host);
  NG_TEST_ADD(tc, gpu_krylov_products_on_the_fine_copy);
  NG_TEST_ADD(tc, gpu_coloring_stencil_guess);
  NG_TEST_ADD(tc, gpu_coarse_inverse_indefinite);
#endif
  suite_add_tcase(s, tc);
  return ng_test_run(s);
}
