/* test/test_amg_cycle_gpu.c: the V-cycle's fast paths on the GPU against
 * the host (issue 14 item 5). gpu_fused_matches_host: the CUDA dia /
 * dia_half fused entries (Jacobi sweep, residual) equal the host's to
 * 1e-13 of max |y| (FMA and the half sums' order). fine_table_from_device:
 * the finest operator converted from the matrix's device CSR
 * (ng_amg_fine_create_dev) applies exactly as one uploaded from the host.
 * gpu_fine_format: by default a one-rank GPU context takes dia_half for
 * the cycle's finest A (lap27, fem27), its V-cycle equals the host's with
 * the matrix to 1e-9 of max |z| on the same (host-built) hierarchy, AMG-PCG
 * takes the host's iterations within 1, with the GPU setup too, and after
 * an update the table is dia_half again with the iterations of a fresh
 * setup within 1. gpu_single_precision: -amg_precision single (item 2),
 * see there. vcycle_graph_exact: -amg_cuda_graph (item 6), see
 * there. Skips (77) without a CUDA device. */
#include "testutil.h"
#include "../solver/solver.h"
#include "../amg/amg.h"
#ifdef NG_HAVE_CUDA
#include "amg_cuda_host.h" /* the device state read back (test/amg_cuda_host.cu) */
#endif
#include "../spmv/formats.h"
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

static double max_rel_diff(const double *a, const double *b, int32_t n)
{
  double m = 0, d = 0;
  for (int32_t i = 0; i < n; i++) {
    m = fmax(m, fabs(a[i]));
    d = fmax(d, fabs(a[i] - b[i]));
  }
  return m > 0 ? d / m : d;
}

/* a device copy of n host values (freed by the caller with free_raw) */
static double *dev(const double *h, int32_t n)
{
  double *p;
  NG_ASSERT_OK(gpu->vops->alloc(gpu, &p, n));
  NG_ASSERT_OK(gpu->vops->upload(gpu, p, h, n));
  return p;
}

START_TEST(gpu_fused_matches_host)
{
  const char *probs[] = {"lap27:20", "fem27:14", "lap7:17"}, *fmts[] = {"dia", "dia_half"};
  for (int p = 0; p < 3; p++) {
    ng_matrix A;
    NG_ASSERT_OK(ng_matrix_generate(host, probs[p], &A, NULL));
    int32_t n = A->n_local;
    double *x = malloc(n * sizeof(double)), *b = malloc(n * sizeof(double)), *d = malloc(n * sizeof(double));
    double *yh = malloc(n * sizeof(double)), *yg = malloc(n * sizeof(double));
    ng_test_random(x, n);
    ng_test_random(b, n);
    ng_test_random(d, n);
    double *dx = dev(x, n), *db = dev(b, n), *dd = dev(d, n), *dy = dev(x, n);
    for (int f = 0; f < 2; f++) {
      const ng_spmv_ops *ho, *go;
      void *hd, *gd;
      NG_ASSERT_OK(ng_spmv_create(host, fmts[f], &A->local, &ho, &hd));
      NG_ASSERT_OK(ng_spmv_create(gpu, fmts[f], &A->local, &go, &gd));
      ck_assert_msg(go->fused != NULL, "CUDA %s has no fused entry", fmts[f]);
      for (int jac = 0; jac < 2; jac++) {
        NG_ASSERT_OK(ho->fused(hd, b, x, jac ? d : NULL, yh));
        NG_ASSERT_OK(go->fused(gd, db, dx, jac ? dd : NULL, dy));
        NG_ASSERT_OK(gpu->vops->download(gpu, yg, dy, n));
        double e = max_rel_diff(yh, yg, n);
        printf("%s %s fused %s: GPU vs host %.2e\n", probs[p], fmts[f], jac ? "Jacobi" : "residual", e);
        ck_assert_msg(e <= 1e-13, "%s %s: GPU fused %s differs from the host by %.3e", probs[p], fmts[f],
                      jac ? "Jacobi" : "residual", e);
      }
      ho->destroy(hd);
      go->destroy(gd);
    }
    gpu->vops->free(gpu, dx), gpu->vops->free(gpu, db), gpu->vops->free(gpu, dd), gpu->vops->free(gpu, dy);
    free(x), free(b), free(d), free(yh), free(yg);
    ng_matrix_destroy(A);
  }
}
END_TEST

