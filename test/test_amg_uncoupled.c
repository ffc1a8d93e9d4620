/* test/test_amg_uncoupled.c: the uncoupled levels of the distributed AMG
 * hierarchy (amg/amg_dist_local.c, -amg_dist_aggregation uncoupled), run by
 * test/amg_uncoupled.sh on 2 and 4 ranks (CK_FORK=no: every test is
 * collective), on a CPU context ("cpu", the default) or on each rank's GPU
 * ("gpu": skipped without a device).
 *  - Galerkin: on every uncoupled level, for a random coarse vector x,
 *    A_{l+1} x (the coarse distributed matrix: its local block from the
 *    one-rank product, its off-rank block from the boundary rows) equals
 *    R (A (P x)) through the level's own P, A and R tables to rounding,
 *    without sparsification, on even and uneven partitions (an empty rank
 *    makes the levels coupled: checked too), at the setup and after an
 *    update with new values; an update with the setup's values repeats the
 *    V-cycle bit for bit;
 *  - P keeps the constant: P x = 1 (x: the coarse constant, T x = 1) on
 *    every row of a zero-row-sum matrix (the off-rank couplings lumped onto
 *    the diagonal term);
 *  - AMG-PCG converges to the tolerance asked (recomputed residual) within
 *    a few iterations of the coupled hierarchy's count;
 *  - on a GPU context: the hierarchy set up on the device equals the one
 *    set up on the host (-amg_setup host), coarse operators to rounding. */
#include "mpi_testutil.h"
#include "../amg/amg_dist.h"
#include <math.h>
#include <mpi.h>
#include <string.h>

static int rank, size;
static ng_context world;

/* max over ranks */
static double gmax(double v)
{
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  return v;
}

/* |A_{l+1} x - R A P x| / |A_{l+1} x| over the ranks, x by global coarse row */
static double galerkin_defect(ng_amg *M, int l)
{
  ng_amg_dlevel *D = M->dist;
  ng_context ctx = world;
  ng_matrix A = D[l].A, C = D[l + 1].A;
  ng_amg_level *L = &M->L[l];
  int32_t n = A->n_local, nc = C->n_local;
  double *hx = malloc(((size_t)nc + 1) * 8), *h1 = malloc(((size_t)nc + 1) * 8), *h2 = malloc(((size_t)nc + 1) * 8);
  double *x, *t1, *t2, *y1, *y2;
  for (int32_t i = 0; i < nc; i++) hx[i] = ng_mpi_test_value(C->row_begin + i);
  NG_ASSERT_OK(ctx->vops->alloc(ctx, &x, nc));
  NG_ASSERT_OK(ctx->vops->alloc(ctx, &y1, nc));
  NG_ASSERT_OK(ctx->vops->alloc(ctx, &y2, nc));
  NG_ASSERT_OK(ctx->vops->alloc(ctx, &t1, n));
  NG_ASSERT_OK(ctx->vops->alloc(ctx, &t2, n));
  NG_ASSERT_OK(ctx->vops->upload(ctx, x, hx, nc));
  NG_ASSERT_OK(ng_matrix_apply_raw(C, x, y1));
  NG_ASSERT_OK(L->Pops->apply(L->Pdata, 1.0, x, 0.0, t1));
  NG_ASSERT_OK(ng_matrix_apply_raw(A, t1, t2));
  NG_ASSERT_OK(L->Rops->apply(L->Rdata, 1.0, t2, 0.0, y2));
  NG_ASSERT_OK(ctx->vops->download(ctx, h1, y1, nc));
  NG_ASSERT_OK(ctx->vops->download(ctx, h2, y2, nc));
  double d = 0, s = 0;
  for (int32_t i = 0; i < nc; i++) {
    d = fmax(d, fabs(h1[i] - h2[i]));
    s = fmax(s, fabs(h1[i]));
  }
  ctx->vops->free(ctx, x);
  ctx->vops->free(ctx, y1);
  ctx->vops->free(ctx, y2);
  ctx->vops->free(ctx, t1);
  ctx->vops->free(ctx, t2);
  free(hx);
  free(h1);
  free(h2);
  d = gmax(d);
  s = gmax(s);
  ck_assert_msg(s > 0, "level %d: A_c x vanished", l + 1);
  return d / s;
}

