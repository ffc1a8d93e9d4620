/* test/test_amg_dist_gpu.c: the distributed aggregation on each rank's GPU
 * (amg/amg_dist_aggregate_cuda.cu) against the host's
 * (amg_dist_aggregate.c) on a GPU context, run by test/amg_dist_gpu.sh on 2
 * and 4 ranks (CK_FORK=no: every test is collective). On generated
 * problems, a real matrix and their random uneven partitions (one rank
 * without rows when there are 3 or more), with the plain and the signed
 * strength test at two thresholds: the aggregates of every own row and halo
 * column, the coarse row ranges and the kept sqrt |a_jj| are the host's bit
 * for bit; the whole hierarchy (-amg_setup gpu: P on the device too) has
 * the host hierarchy's P and coarse operators to rounding, at setup and
 * after an update; a zero diagonal sends every rank to the host code
 * (*done = 0); mcgs and mmcgs on distributed levels are built on the device
 * (their local blocks' colors and per-color blocks), with the host-built
 * layout's colors and V-cycle, at setup and after an update.
 * "skipped: no CUDA device" without one. */
#include "mpi_testutil.h"
#include "../amg/amg_dist.h"
#include "../smoother/smoother.h"
#include <math.h>
#include <mpi.h>
#include <string.h>

static int rank, size;
#ifdef NG_HAVE_CUDA
static ng_context world;

/* One aggregation each way on A; every entry compared. */
static void compare(ng_matrix A, double theta, int sgn, const char *what)
{
  ng_amg_dlevel H, G;
  int64_t nh = 0, ng = 0;
  int done = -1;
  int32_t ne = A->n_local + A->n_halo;
  memset(&H, 0, sizeof(H));
  memset(&G, 0, sizeof(G));
  H.sgn = sgn;
  NG_ASSERT_OK(ng_amg_dist_aggregate(A, theta, &H, &nh));
  void *dx = NULL;
  NG_ASSERT_OK(ng_amg_dist_aggregate_gpu(A, theta, sgn, 1, &G.agg, &G.cstarts, &G.sd, &ng, &dx, &done));
  ck_assert_ptr_nonnull(dx);
  ng_amg_dx_free(dx);
  ck_assert_msg(done == 1, "%s: the GPU aggregation left the work to the host", what);
  ck_assert_msg(nh == ng, "%s theta %g sgn %d: %lld coarse rows on the host, %lld on the GPU", what, theta, sgn,
                (long long)nh, (long long)ng);
  for (int r = 0; r <= size; r++) ck_assert_int_eq(H.cstarts[r], G.cstarts[r]);
  int32_t bad = 0;
  for (int32_t e = 0; e < ne; e++)
    if (H.agg[e] != G.agg[e]) {
      if (!bad)
        fprintf(stderr, "%s theta %g sgn %d rank %d: entry %d (%s) aggregate %lld on the host, %lld on the GPU\n",
                what, theta, sgn, rank, (int)e, e < A->n_local ? "own row" : "halo column", (long long)H.agg[e],
                (long long)G.agg[e]);
      bad++;
    }
  ck_assert_msg(bad == 0, "%s theta %g sgn %d: %d aggregates differ on rank %d", what, theta, sgn, (int)bad, rank);
  double *sd = NULL;
  NG_ASSERT_OK(ng_amg_dist_sqrt_diagonal(A, &sd));
  ck_assert_msg(memcmp(sd, G.sd, (size_t)ne * sizeof(double)) == 0, "%s: sqrt |a_jj| differs", what);
  free(sd);
  free(H.agg); free(H.cstarts); free(G.agg); free(G.cstarts); free(G.sd);
}

START_TEST(aggregates_equal_host)
{
  const char *specs[] = {"lap27:14", "fem27:10", "aniso27:12", "het7:16", "rotaniso:40", "bcsstk13.mtx"};
  for (size_t s = 0; s < sizeof(specs) / sizeof(specs[0]); s++) {
    ng_csr W;
    double *b = NULL;
    if (strstr(specs[s], ".mtx")) NG_ASSERT_OK(ng_mmio_read_csr(ng_test_data(specs[s]), &W));
    else NG_ASSERT_OK(ng_generate_csr(specs[s], &W, &b));
    free(b);
    for (int random = 0; random < 2; random++) {
      int64_t starts[65];
      ng_mpi_test_starts(W.nrows, random, starts);
      ng_matrix A;
      NG_ASSERT_OK(ng_mpi_test_csr_rows(world, &W, starts, &A));
      char what[96];
      snprintf(what, sizeof(what), "%s (%s partition)", specs[s], random ? "random" : "even");
      compare(A, 0.025, 0, what);
      compare(A, 0.08, 0, what);
      compare(A, 0.08, 1, what);
      ng_matrix_destroy(A);
    }
    ng_csr_free(&W);
  }
}
END_TEST