#ifdef NG_HAVE_CUDA
/* The table (ops, data) applies to dx bit for bit as fmt converted afresh
 * from A's host CSR (what says which table it is in the message). */
static void same_as_fresh(ng_matrix A, const char *fmt, const ng_spmv_ops *ops, void *data, const double *dx,
                          double *dy, double *y1, double *y2, const char *what)
{
  int32_t n = A->n_local;
  const ng_spmv_ops *o2;
  void *d2;
  NG_ASSERT_OK(ng_spmv_create(gpu, fmt, &A->local, &o2, &d2));
  NG_ASSERT_OK(ops->apply(data, 1.0, dx, 0.0, dy));
  NG_ASSERT_OK(gpu->vops->download(gpu, y1, dy, n));
  NG_ASSERT_OK(o2->apply(d2, 1.0, dx, 0.0, dy));
  NG_ASSERT_OK(gpu->vops->download(gpu, y2, dy, n));
  ck_assert_msg(!memcmp(y1, y2, n * sizeof(double)), "%s %s applies differently", fmt, what);
  o2->destroy(d2);
}

START_TEST(fine_table_from_device)
{
  ng_matrix A;
  ng_amg M0;
  memset(&M0, 0, sizeof(M0)); /* only its kept device CSR view is used */
  NG_ASSERT_OK(ng_matrix_generate(gpu, "fem27:16", &A, NULL));
  int32_t n = A->n_local;
  int64_t nnz = A->local.nnz;
  double *x = malloc(n * sizeof(double)), *y1 = malloc(n * sizeof(double)), *y2 = malloc(n * sizeof(double));
  double *v = malloc(nnz * sizeof(double));
  ng_test_random(x, n);
  double *dx = dev(x, n), *dy = dev(x, n);
  const char *fmts[] = {"dia_half", "dia", "ell"};
  const ng_spmv_ops *o1[3];
  void *d1[3];
  for (int f = 0; f < 3; f++) {
    NG_ASSERT_OK(ng_amg_fine_create_dev(gpu, &M0, A, fmts[f], &o1[f], &d1[f]));
    same_as_fresh(A, fmts[f], o1[f], d1[f], dx, dy, y1, y2, "from the device CSR");
  }
  /* an update: new symmetric values (2 a_ij, diagonal + 1) refilled in
   * place from the matrix's device CSR (dia, dia_half: update_dev) apply
   * exactly as tables converted afresh from the host */
  for (int32_t i = 0; i < n; i++)
    for (int64_t k = A->local.rowptr[i]; k < A->local.rowptr[i + 1]; k++)
      v[k] = 2 * A->local.val[k] + (A->local.col[k] == i);
  NG_ASSERT_OK(ng_matrix_update_values(A, v));
  for (int f = 0; f < 3; f++) {
    int done = -1;
    NG_ASSERT_OK(ng_amg_fine_refresh_dev(gpu, &M0, A, o1[f], d1[f], &done));
    ck_assert_int_eq(done, f < 2); /* ell has no update_dev: the caller converts again */
    if (done) same_as_fresh(A, fmts[f], o1[f], d1[f], dx, dy, y1, y2, "refilled from the device CSR");
  }
  /* values no longer symmetric (one nonzero off-diagonal entry of row n/2
   * changed): dia_half's refill refuses quietly (done 0, no error left),
   * dia's works */
  int64_t k0 = A->local.rowptr[n / 2];
  while (A->local.col[k0] == n / 2 || v[k0] == 0) k0++;
  ck_assert(k0 < A->local.rowptr[n / 2 + 1]);
  v[k0] *= 1.5;
  NG_ASSERT_OK(ng_matrix_update_values(A, v));
  int done = -1;
  NG_ASSERT_OK(ng_amg_fine_refresh_dev(gpu, &M0, A, o1[0], d1[0], &done));
  ck_assert_int_eq(done, 0);
  ck_assert_str_eq(ng_last_error(), "");
  NG_ASSERT_OK(ng_amg_fine_refresh_dev(gpu, &M0, A, o1[1], d1[1], &done));
  ck_assert_int_eq(done, 1);
  for (int f = 0; f < 3; f++) o1[f]->destroy(d1[f]);
  ng_amg_fine_free_dev(&M0);
  gpu->vops->free(gpu, dx), gpu->vops->free(gpu, dy);
  free(x), free(y1), free(y2), free(v);
  ng_matrix_destroy(A);
}
END_TEST
#endif



