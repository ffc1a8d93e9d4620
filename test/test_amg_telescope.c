/* test/test_amg_telescope.c: the distributed AMG's coarse levels gathered
 * onto rank 0 (amg/amg_dist_telescope.c, -amg_telescope_rows), run by
 * test/amg_telescope.sh on 2 and 4 ranks (CK_FORK=no: every test is
 * collective), on a CPU context ("cpu", the default) or on each rank's GPU
 * ("gpu": skipped without a device).
 *  - the gather: a distributed matrix gathered onto rank 0 is the matrix
 *    it was made from, byte for byte, on even and uneven partitions (with
 *    empty ranks); on GPUs also the device-only matrix made on rank 0's
 *    device, and its values after an update;
 *  - the coarse solve: the hierarchy ends at the gathered level, and its
 *    coarse solve x = N(b) equals, gathered, the cycle of a one-rank AMG
 *    built separately on rank 0 from that level with the same options (bit
 *    for bit on the host, to 1e-12 on the GPU, whose Galerkin products sum
 *    in no fixed order), at the setup and after an update with new values;
 *    an update with the setup's values repeats the V-cycle;
 *  - AMG-PCG with the gathered levels converges to the tolerance
 *    (recomputed residual) within one iteration of the distributed
 *    hierarchy's count, coupled and uncoupled, V- and K-cycle; the W-cycle
 *    keeps its distributed levels; a bad -amg_telescope_rows is refused. */
#include "mpi_testutil.h"
#include "../amg/amg_dist.h"
#include <math.h>
#include <mpi.h>
#include <string.h>

static int rank, size;
static ng_context world;
static const char *resource;

START_TEST(gather_is_the_matrix)
{
  const char *specs[] = {"lap27:10", "fem27:8", "aniso27:9"};
  for (size_t s = 0; s < sizeof(specs) / sizeof(specs[0]); s++) {
    ng_csr W, G;
    double *b = NULL;
    NG_ASSERT_OK(ng_generate_csr(specs[s], &W, &b));
    free(b);
    for (int random = 0; random < 2; random++) {
      int64_t starts[65];
      ng_mpi_test_starts(W.nrows, random, starts);
      ng_matrix A;
      NG_ASSERT_OK(ng_mpi_test_csr_rows(world, &W, starts, &A));
      NG_ASSERT_OK(ng_matrix_gather_csr(A, NG_SUCCESS, &G));
      if (rank == 0) {
        ck_assert_int_eq(G.nrows, W.nrows);
        ck_assert_int_eq(G.nnz, W.nnz);
        ck_assert_msg(!memcmp(G.rowptr, W.rowptr, ((size_t)W.nrows + 1) * sizeof(int64_t)), "%s: row pointers", specs[s]);
        ck_assert_msg(!memcmp(G.col, W.col, (size_t)W.nnz * sizeof(int32_t)), "%s: columns", specs[s]);
        ck_assert_msg(!memcmp(G.val, W.val, (size_t)W.nnz * sizeof(double)), "%s: values", specs[s]);
      } else
        ck_assert_int_eq(G.nnz, 0);
      ng_csr_free(&G);
      ng_matrix_destroy(A);
    }
    ng_csr_free(&W);
  }
}
END_TEST

/* On a GPU context the gatherer merges on the device and rank 0 gets a
 * device-only one-rank matrix: its host copy, fetched on demand, is the
 * matrix byte for byte, and so after new values (twice the old) move by
 * the values-only pass. On a CPU context the gatherer stays on the host. */