/* P (level by level, as downloaded from the device or made on the host)
 * and the coarse operators of two hierarchies of the same matrix. */
static void compare_hierarchies(ng_precond Pg, ng_precond Ph, const char *what)
{
  const ng_amg *Mg = Pg->data, *Mh = Ph->data;
  const ng_amg_dlevel *Dg = Mg->dist, *Dh = Mh->dist;
  ck_assert_int_eq(Mg->nlevels, Mh->nlevels);
  ck_assert_msg(Dg[0].gx != NULL, "%s: level 0 was not set up on the GPU", what);
  for (int l = 0; l + 1 < Mg->nlevels; l++) {
    const ng_csr *a = &Dg[l].Pc, *b = &Dh[l].Pc;
    ck_assert_int_eq(a->nrows, b->nrows);
    ck_assert_int_eq(a->nnz, b->nnz);
    for (int32_t i = 0; i <= a->nrows; i++) ck_assert_int_eq(a->rowptr[i], b->rowptr[i]);
    for (int64_t k = 0; k < a->nnz; k++) {
      ck_assert_int_eq(a->col[k], b->col[k]);
      ck_assert_msg(fabs(a->val[k] - b->val[k]) <= 1e-14 * (1 + fabs(b->val[k])), "%s level %d P entry %lld: %.17g GPU, %.17g host",
                    what, l, (long long)k, a->val[k], b->val[k]);
    }
    const struct ng_matrix_s *Cg = Dg[l + 1].A, *Ch = Dh[l + 1].A;
    ck_assert_int_eq(Cg->local.nnz, Ch->local.nnz);
    ck_assert_int_eq(Cg->offrank.nnz, Ch->offrank.nnz);
    double scale = 0;
    for (int64_t k = 0; k < Ch->local.nnz; k++) scale = fmax(scale, fabs(Ch->local.val[k]));
    for (int64_t k = 0; k < Ch->local.nnz; k++)
      ck_assert_msg(fabs(Cg->local.val[k] - Ch->local.val[k]) <= 1e-12 * scale, "%s level %d A_c entry %lld: %.17g GPU, %.17g host",
                    what, l + 1, (long long)k, Cg->local.val[k], Ch->local.val[k]);
    for (int64_t k = 0; k < Ch->offrank.nnz; k++)
      ck_assert(fabs(Cg->offrank.val[k] - Ch->offrank.val[k]) <= 1e-12 * scale);
  }
}

/* The whole setup with -amg_setup gpu (aggregation, P and the first
 * product's operand on the device) and host, then an update with a larger
 * diagonal: P and A_c agree to rounding (P's sums run in another order on
 * the host's [own | halo] rows), and the solves take the same iterations. */
START_TEST(hierarchy_equal_host)
{
  const char *specs[] = {"lap27:14", "fem27:10", "aniso27:12"};
  for (size_t s = 0; s < sizeof(specs) / sizeof(specs[0]); s++) {
    ng_csr W;
    double *b = NULL;
    NG_ASSERT_OK(ng_generate_csr(specs[s], &W, &b));
    free(b);
    for (int random = 0; random < 2; random++) {
      int64_t starts[65];
      char what[96];
      ng_mpi_test_starts(W.nrows, random, starts);
      snprintf(what, sizeof(what), "%s (%s partition)", specs[s], random ? "random" : "even");
      ng_matrix A;
      NG_ASSERT_OK(ng_mpi_test_csr_rows(world, &W, starts, &A));
      /* the distributed levels both ways (the GPU setup would gather the
       * coarse levels onto rank 0 by default: test_amg_telescope's part) */
      ng_precond Pg = ng_test_amg(world, A, "-amg_setup gpu -amg_gpu_min_rows 0 -amg_coarse_size 20 -amg_telescope_rows 0");
      ng_precond Ph = ng_test_amg(world, A, "-amg_setup host -amg_coarse_size 20 -amg_telescope_rows 0");
      compare_hierarchies(Pg, Ph, what);
      /* new values: the diagonal + 1 */
      int64_t p0 = W.rowptr[starts[rank]], p1 = W.rowptr[starts[rank + 1]];
      double *v = malloc((size_t)(p1 - p0 + 1) * sizeof(double));
      for (int64_t i = starts[rank]; i < starts[rank + 1]; i++)
        for (int64_t k = W.rowptr[i]; k < W.rowptr[i + 1]; k++) v[k - p0] = W.val[k] + (W.col[k] == i ? 1.0 : 0.0);
      NG_ASSERT_OK(ng_matrix_update_values(A, v));
      NG_ASSERT_OK(ng_precond_update(Pg, A));
      NG_ASSERT_OK(ng_precond_update(Ph, A));
      snprintf(what, sizeof(what), "%s (%s partition), updated", specs[s], random ? "random" : "even");
      compare_hierarchies(Pg, Ph, what);
      free(v);
      ng_precond_destroy(Pg);
      ng_precond_destroy(Ph);
      ng_matrix_destroy(A);
    }
    ng_csr_free(&W);
  }
}
END_TEST