/* AMG-PCG iterations to 1e-8 from x = 0 with S (S's operator set). */
static int solve(ng_solver S, ng_matrix A, ng_vector b)
{
  ng_vector x;
  int its;
  NG_ASSERT_OK(ng_vector_create(A, &x));
  NG_ASSERT_OK(ng_vector_fill(x, 0.0));
  NG_ASSERT_OK(ng_solver_solve(S, b, x));
  NG_ASSERT_OK(ng_solver_get_iterations(S, &its));
  ng_vector_destroy(x);
  return its;
}

static ng_solver make_pcg(ng_context c, ng_matrix A, const char *extra)
{
  char opt[256];
  ng_options o;
  ng_solver S;
  snprintf(opt, sizeof(opt), "-solver pcg -precond amg -tol 1e-8 %s", extra);
  NG_ASSERT_OK(ng_options_create(&o));
  NG_ASSERT_OK(ng_options_set_from_string(o, opt));
  NG_ASSERT_OK(ng_solver_create(c, o, &S));
  NG_ASSERT_OK(ng_solver_set_operator(S, A));
  ng_options_destroy(o);
  return S;
}

static int pcg(ng_context c, ng_matrix A, ng_vector b, const char *extra)
{
  ng_solver S = make_pcg(c, A, extra);
  int its = solve(S, A, b);
  ng_solver_destroy(S);
  return its;
}