START_TEST(device_gather_is_the_matrix)
{
  const char *specs[] = {"lap27:10", "aniso27:9"};
  for (size_t s = 0; s < sizeof(specs) / sizeof(specs[0]); s++) {
    ng_csr W;
    double *b = NULL;
    NG_ASSERT_OK(ng_generate_csr(specs[s], &W, &b));
    free(b);
    for (int random = 0; random < 2; random++) {
      int64_t starts[65];
      ng_mpi_test_starts(W.nrows, random, starts);
      ng_matrix A, A1 = NULL;
      ng_context self = NULL;
      ng_matrix_gatherer *g = NULL;
      NG_ASSERT_OK(ng_mpi_test_csr_rows(world, &W, starts, &A));
      NG_ASSERT_OK(ng_matrix_gatherer_create(A, NG_SUCCESS, &g));
      ck_assert_int_eq(ng_matrix_gatherer_on_device(g), world->on_gpu);
      if (!world->on_gpu) {
        ng_matrix_gatherer_destroy(g);
        ng_matrix_destroy(A);
        continue;
      }
      if (rank == 0) NG_ASSERT_OK(ng_context_create_self(world, &self));
      NG_ASSERT_OK(ng_matrix_gather_device(g, A, NG_SUCCESS, self, &A1));
      ck_assert_int_eq(A1 != NULL, rank == 0);
      if (rank == 0) {
        ck_assert_int_eq(A1->host_stale, 2);
        NG_ASSERT_OK(ng_matrix_host_current(A1));
        ck_assert_int_eq((int)A1->local.nnz, (int)W.nnz);
        ck_assert_msg(!memcmp(A1->local.rowptr, W.rowptr, ((size_t)W.nrows + 1) * 8), "%s: row pointers", specs[s]);
        ck_assert_msg(!memcmp(A1->local.col, W.col, (size_t)W.nnz * 4), "%s: columns", specs[s]);
        ck_assert_msg(!memcmp(A1->local.val, W.val, (size_t)W.nnz * 8), "%s: values", specs[s]);
      }
      int64_t p0 = W.rowptr[starts[rank]], cnt = W.rowptr[starts[rank + 1]] - p0;
      double *v2 = malloc(((size_t)cnt + 1) * 8);
      for (int64_t p = 0; p < cnt; p++) v2[p] = 2.0 * W.val[p0 + p];
      NG_ASSERT_OK(ng_matrix_update_values(A, v2));
      NG_ASSERT_OK(ng_matrix_gather_values_device(g, A, A1));
      if (rank == 0) {
        ck_assert_int_eq(A1->host_stale, 1);
        NG_ASSERT_OK(ng_matrix_host_current(A1));
        for (int64_t p = 0; p < W.nnz; p++)
          ck_assert_msg(A1->local.val[p] == 2.0 * W.val[p], "%s: new value %lld", specs[s], (long long)p);
      }
      free(v2);
      ng_matrix_destroy(A1);
      ng_context_destroy(self);
      ng_matrix_gatherer_destroy(g);
      ng_matrix_destroy(A);
    }
    ng_csr_free(&W);
  }
}
END_TEST

/* A one-rank AMG on rank 0 made from the gathered level with the same
 * options, then updated as the hierarchy is (an update keeps the setup's
 * aggregates: a fresh setup on new values is another hierarchy). */
typedef struct {
  ng_context self;
  ng_matrix A1;
  ng_precond N;
} reference;

static void reference_free(reference *R)
{
  ng_precond_destroy(R->N);
  ng_matrix_destroy(R->A1);
  ng_context_destroy(R->self);
  memset(R, 0, sizeof(*R));
}

/* The coarsest level's solve against the reference's cycle (made on the
 * first call, its values updated on the next): the largest difference
 * relative to |x|, agreed over the ranks. */