START_TEST(zero_diagonal_goes_to_host)
{
  ng_csr W;
  double *b = NULL;
  NG_ASSERT_OK(ng_generate_csr("lap27:10", &W, &b));
  free(b);
  int64_t last = W.nrows - 1; /* on the last rank */
  for (int64_t k = W.rowptr[last]; k < W.rowptr[last + 1]; k++)
    if (W.col[k] == last) W.val[k] = 0.0;
  int64_t starts[65];
  ng_mpi_test_starts(W.nrows, 0, starts);
  ng_matrix A;
  NG_ASSERT_OK(ng_mpi_test_csr_rows(world, &W, starts, &A));
  int64_t *agg = NULL, *cstarts = NULL, nc = 0;
  double *sd = NULL;
  int done = -1;
  void *dx = NULL;
  NG_ASSERT_OK(ng_amg_dist_aggregate_gpu(A, 0.025, 0, 0, &agg, &cstarts, &sd, &nc, &dx, &done));
  ck_assert_int_eq(done, 0);
  ck_assert_ptr_null(dx);
  ck_assert_ptr_null(agg);
  ng_matrix_destroy(A);
  ng_csr_free(&W);
}
END_TEST


/* z = M r for a random r on both preconditioners: the largest difference
 * over every rank, relative to the largest |z|. */