START_TEST(gpu_fine_format)
{
  const char *probs[] = {"lap27:24", "fem27:18"};
  for (int p = 0; p < 2; p++) {
    ng_matrix Ah, Ag;
    ng_vector bh, bg;
    NG_ASSERT_OK(ng_matrix_generate(host, probs[p], &Ah, &bh));
    NG_ASSERT_OK(ng_matrix_generate(gpu, probs[p], &Ag, &bg));
    int32_t n = Ah->n_local;
    double *r = malloc(n * sizeof(double)), *zh = malloc(n * sizeof(double)), *zg = malloc(n * sizeof(double));
    ng_test_random(r, n);
    ng_precond H = ng_test_amg(host, Ah, "-amg_fine_format matrix");
    ng_precond G = ng_test_amg(gpu, Ag, "-amg_setup host"), D = ng_test_amg(gpu, Ag, "");
    ck_assert_str_eq(((ng_amg *)ng_amg_of(G))->fine_used, "dia_half");
    ck_assert_str_eq(((ng_amg *)ng_amg_of(D))->fine_used, "dia_half");
    ng_test_apply(H, Ah, r, zh);
    ng_test_apply(G, Ag, r, zg);
    double e = max_rel_diff(zh, zg, n);
    int ih = pcg(host, Ah, bh, "-amg_fine_format matrix"), ig = pcg(gpu, Ag, bg, "-amg_setup host"),
        id = pcg(gpu, Ag, bg, "");
    printf("%s: GPU cycle (finest in dia_half) vs host (matrix) %.2e; pcg host %d, gpu %d, gpu setup %d\n", probs[p], e,
           ih, ig, id);
    ck_assert_msg(e <= 1e-9, "%s: GPU V-cycle differs from the host's by %.3e", probs[p], e);
    ck_assert_int_le(abs(ih - ig), 1);
    ck_assert_int_le(abs(ih - id), 1);
    /* new values: converted again from the device CSR */
    ng_solver S = make_pcg(gpu, Ag, "");
    double *val = malloc((size_t)Ah->local.nnz * sizeof(double));
    for (int32_t i = 0; i < n; i++) /* S A S with S = diag(1 or 1.5): still SPD */
      for (int64_t k = Ah->local.rowptr[i]; k < Ah->local.rowptr[i + 1]; k++)
        val[k] = Ah->local.val[k] * (1.0 + 0.5 * (i % 2)) * (1.0 + 0.5 * (Ah->local.col[k] % 2));
    NG_ASSERT_OK(ng_matrix_update_values(Ag, val));
    NG_ASSERT_OK(ng_solver_set_operator(S, Ag));
    ck_assert_str_eq(((ng_amg *)ng_amg_of(S->P))->fine_used, "dia_half");
    int iu = solve(S, Ag, bg), iff = pcg(gpu, Ag, bg, "");
    printf("%s scaled: pcg after update %d, fresh setup %d\n", probs[p], iu, iff);
    ck_assert_int_le(abs(iu - iff), 1);
    ng_solver_destroy(S);
    ng_precond_destroy(D);
    ng_precond_destroy(G);
    ng_precond_destroy(H);
    free(val), free(r), free(zh), free(zg);
    ng_vector_destroy(bh);
    ng_vector_destroy(bg);
    ng_matrix_destroy(Ah);
    ng_matrix_destroy(Ag);
  }
}
END_TEST

/* -amg_precision single on the GPU (item 2): its cycle equals the host's
 * single cycle on the same host-built hierarchy to 1e-5 of max |z| (float
 * sums in another order), with the finest level in dia_half (default) and
 * in the matrix's csr; AMG-PCG within 1 iteration of the host's single and
 * within 2 of the GPU's double, also with the GPU setup. */
START_TEST(gpu_single_precision)
{
  const char *probs[] = {"lap27:24", "fem27:18"};
  const char *fine[] = {"", "-amg_fine_format matrix"};
  for (int p = 0; p < 2; p++)
    for (int f = 0; f < 2; f++) {
      ng_matrix Ah, Ag;
      ng_vector bh, bg;
      char oh[160], og[160], od[160];
      snprintf(oh, sizeof(oh), "-amg_precision single -amg_fine_format %s", f ? "matrix" : "dia_half");
      snprintf(og, sizeof(og), "-amg_precision single -amg_setup host %s", fine[f]);
      snprintf(od, sizeof(od), "-amg_precision single %s", fine[f]);
      NG_ASSERT_OK(ng_matrix_generate(host, probs[p], &Ah, &bh));
      NG_ASSERT_OK(ng_matrix_generate(gpu, probs[p], &Ag, &bg));
      int32_t n = Ah->n_local;
      double *r = malloc(n * sizeof(double)), *zh = malloc(n * sizeof(double)), *zg = malloc(n * sizeof(double));
      ng_test_random(r, n);
      ng_precond H = ng_test_amg(host, Ah, oh), G = ng_test_amg(gpu, Ag, og);
      ng_test_apply(H, Ah, r, zh);
      ng_test_apply(G, Ag, r, zg);
      double e = max_rel_diff(zh, zg, n);
      int ih = pcg(host, Ah, bh, oh), ig = pcg(gpu, Ag, bg, og), id = pcg(gpu, Ag, bg, od),
          idd = pcg(gpu, Ag, bg, fine[f]);
      printf("%s %s single: GPU vs host cycle %.2e; pcg host %d, gpu %d, gpu setup %d (double %d)\n", probs[p], fine[f],
             e, ih, ig, id, idd);
      ck_assert_msg(e <= 1e-5, "%s: the GPU single cycle differs from the host's by %.3e", probs[p], e);
      ck_assert_int_le(abs(ih - ig), 1);
      ck_assert_int_le(id, idd + 2);
      ng_precond_destroy(H);
      ng_precond_destroy(G);
      free(r), free(zh), free(zg);
      ng_vector_destroy(bh);
      ng_vector_destroy(bg);
      ng_matrix_destroy(Ah);
      ng_matrix_destroy(Ag);
    }
}
END_TEST