/* max |P x - 1| on level l's rows, x_c = sqrt(|aggregate c|) (T x = 1:
 * the tentative P's columns are normalised) */
static double constant_defect(ng_amg *M, int l)
{
  ng_amg_dlevel *D = M->dist;
  ng_amg_level *L = &M->L[l];
  ng_context ctx = world;
  int32_t n = D[l].A->n_local, nc = D[l + 1].A->n_local;
  double *x, *y, *h = malloc(((size_t)n + 1) * 8), *hc = calloc((size_t)nc + 1, 8), e = 0;
#ifdef NG_HAVE_CUDA
  if (L->gpu) NG_ASSERT_OK(ng_amg_gpu_aggregates(M, l)); /* the device's into L->agg */
#endif
  ck_assert_ptr_nonnull(L->agg);
  for (int32_t i = 0; i < n; i++)
    if (L->agg[i] >= 0) hc[L->agg[i]] += 1.0;
  for (int32_t c = 0; c < nc; c++) hc[c] = sqrt(hc[c]);
  NG_ASSERT_OK(ctx->vops->alloc(ctx, &x, nc));
  NG_ASSERT_OK(ctx->vops->alloc(ctx, &y, n));
  NG_ASSERT_OK(ctx->vops->upload(ctx, x, hc, nc));
  NG_ASSERT_OK(L->Pops->apply(L->Pdata, 1.0, x, 0.0, y));
  NG_ASSERT_OK(ctx->vops->download(ctx, h, y, n));
  for (int32_t i = 0; i < n; i++) e = fmax(e, fabs(h[i] - 1.0));
  ctx->vops->free(ctx, x);
  ctx->vops->free(ctx, y);
  free(h);
  free(hc);
  return gmax(e);
}

/* every uncoupled level's Galerkin identity; returns how many there are */
static int check_levels(ng_precond P, const char *what)
{
  ng_amg *M = P->data;
  ng_amg_dlevel *D = M->dist;
  int nun = 0;
  for (int l = 0; l + 1 < M->nlevels && D[l].uncoupled; l++, nun++) {
    double g = galerkin_defect(M, l);
    if (rank == 0) printf("%s level %d: |A_c x - R A P x| / |A_c x| = %.3g\n", what, l, g);
    ck_assert_msg(g <= 1e-12, "%s level %d: A_c x differs from R A P x by %g (relative)", what, l, g);
  }
  return nun;
}

START_TEST(galerkin_on_uncoupled_levels)
{
  const char *specs[] = {"lap27:14", "fem27:12", "aniso27:12", "lap7:20"};
  for (size_t s = 0; s < sizeof(specs) / sizeof(specs[0]); s++) {
    ng_csr W;
    double *b = NULL;
    NG_ASSERT_OK(ng_generate_csr(specs[s], &W, &b));
    free(b);
    for (int random = 0; random < 2; random++) {
      int64_t starts[65];
      char what[96];
      ng_mpi_test_starts(W.nrows, random, starts);
      int empty = 0;
      for (int r = 0; r < size; r++) empty |= starts[r + 1] == starts[r];
      snprintf(what, sizeof(what), "%s (%s partition)", specs[s], random ? "random" : "even");
      ng_matrix A;
      NG_ASSERT_OK(ng_mpi_test_csr_rows(world, &W, starts, &A));
      ng_precond P = ng_test_amg(world, A, "-amg_dist_aggregation uncoupled -amg_sparsify 0 -amg_coarse_size 20");
      int nun = check_levels(P, what);
      /* an empty rank: no uncoupled level (each rank must hold rows) */
      ck_assert_msg(empty ? nun == 0 : nun >= 1, "%s: %d uncoupled levels with%s an empty rank", what, nun,
                    empty ? "" : "out");
      /* an update with the setup's values repeats the V-cycle: bit for bit
       * on the host; on the GPU to 1e-12 of |z| (its Galerkin products sum
       * by shared-memory atomics, whose order the hardware does not promise:
       * test_amg_gpu.c's snapshot allows 1e-13 on A_c for the same reason) */
      int32_t n = A->n_local;
      double *z0 = malloc((size_t)n * 8 + 8), *z1 = malloc((size_t)n * 8 + 8);
      ng_mpi_test_vcycle(P, A, z0);
      NG_ASSERT_OK(ng_matrix_update_values(A, W.val + W.rowptr[starts[rank]]));
      NG_ASSERT_OK(ng_precond_update(P, A));
      ng_mpi_test_vcycle(P, A, z1);
      double zmax = 0.0, tol;
      for (int32_t i = 0; i < n; i++) zmax = fmax(zmax, fabs(z0[i]));
      tol = world->on_gpu ? 1e-12 * zmax : 0.0;
      for (int32_t i = 0; i < n; i++)
        ck_assert_msg(fabs(z0[i] - z1[i]) <= tol, "%s: a same-value update changed z[%d] by %.3g (|z| %.3g)", what,
                      (int)i, fabs(z0[i] - z1[i]), zmax);
      free(z0);
      free(z1);
      ng_mpi_test_new_values(A, &W, starts, 0.5);
      NG_ASSERT_OK(ng_precond_update(P, A));
      snprintf(what, sizeof(what), "%s (%s partition), updated", specs[s], random ? "random" : "even");
      check_levels(P, what);
      ng_precond_destroy(P);
      ng_matrix_destroy(A);
    }
    ng_csr_free(&W);
  }
}
END_TEST