static double apply_diff(ng_precond P[2], ng_matrix A)
{
  ng_vector r, z[2];
  int32_t n = A->n_local;
  double *rv = malloc((n ? n : 1) * sizeof(double)), *zv[2];
  /* from the global row (rand() would leave the ranks' generators apart,
   * and the next random partition with them) */
  for (int32_t i = 0; i < n; i++) rv[i] = sin(0.37 * (double)(A->row_begin + i)) + 0.5;
  NG_ASSERT_OK(ng_vector_create(A, &r));
  NG_ASSERT_OK(ng_vector_set_values(r, rv));
  for (int k = 0; k < 2; k++) {
    zv[k] = malloc((n ? n : 1) * sizeof(double));
    NG_ASSERT_OK(ng_vector_create(A, &z[k]));
    NG_ASSERT_OK(ng_precond_apply(P[k], r, z[k]));
    NG_ASSERT_OK(ng_vector_get_values(z[k], zv[k]));
  }
  double m[2] = {0, 0}, g[2];
  for (int32_t i = 0; i < n; i++) {
    m[0] = fmax(m[0], fabs(zv[0][i] - zv[1][i]));
    m[1] = fmax(m[1], fabs(zv[1][i]));
  }
  MPI_Allreduce(m, g, 2, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  for (int k = 0; k < 2; k++) {
    ng_vector_destroy(z[k]);
    free(zv[k]);
  }
  ng_vector_destroy(r);
  free(rv);
  ck_assert(g[1] > 0);
  return g[0] / g[1];
}

/* mcgs / mmcgs on the distributed levels of a GPU context: built on the
 * device from each local block's device CSR (beside the dia_half the
 * matrix chose) with the host-built layout's colors (-amg_smoother_setup
 * host), and the same V-cycle to rounding, also after an update (the
 * per-color blocks refilled from the device CSR's new values). */
START_TEST(mcgs_built_on_device)
{
  const char *specs[] = {"lap27:14", "aniso27:12"}, *smoothers[] = {"mcgs", "mmcgs"};
  for (size_t s = 0; s < 2; s++) {
    ng_csr W;
    double *b = NULL;
    NG_ASSERT_OK(ng_generate_csr(specs[s], &W, &b));
    free(b);
    for (int random = 0; random < 2; random++) {
      int64_t starts[65];
      ng_mpi_test_starts(W.nrows, random, starts);
      for (int m = 0; m < 2; m++) {
        char what[128], opt[256];
        snprintf(what, sizeof(what), "%s (%s partition) %s", specs[s], random ? "random" : "even", smoothers[m]);
        ng_matrix A;
        NG_ASSERT_OK(ng_mpi_test_csr_rows(world, &W, starts, &A));
        ng_precond P[2];
        for (int k = 0; k < 2; k++) {
          snprintf(opt, sizeof(opt), "-amg_coarse_size 20 -amg_telescope_rows 0 -amg_smoother %s -amg_smoother_setup %s",
                   smoothers[m], k ? "host" : "device");
          P[k] = ng_test_amg(world, A, opt);
        }
        ng_amg *Md = ng_amg_of(P[0]), *Mh = ng_amg_of(P[1]);
        ck_assert_int_eq(Md->nlevels, Mh->nlevels);
        int swept = 0;
        for (int l = 0; l < Mh->nlevels; l++) {
          int nd = 0, nh = 0;
          const int32_t *ch = ng_smoother_row_colors(Mh->sopts.ops, &Mh->L[l].s, &nh);
          if (!ch || !Mh->L[l].s.sdata || Mh->L[l].s.n == 0) continue;
          const int32_t *cd = ng_smoother_row_colors(Md->sopts.ops, &Md->L[l].s, &nd);
          ck_assert_ptr_nonnull(cd);
          swept++;
          ck_assert_msg(ng_smoother_built_on_device(Md->sopts.ops, &Md->L[l].s), "%s level %d (%d rows on rank %d): not built on the device",
                        what, l, (int)Md->L[l].s.n, rank);
          ck_assert(!ng_smoother_built_on_device(Mh->sopts.ops, &Mh->L[l].s));
          ck_assert_int_eq(nd, nh);
          ck_assert_msg(memcmp(cd, ch, (size_t)Mh->L[l].s.n * sizeof(int32_t)) == 0, "%s level %d: device colors differ on rank %d",
                        what, l, rank);
        }
        int any = 0;
        MPI_Allreduce(&swept, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
        ck_assert_int_ge(any, 2);
        double d0 = apply_diff(P, A);
        /* new values: the diagonal + 1 */
        int64_t p0 = W.rowptr[starts[rank]], p1 = W.rowptr[starts[rank + 1]];
        double *v = malloc((size_t)(p1 - p0 + 1) * sizeof(double));
        for (int64_t i = starts[rank]; i < starts[rank + 1]; i++)
          for (int64_t k = W.rowptr[i]; k < W.rowptr[i + 1]; k++) v[k - p0] = W.val[k] + (W.col[k] == i ? 1.0 : 0.0);
        NG_ASSERT_OK(ng_matrix_update_values(A, v));
        free(v);
        for (int k = 0; k < 2; k++) NG_ASSERT_OK(ng_precond_update(P[k], A));
        double d1 = apply_diff(P, A);
        if (rank == 0) printf("%s: V-cycle device vs host layout %.2e, after update %.2e\n", what, d0, d1);
        ck_assert_msg(d0 <= 1e-10 && d1 <= 1e-10, "%s: V-cycles differ by %.3e / %.3e after update", what, d0, d1);
        for (int k = 0; k < 2; k++) ng_precond_destroy(P[k]);
        ng_matrix_destroy(A);
      }
    }
    ng_csr_free(&W);
  }
}
END_TEST

#endif

int main(int argc, char **argv)
{
  int rc = ng_mpi_test_init(&argc, &argv, &rank, &size);
  if (rc) return rc;
#ifndef NG_HAVE_CUDA
  if (rank == 0) printf("skipped: no CUDA device (built without CUDA)\n");
  MPI_Finalize();
  return 77;
#else
  if ((rc = ng_mpi_test_context("gpu", &world))) return rc;
  Suite *s = suite_create("amg_dist_gpu");
  TCase *tc = tcase_create("amg_dist_gpu");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, aggregates_equal_host);
  tcase_add_test(tc, hierarchy_equal_host);
  tcase_add_test(tc, zero_diagonal_goes_to_host);
  tcase_add_test(tc, mcgs_built_on_device);
  suite_add_tcase(s, tc);
  return ng_mpi_test_finish(s, world);
#endif
}