static double coarse_solve_defect(ng_precond P, const char *options, reference *R)
{
  ng_amg *M = P->data;
  ng_amg_dlevel *D = M->dist;
  int l = M->nlevels - 1;
  ng_matrix C = D[l].A;
  ng_context ctx = world;
  int32_t nc = C->n_local;
  int64_t n = C->n_global, starts[65];
  double *hb = malloc(((size_t)nc + 1) * 8), *hx = malloc(((size_t)nc + 1) * 8), *b, *x, d = 0.0;
  double *fx = malloc(((size_t)n + 1) * 8);
  for (int32_t i = 0; i < nc; i++) hb[i] = ng_mpi_test_value(C->row_begin + i);
  NG_ASSERT_OK(ctx->vops->alloc(ctx, &b, nc));
  NG_ASSERT_OK(ctx->vops->alloc(ctx, &x, nc));
  NG_ASSERT_OK(ctx->vops->upload(ctx, b, hb, nc));
  NG_ASSERT_OK(M->Cops->apply(M->Cdata, 1.0, b, 0.0, x));
  NG_ASSERT_OK(ctx->vops->download(ctx, hx, x, nc));
  NG_ASSERT_OK(ng_comm_starts(ctx, nc, starts));
  NG_ASSERT_OK(ng_gather_values(ctx, hx, starts, fx));
  ng_csr W;
  NG_ASSERT_OK(ng_matrix_gather_csr(C, NG_SUCCESS, &W));
  if (rank == 0) {
    if (!R->N) {
      MPI_Comm comm = MPI_COMM_SELF;
      NG_ASSERT_OK(ng_context_create_comm(resource, &comm, &R->self));
      NG_ASSERT_OK(ng_matrix_adopt_local(R->self, &W, &R->A1));
      R->N = ng_test_amg(R->self, R->A1, options);
    } else {
      NG_ASSERT_OK(ng_matrix_update_values(R->A1, W.val));
      NG_ASSERT_OK(ng_precond_update(R->N, R->A1));
    }
    ng_context self = R->self;
    double *gb = malloc(((size_t)n + 1) * 8), *gx = malloc(((size_t)n + 1) * 8), *db, *dx, xmax = 0.0;
    for (int64_t i = 0; i < n; i++) gb[i] = ng_mpi_test_value(i);
    NG_ASSERT_OK(self->vops->alloc(self, &db, n));
    NG_ASSERT_OK(self->vops->alloc(self, &dx, n));
    NG_ASSERT_OK(self->vops->upload(self, db, gb, n));
    NG_ASSERT_OK(R->N->ops->apply(R->N, db, dx));
    NG_ASSERT_OK(self->vops->download(self, gx, dx, n));
    for (int64_t i = 0; i < n; i++) {
      xmax = fmax(xmax, fabs(gx[i]));
      d = fmax(d, fabs(gx[i] - fx[i]));
    }
    d = xmax > 0 ? d / xmax : d;
    self->vops->free(self, db);
    self->vops->free(self, dx);
    free(gb);
    free(gx);
  }
  ng_csr_free(&W);
  MPI_Bcast(&d, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
  ctx->vops->free(ctx, b);
  ctx->vops->free(ctx, x);
  free(hb);
  free(hx);
  free(fx);
  return d;
}

START_TEST(coarse_solve_is_the_nested_cycle)
{
  const char *specs[] = {"lap27:20", "fem27:16"};
  const char *aggs[] = {"coupled", "uncoupled"};
  double tol = world->on_gpu ? 1e-12 : 0.0;
  for (size_t s = 0; s < 2; s++)
    for (int a = 0; a < 2; a++) {
      ng_csr W;
      double *b = NULL;
      NG_ASSERT_OK(ng_generate_csr(specs[s], &W, &b));
      free(b);
      int64_t starts[65];
      ng_mpi_test_starts(W.nrows, 0, starts);
      ng_matrix A;
      NG_ASSERT_OK(ng_mpi_test_csr_rows(world, &W, starts, &A));
      char opts[160];
      snprintf(opts, sizeof(opts), "-amg_telescope_rows 100000 -amg_coarse_size 20 -amg_dist_aggregation %s", aggs[a]);
      ng_precond P = ng_test_amg(world, A, opts);
      ng_amg *M = P->data;
      ck_assert_msg(M->telescope != NULL, "%s %s: no gathered levels", specs[s], aggs[a]);
      ck_assert_msg(M->nlevels == 2, "%s %s: %d distributed levels, the gathered one second", specs[s], aggs[a],
                    M->nlevels);
      /* an uncoupled level gathered onto rank 0 is never multiplied across
       * the ranks: its halo plan is not made */
      ng_matrix C = ((ng_amg_dlevel *)M->dist)[1].A;
      if (!strcmp(aggs[a], "uncoupled"))
        ck_assert_msg(C->halo == NULL && C->halo_deferred == 1, "%s uncoupled: the gathered level made a halo plan",
                      specs[s]);
      reference R = {0};
      double d = coarse_solve_defect(P, opts, &R);
      if (rank == 0) printf("%s %s: the gathered coarse solve against a one-rank AMG: %.3g\n", specs[s], aggs[a], d);
      ck_assert_msg(d <= tol, "%s %s: the coarse solve differs by %g", specs[s], aggs[a], d);
      /* an update with the setup's values repeats the V-cycle */
      int32_t n = A->n_local;
      double *z0 = malloc((size_t)n * 8 + 8), *z1 = malloc((size_t)n * 8 + 8), zmax = 0.0;
      ng_mpi_test_vcycle(P, A, z0);
      NG_ASSERT_OK(ng_matrix_update_values(A, W.val + W.rowptr[starts[rank]]));
      NG_ASSERT_OK(ng_precond_update(P, A));
      ng_mpi_test_vcycle(P, A, z1);
      for (int32_t i = 0; i < n; i++) zmax = fmax(zmax, fabs(z0[i]));
      for (int32_t i = 0; i < n; i++)
        ck_assert_msg(fabs(z0[i] - z1[i]) <= tol * zmax, "%s %s: a same-value update changed z[%d] by %g", specs[s],
                      aggs[a], (int)i, fabs(z0[i] - z1[i]));
      free(z0);
      free(z1);
      /* new values: the nested AMG follows them */
      ng_mpi_test_new_values(A, &W, starts, 0.5);
      NG_ASSERT_OK(ng_precond_update(P, A));
      d = coarse_solve_defect(P, opts, &R);
      reference_free(&R);
      if (rank == 0) printf("%s %s, updated: %.3g\n", specs[s], aggs[a], d);
      ck_assert_msg(d <= tol, "%s %s, updated: the coarse solve differs by %g", specs[s], aggs[a], d);
      ng_precond_destroy(P);
      ng_matrix_destroy(A);
      ng_csr_free(&W);
    }
}
END_TEST

START_TEST(pcg_converges)
{
  const char *specs[] = {"lap27:24", "fem27:20", "lap7:24"};
  const char *variants[] = {"-amg_dist_aggregation coupled", "-amg_dist_aggregation uncoupled",
                            "-amg_dist_aggregation coupled -amg_cycle k"};
  for (size_t s = 0; s < 3; s++)
    for (int v = 0; v < 3; v++) {
      char ot[200], od[200];
      double res, rec, resd, recd;
      snprintf(ot, sizeof(ot), "-solver cg -precond amg -tol 1e-8 -amg_coarse_size 20 -amg_telescope_rows 100000 %s",
               variants[v]);
      snprintf(od, sizeof(od), "-solver cg -precond amg -tol 1e-8 -amg_coarse_size 20 -amg_telescope_rows 0 %s",
               variants[v]);
      int it = ng_mpi_test_solve(world, specs[s], NULL, ot, &res, &rec);
      int id = ng_mpi_test_solve(world, specs[s], NULL, od, &resd, &recd);
      if (rank == 0)
        printf("%s %s: AMG-PCG %d iterations with the levels on rank 0 (residual %.3g), %d distributed\n", specs[s],
               variants[v], it, rec, id);
      ck_assert_msg(rec <= 1e-8, "%s %s: recomputed residual %g", specs[s], variants[v], rec);
      ck_assert_msg(it > 0 && it <= id + 1, "%s %s: %d iterations against %d", specs[s], variants[v], it, id);
    }
}
END_TEST

START_TEST(w_cycle_and_bad_option)
{
  ng_csr W;
  double *b = NULL;
  NG_ASSERT_OK(ng_generate_csr("lap27:16", &W, &b));
  free(b);
  int64_t starts[65];
  ng_mpi_test_starts(W.nrows, 0, starts);
  ng_matrix A;
  NG_ASSERT_OK(ng_mpi_test_csr_rows(world, &W, starts, &A));
  ng_precond P = ng_test_amg(world, A, "-amg_telescope_rows 100000 -amg_coarse_size 20 -amg_cycle w");
  ck_assert_msg(((ng_amg *)P->data)->telescope == NULL, "the W-cycle gathered its levels");
  ng_precond_destroy(P);
  ng_options o;
  NG_ASSERT_OK(ng_options_create(&o));
  /* refused where the options check it (-amg_telescope_rows is a count >= 0) */
  ng_status st = ng_options_set_from_string(o, "-precond amg -amg_telescope_rows -2");
  if (st == NG_SUCCESS) st = ng_precond_create(world, o, A, &P);
  ck_assert_int_eq(st, NG_ERR_ARGUMENT);
  ck_assert_msg(strstr(ng_last_error(), "amg_telescope_rows") != NULL, "message: %s", ng_last_error());
  ng_error_clear();
  ng_options_destroy(o);
  ng_matrix_destroy(A);
  ng_csr_free(&W);
}
END_TEST

int main(int argc, char **argv)
{
  int rc = ng_mpi_test_init(&argc, &argv, &rank, &size);
  if (rc) return rc;
  resource = argc > 1 ? argv[1] : "cpu";
#ifndef NG_HAVE_CUDA
  if (!strcmp(resource, "gpu")) {
    if (rank == 0) printf("skipped: no CUDA device (built without CUDA)\n");
    MPI_Finalize();
    return 77;
  }
#endif
  if ((rc = ng_mpi_test_context(resource, &world))) return rc;
  Suite *s = suite_create("amg_telescope");
  TCase *tc = tcase_create("amg_telescope");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, gather_is_the_matrix);
  tcase_add_test(tc, device_gather_is_the_matrix);
  tcase_add_test(tc, coarse_solve_is_the_nested_cycle);
  tcase_add_test(tc, pcg_converges);
  tcase_add_test(tc, w_cycle_and_bad_option);
  suite_add_tcase(s, tc);
  return ng_mpi_test_finish(s, world);
}