/* The constant exactly: a singular Neumann Laplacian (zero row sums
 * everywhere), where P 1 = 1 on every row only when the off-rank couplings
 * are lumped onto the diagonal term. */
START_TEST(prolongation_keeps_constant)
{
  ng_csr W;
  double *b = NULL;
  NG_ASSERT_OK(ng_generate_csr("lap7:16:neumann", &W, &b));
  free(b);
  int64_t starts[65];
  ng_mpi_test_starts(W.nrows, 0, starts);
  ng_matrix A;
  NG_ASSERT_OK(ng_mpi_test_csr_rows(world, &W, starts, &A));
  ng_precond P = ng_test_amg(world, A, "-amg_dist_aggregation uncoupled -amg_coarse_size 20 -amg_filter 0");
  ng_amg *M = P->data;
  ck_assert(((ng_amg_dlevel *)M->dist)[0].uncoupled);
  double e = constant_defect(M, 0);
  if (rank == 0) printf("lap7:16:neumann: |P x - 1| = %.3g\n", e);
  ck_assert_msg(e <= 1e-13, "P 1 differs from 1 by %g", e);
  ng_precond_destroy(P);
  ng_matrix_destroy(A);
  ng_csr_free(&W);
}
END_TEST

START_TEST(pcg_converges)
{
  const char *specs[] = {"lap27:24", "fem27:20"};
  for (size_t s = 0; s < 2; s++) {
    double res, rec, resc, recc;
    int iu = ng_mpi_test_solve(world, specs[s], NULL, "-solver cg -precond amg -tol 1e-8 -amg_dist_aggregation uncoupled",
                               &res, &rec);
    int ic = ng_mpi_test_solve(world, specs[s], NULL, "-solver cg -precond amg -tol 1e-8 -amg_dist_aggregation coupled",
                               &resc, &recc);
    if (rank == 0) printf("%s: AMG-PCG %d iterations uncoupled (residual %.3g), %d coupled\n", specs[s], iu, rec, ic);
    ck_assert_msg(rec <= 1e-8, "%s: recomputed residual %g", specs[s], rec);
    ck_assert_msg(iu <= 2 * ic + 4, "%s: %d iterations uncoupled against %d coupled", specs[s], iu, ic);
  }
}
END_TEST

#ifdef NG_HAVE_CUDA
/* The device's uncoupled levels against the host's: the same aggregates
 * (the one-rank GPU setup's guarantee), P with the lumped diagonal, the
 * coarse operator's blocks to rounding. */