#ifdef NG_HAVE_CUDA
/* z = the V-cycle of r with the graph on or off, on the same hierarchy. */
static void cycle_mode(ng_precond P, int graph, ng_vector r, ng_vector z, double *zh)
{
  ((ng_amg *)ng_amg_of(P))->use_graph = graph;
  NG_ASSERT_OK(ng_precond_apply(P, r, z));
  NG_ASSERT_OK(ng_vector_get_values(z, zh));
}

/* -amg_cuda_graph (issue 14 item 6): on one hierarchy, the plain cycle is
 * first checked reproducible (two plain cycles byte-identical: if not, a
 * kernel of the cycle is not deterministic and no graph can be compared to
 * it bit for bit; the message says so), then the graph's cycle equals it
 * byte for byte at its capture, at a replay, on a second (r, z) pair and
 * after an update with new values; the graph really ran (launch count).
 * Then AMG-PCG with and without the graph, same solver: same iterations
 * and byte-identical solutions (also for the W-cycle, -amg_cycle w, made of
 * the same per-level operations). The first version compared the cycles of
 * two preconditioners, each with its own GPU setup. */
START_TEST(vcycle_graph_exact)
{
  const char *probs[] = {"fem27:24", "lap27:20"};
  const char *opts[] = {"-amg_cuda_graph 1", "-amg_cuda_graph 1 -amg_fine_format matrix",
                        "-amg_cuda_graph 1 -amg_coarse_solver smoother -amg_sweeps 3,1",
                        "-amg_cuda_graph 1 -amg_smoother chebyshev", "-amg_cuda_graph 1 -amg_precision single",
                        "-amg_cuda_graph 1 -amg_cycle w -amg_coarse_size 50"};
  for (int p = 0; p < 2; p++)
    for (int o = 0; o < 6; o++) {
      ng_matrix A;
      ng_vector b, r[2], z[2];
      NG_ASSERT_OK(ng_matrix_generate(gpu, probs[p], &A, &b));
      int32_t n = A->n_local;
      for (int k = 0; k < 2; k++) {
        NG_ASSERT_OK(ng_vector_create(A, &r[k]));
        NG_ASSERT_OK(ng_vector_create(A, &z[k]));
      }
      ng_precond P = ng_test_amg(gpu, A, opts[o]);
      ng_amg *M = ng_amg_of(P);
      ck_assert_int_eq(M->use_graph, 1);
      double *rv = malloc(n * sizeof(double)), *zp = malloc(n * sizeof(double)), *zq = malloc(n * sizeof(double));
      long expect = 0;
      for (int round = 0; round < 4; round++) {
        if (round == 3) { /* new values, same pattern; the update drops the graphs and their count */
          expect = 0;
          double *val = malloc((size_t)A->local.nnz * sizeof(double));
          for (int32_t i = 0; i < n; i++)
            for (int64_t k = A->local.rowptr[i]; k < A->local.rowptr[i + 1]; k++)
              val[k] = A->local.val[k] * (1.0 + 0.5 * (i % 2)) * (1.0 + 0.5 * (A->local.col[k] % 2)); /* S A S: SPD */
          NG_ASSERT_OK(ng_matrix_update_values(A, val));
          free(val);
          NG_ASSERT_OK(ng_precond_update(P, A));
        }
        int k = round == 2; /* rounds 0, 1, 3 on the first pair, round 2 on the second */
        if (round != 1) ng_test_random(rv, n); /* round 1 replays round 0's r */
        NG_ASSERT_OK(ng_vector_set_values(r[k], rv));
        cycle_mode(P, 0, r[k], z[k], zp);
        cycle_mode(P, 0, r[k], z[k], zq);
        ck_assert_msg(!memcmp(zp, zq, n * sizeof(double)),
                      "%s %s round %d: two plain cycles of one hierarchy differ: a kernel of the cycle is not "
                      "deterministic (cuSPARSE CSR_ALG1: NG_CUSPARSE_SPMV_ALG=2), so no graph can match it bit for bit",
                      probs[p], opts[o], round);
        cycle_mode(P, 1, r[k], z[k], zq);
        expect++;
        ck_assert_msg(!memcmp(zp, zq, n * sizeof(double)), "%s %s round %d: the graph's V-cycle differs from the plain one",
                      probs[p], opts[o], round);
      }
      int broken = 0;
      long launches = ng_amg_graph_launches(M, &broken);
      ck_assert_msg(!broken, "%s %s: the V-cycle could not be captured as a CUDA graph", probs[p], opts[o]);
      ck_assert_int_eq(launches, expect);
      /* AMG-PCG on the same solver with and without the graph */
      ng_solver S = make_pcg(gpu, A, opts[o]);
      ng_vector x;
      double *x0 = malloc(n * sizeof(double)), *x1 = malloc(n * sizeof(double));
      int its[2];
      NG_ASSERT_OK(ng_vector_create(A, &x));
      for (int g = 1; g >= 0; g--) {
        ((ng_amg *)ng_amg_of(S->P))->use_graph = g;
        NG_ASSERT_OK(ng_vector_fill(x, 0.0));
        NG_ASSERT_OK(ng_solver_solve(S, b, x));
        NG_ASSERT_OK(ng_solver_get_iterations(S, &its[g]));
        NG_ASSERT_OK(ng_vector_get_values(x, g ? x1 : x0));
      }
      printf("%s %s: graph launched %ld times, equal to the plain cycle; pcg %d iterations with the graph, %d without\n",
             probs[p], opts[o], launches, its[1], its[0]);
      ck_assert_int_eq(its[0], its[1]);
      ck_assert_msg(!memcmp(x0, x1, n * sizeof(double)), "%s %s: PCG with the graph gives another solution", probs[p],
                    opts[o]);
      ng_vector_destroy(x);
      ng_solver_destroy(S);
      free(x0), free(x1), free(rv), free(zp), free(zq);
      ng_precond_destroy(P);
      for (int k = 0; k < 2; k++) {
        ng_vector_destroy(r[k]);
        ng_vector_destroy(z[k]);
      }
      ng_vector_destroy(b);
      ng_matrix_destroy(A);
    }
}
END_TEST
#endif

int main(void)
{
  setenv("CK_FORK", "no", 1); /* CUDA does not survive fork() after the device check */
  /* cuSPARSE's default CSR SpMV (ALG1) is not bitwise reproducible on the
   * H100 (two plain cycles of one hierarchy differ in the last bits), so the
   * graph-exactness test runs with ALG2, which is */
  setenv("NG_CUSPARSE_SPMV_ALG", "2", 0);
  if (ng_test_no_gpu()) return 77;
  Suite *s = suite_create("amg_cycle_gpu");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_unchecked_fixture(tc, setup, teardown);
  NG_TEST_ADD(tc, gpu_fused_matches_host);
#ifdef NG_HAVE_CUDA
  NG_TEST_ADD(tc, fine_table_from_device);
#endif
  NG_TEST_ADD(tc, gpu_fine_format);
  NG_TEST_ADD(tc, gpu_single_precision);
#ifdef NG_HAVE_CUDA
  NG_TEST_ADD(tc, vcycle_graph_exact);
#endif
  suite_add_tcase(s, tc);
  return ng_test_run(s);
}