START_TEST(gpu_equals_host)
{
  const char *specs[] = {"lap27:14", "fem27:12"};
  for (size_t s = 0; s < 2; s++) {
    ng_csr W;
    double *b = NULL;
    NG_ASSERT_OK(ng_generate_csr(specs[s], &W, &b));
    free(b);
    int64_t starts[65];
    ng_mpi_test_starts(W.nrows, 0, starts);
    ng_matrix A;
    NG_ASSERT_OK(ng_mpi_test_csr_rows(world, &W, starts, &A));
    const char *o = "-amg_dist_aggregation uncoupled -amg_sparsify 0 -amg_coarse_size 20";
    char og[160], oh[160];
    snprintf(og, sizeof(og), "%s -amg_setup gpu -amg_gpu_min_rows 0", o);
    snprintf(oh, sizeof(oh), "%s -amg_setup host", o);
    ng_precond Pg = ng_test_amg(world, A, og), Ph = ng_test_amg(world, A, oh);
    ng_amg *Mg = Pg->data, *Mh = Ph->data;
    ng_amg_dlevel *Dg = Mg->dist, *Dh = Mh->dist;
    ck_assert(Dg[0].uncoupled && Dh[0].uncoupled);
    ck_assert_msg(Mg->L[0].gpu && !Mh->L[0].gpu, "%s: level 0 not on the GPU (or the host one is)", specs[s]);
    for (int l = 0; l + 1 < Mg->nlevels && Dg[l].uncoupled; l++) {
      struct ng_matrix_s *Cg = Dg[l + 1].A, *Ch = Dh[l + 1].A;
      /* a level gathered onto rank 0 next keeps its local block on the
       * device alone (its product above read it there); a host reader
       * downloads it */
      int gathered = Mg->telescope && l + 1 == Mg->nlevels - 1;
      ck_assert_msg(!gathered || (Cg->host_stale == 2 && !Cg->local.val), "%s level %d: the gathered level has a host copy",
                    specs[s], l + 1);
      NG_ASSERT_OK(ng_matrix_host_current(Cg));
      ck_assert_int_eq(Cg->n_global, Ch->n_global);
      ck_assert_int_eq(Cg->local.nnz, Ch->local.nnz);
      ck_assert_int_eq(Cg->offrank.nnz, Ch->offrank.nnz);
      double scale = 0, d = 0;
      for (int64_t k = 0; k < Ch->local.nnz; k++) scale = fmax(scale, fabs(Ch->local.val[k]));
      for (int64_t k = 0; k < Ch->local.nnz; k++) {
        ck_assert_int_eq(Cg->local.col[k], Ch->local.col[k]);
        d = fmax(d, fabs(Cg->local.val[k] - Ch->local.val[k]));
      }
      for (int64_t k = 0; k < Ch->offrank.nnz; k++) {
        ck_assert_int_eq(Cg->halo_gcol[Cg->offrank.col[k]], Ch->halo_gcol[Ch->offrank.col[k]]);
        d = fmax(d, fabs(Cg->offrank.val[k] - Ch->offrank.val[k]));
      }
      d = gmax(d);
      scale = gmax(scale);
      if (rank == 0) printf("%s level %d: GPU and host coarse operators differ by %.3g (|A_c| %.3g)\n", specs[s], l + 1, d, scale);
      ck_assert_msg(d <= 1e-12 * scale, "%s level %d: GPU and host A_c differ by %g", specs[s], l + 1, d);
      ck_assert_msg(galerkin_defect(Mg, l) <= 1e-12, "%s level %d: the GPU hierarchy's Galerkin identity", specs[s], l);
    }
    ng_precond_destroy(Pg);
    ng_precond_destroy(Ph);
    ng_matrix_destroy(A);
    ng_csr_free(&W);
  }
}
END_TEST
#endif

int main(int argc, char **argv)
{
  int rc = ng_mpi_test_init(&argc, &argv, &rank, &size);
  if (rc) return rc;
  const char *resource = argc > 1 ? argv[1] : "cpu";
#ifndef NG_HAVE_CUDA
  if (!strcmp(resource, "gpu")) {
    if (rank == 0) printf("skipped: no CUDA device (built without CUDA)\n");
    MPI_Finalize();
    return 77;
  }
#endif
  if ((rc = ng_mpi_test_context(resource, &world))) return rc;
  Suite *s = suite_create("amg_uncoupled");
  TCase *tc = tcase_create("amg_uncoupled");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, galerkin_on_uncoupled_levels);
  tcase_add_test(tc, prolongation_keeps_constant);
  tcase_add_test(tc, pcg_converges);
#ifdef NG_HAVE_CUDA
  if (!strcmp(resource, "gpu")) tcase_add_test(tc, gpu_equals_host);
#endif
  suite_add_tcase(s, tc);
  return ng_mpi_test_finish(s, world);
}
