/* test/test_amg_mpi.c: the AMG hierarchy across MPI ranks (amg/amg_dist*),
 * run by test/amg_mpi_np{1,2,4}.sh (CK_FORK=no: every test is collective).
 * Each rank also builds the one-rank hierarchy of the whole matrix on an
 * MPI_COMM_SELF context, and the distributed one must agree with it:
 *  - on random uneven partitions (one rank without rows when there are 3 or
 *    more), P's rows and P applied to a coarse vector, R applied to a fine
 *    vector, equal the one-rank P and R (the aggregates are the same);
 *  - the coarse operator equals the dense triple product P^T A P formed here
 *    from the gathered global A and P;
 *  - AMG-PCG (AMG-PBiCGSTAB on aniso27) iteration counts on lap27, fem27,
 *    aniso27, bcsstk13.mtx and 494_bus.mtx, and het5 with -amg_cycle w, are
 *    within 2 of one rank's;
 *  - ng_precond_update after new values gives the V-cycle of the one-rank
 *    hierarchy updated with the same values, and an update with unchanged
 *    values the very same V-cycle, bit for bit;
 *  - every smoother (jacobi, mcgs, mmcgs, chebyshev) converges on lap27,
 *    fem27 (PCG) and aniso27 (PBiCGSTAB): Jacobi and Chebyshev within 2
 *    iterations of one rank (the same method), the processor-block hybrid
 *    Gauss-Seidel ones within 1.5x + 3; on a random uneven partition (one
 *    rank empty) each gives a symmetric V-cycle (x'My = y'Mx over all ranks)
 *    that an update with unchanged values repeats bit for bit;
 *  - -amg_coarsening classical (argument "classical": that test alone, run
 *    by test/amg_classical_mpi.sh): P, R and A_c are one rank's, and so are
 *    the AMG-PCG iteration counts on stretch7, jump2q1 and bubbles7;
 *  - the coarsest dense inverse, its rows spread over the ranks, is the
 *    one-rank inverse of the same operator bit for bit (Cholesky and
 *    Gauss-Jordan, a symmetric indefinite operator whose factor fails midway,
 *    held by rank 0 or by the last rank), also after an
 *    update. */
#include "mpi_testutil.h"
#include "../amg/amg_dist.h"
#include <math.h>
#include <mpi.h>

static int rank, size;
static ng_context world;

static ng_options amg_options(const char *extra)
{
  ng_options o;
  NG_ASSERT_OK(ng_options_create(&o));
  NG_ASSERT_OK(ng_options_set_from_string(o, "-precond amg -amg_coarse_size 20"));
  if (extra) NG_ASSERT_OK(ng_options_set_from_string(o, extra));
  return o;
}

/* Global column of entry k of row i of a distributed matrix's two blocks. */
static int64_t gcol_local(ng_matrix A, int32_t c) { return A->col_begin + c; }

/* P, P x_c and R x_f of the distributed level 0 against the one-rank ones. */
static void check_transfer(const ng_amg *S, const ng_amg *M)
{
  const ng_amg_dlevel *D = M->dist;
  const ng_csr *Ps = &S->L[0].P, *Rs = &S->L[0].R;
  ng_matrix P = D[0].P;
  int64_t r0 = P->row_begin, nc = P->n_col_global;
  ck_assert_int_eq(nc, Ps->ncols);
  for (int32_t i = 0; i < P->n_local; i++) {
    int64_t gi = r0 + i, ns = Ps->rowptr[gi + 1] - Ps->rowptr[gi];
    int64_t nd = P->local.rowptr[i + 1] - P->local.rowptr[i] + P->offrank.rowptr[i + 1] - P->offrank.rowptr[i];
    ck_assert_msg(ns == nd, "P row %lld: %lld entries on one rank, %lld here", (long long)gi, (long long)ns,
                  (long long)nd);
    for (int64_t k = Ps->rowptr[gi]; k < Ps->rowptr[gi + 1]; k++) {
      double v = NAN;
      for (int64_t q = P->local.rowptr[i]; q < P->local.rowptr[i + 1]; q++)
        if (gcol_local(P, P->local.col[q]) == Ps->col[k]) v = P->local.val[q];
      for (int64_t q = P->offrank.rowptr[i]; q < P->offrank.rowptr[i + 1]; q++)
        if (P->halo_gcol[P->offrank.col[q]] == Ps->col[k]) v = P->offrank.val[q];
      ck_assert_msg(fabs(v - Ps->val[k]) <= 1e-13 * (1 + fabs(Ps->val[k])), "P(%lld,%d): %.17g vs %.17g",
                    (long long)gi, (int)Ps->col[k], v, Ps->val[k]);
    }
  }
  /* P x_c and R x_f through the V-cycle's own tables */
  double *xc = malloc((size_t)nc * 8 + 8), *yf = malloc((size_t)Ps->nrows * 8 + 8);
  double *xf = malloc((size_t)Ps->nrows * 8 + 8), *yc = malloc((size_t)nc * 8 + 8);
  double *yl = malloc((size_t)P->n_local * 8 + 8), *ycl = malloc((size_t)P->n_col_local * 8 + 8);
  for (int64_t g = 0; g < nc; g++) xc[g] = sin(1.0 + (double)g);
  for (int64_t g = 0; g < Ps->nrows; g++) xf[g] = cos(0.5 * (double)g);
  ng_csr_spmv(Ps, 1.0, xc, 0.0, yf);
  ng_csr_spmv(Rs, 1.0, xf, 0.0, yc);
  NG_ASSERT_OK(M->L[0].Pops->apply(M->L[0].Pdata, 1.0, xc + P->col_begin, 0.0, yl));
  for (int32_t i = 0; i < P->n_local; i++)
    ck_assert_msg(fabs(yl[i] - yf[r0 + i]) <= 1e-12 * (1 + fabs(yf[r0 + i])), "(P x)[%lld]: %.17g vs %.17g",
                  (long long)(r0 + i), yl[i], yf[r0 + i]);
  NG_ASSERT_OK(M->L[0].Rops->apply(M->L[0].Rdata, 1.0, xf + r0, 0.0, ycl));
  for (int32_t c = 0; c < P->n_col_local; c++)
    ck_assert_msg(fabs(ycl[c] - yc[P->col_begin + c]) <= 1e-12 * (1 + fabs(yc[P->col_begin + c])),
                  "(R x)[%lld]: %.17g vs %.17g", (long long)(P->col_begin + c), ycl[c], yc[P->col_begin + c]);
  free(xc); free(yf); free(xf); free(yc); free(yl); free(ycl);
}

/* Rows of a distributed matrix summed into a dense global array (every rank). */
static double *gather_dense(ng_matrix A)
{
  int64_t n = A->n_global, m = A->n_col_global;
  double *d = calloc((size_t)(n * m), sizeof(double));
  for (int32_t i = 0; i < A->n_local; i++) {
    for (int64_t q = A->local.rowptr[i]; q < A->local.rowptr[i + 1]; q++)
      d[(A->row_begin + i) * m + A->col_begin + A->local.col[q]] += A->local.val[q];
    for (int64_t q = A->offrank.rowptr[i]; q < A->offrank.rowptr[i + 1]; q++)
      d[(A->row_begin + i) * m + A->halo_gcol[A->offrank.col[q]]] += A->offrank.val[q];
  }
  MPI_Allreduce(MPI_IN_PLACE, d, (int)(n * m), MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return d;
}

/* A_c (level 1) against P^T A P formed densely from the gathered A and P. */
static void check_galerkin(const ng_amg *M)
{
  const ng_amg_dlevel *D = M->dist;
  ng_matrix A = D[0].A, P = D[0].P;
  int64_t n = A->n_global, nc = P->n_col_global;
  double *a = gather_dense(A), *p = gather_dense(P), *ac = gather_dense(D[1].A);
  double *ap = calloc((size_t)(n * nc), sizeof(double)), scale = 0;
  for (int64_t i = 0; i < n; i++)
    for (int64_t k = 0; k < n; k++)
      if (a[i * n + k] != 0.0)
        for (int64_t c = 0; c < nc; c++) ap[i * nc + c] += a[i * n + k] * p[k * nc + c];
  for (int64_t c = 0; c < nc * nc; c++) scale = fmax(scale, fabs(ac[c]));
  for (int64_t r = 0; r < nc; r++)
    for (int64_t c = 0; c < nc; c++) {
      double s = 0;
      for (int64_t i = 0; i < n; i++) s += p[i * nc + r] * ap[i * nc + c];
      ck_assert_msg(fabs(s - ac[r * nc + c]) <= 1e-12 * scale, "A_c(%lld,%lld): %.17g, dense %.17g", (long long)r,
                    (long long)c, ac[r * nc + c], s);
    }
  free(a); free(p); free(ac); free(ap);
}

/* One problem's AMG twice: on one rank (an MPI_COMM_SELF context, the whole
 * matrix) and across the ranks on a random uneven partition. */
typedef struct {
  ng_csr W;
  double *b;
  ng_context self;
  ng_matrix As, A;
  ng_precond Ps, P;
  ng_amg *S, *M;
} twin;

static void twin_make(twin *T, const char *spec, ng_options o)
{
  int64_t starts[65];
  MPI_Comm c = MPI_COMM_SELF;
  NG_ASSERT_OK(ng_generate_csr(spec, &T->W, &T->b));
  ng_mpi_test_starts(T->W.nrows, 1, starts);
  NG_ASSERT_OK(ng_context_create_comm("cpu", &c, &T->self));
  NG_ASSERT_OK(ng_matrix_create_csr(T->self, T->W.nrows, T->W.ncols, T->W.rowptr, T->W.col, T->W.val, &T->As));
  NG_ASSERT_OK(ng_precond_create(T->self, o, T->As, &T->Ps));
  NG_ASSERT_OK(ng_mpi_test_csr_rows(world, &T->W, starts, &T->A));
  NG_ASSERT_OK(ng_precond_create(world, o, T->A, &T->P));
  T->S = ng_amg_of(T->Ps);
  T->M = ng_amg_of(T->P);
  ck_assert_ptr_nonnull(T->S);
  ck_assert_ptr_nonnull(T->M);
  ck_assert_msg(T->S->nlevels == T->M->nlevels && T->M->nlevels >= 2, "%s: %d levels on one rank, %d here", spec,
                T->S->nlevels, T->M->nlevels);
}

static void twin_free(twin *T)
{
  ng_precond_destroy(T->P);
  ng_precond_destroy(T->Ps);
  ng_matrix_destroy(T->A);
  ng_matrix_destroy(T->As);
  ng_context_destroy(T->self);
  ng_csr_free(&T->W);
  free(T->b);
}

/* s < 3: the exact Galerkin product (-amg_sparsify 0) against the dense
 * one; s >= 3: the default sparsified coarse operators have the one-rank
 * hierarchy's entry counts (the decision reads the same values). */
START_TEST(transfer_and_galerkin_equal_serial)
{
  const char *specs[] = {"lap27:9", "fem27:8", "lap7:7x9x6", "lap7:12", "het7:10"};
  for (int s = 0; s < 5; s++) {
    twin T;
    ng_options o = amg_options(s < 3 ? "-amg_sparsify 0" : NULL);
    twin_make(&T, specs[s], o);
    ng_amg *S = T.S, *M = T.M;
    if (size > 1 && s >= 3) {
      ng_amg_dlevel *D = (ng_amg_dlevel *)M->dist;
      for (int l = 1; l < M->nlevels && !D[l - 1].gather; l++)
        ck_assert_msg(D[l].nnz_global == S->L[l].A.nnz, "%s level %d: %lld entries on %d ranks, %lld on one", specs[s], l,
                      (long long)D[l].nnz_global, size, (long long)S->L[l].A.nnz);
      if (rank == 0) printf("%s: the sparsified coarse operators have one rank's entry counts\n", specs[s]);
    } else if (size > 1) {
      ck_assert_ptr_nonnull(M->dist);
      check_transfer(S, M);
      check_galerkin(M);
      if (rank == 0) printf("%s: P, R and A_c agree with one rank (%d levels)\n", specs[s], M->nlevels);
    }
    twin_free(&T);
    ng_options_destroy(o);
  }
}
END_TEST

/* -amg_coarsening classical across ranks (amg_dist_classical.c): on random
 * uneven partitions its P and R are one rank's (the same PMIS splitting and
 * extended+i rows), A_c is P^T A P, and AMG-PCG takes one rank's
 * iterations on the hard classes, and so does the default (-amg_coarsening
 * auto: the rebuild as classical after 8 iterations, on every rank alike);
 * ng_precond_update and the solver's update set the hierarchy up again. */
START_TEST(classical_equals_one_rank)
{
  const char *specs[] = {"stretch7:8", "jump2q1:16", "spheres7:8", "lap27:8"};
  for (int s = 0; s < 4; s++) {
    twin T;
    ng_options o = amg_options("-amg_coarsening classical");
    twin_make(&T, specs[s], o);
    if (size > 1) {
      check_transfer(T.S, T.M);
      check_galerkin(T.M);
      if (rank == 0) printf("%s classical: P, R and A_c agree with one rank (%d levels)\n", specs[s], T.M->nlevels);
    }
    NG_ASSERT_OK(ng_precond_update(T.P, T.A)); /* sets the hierarchy up again, on every rank */
    twin_free(&T);
    ng_options_destroy(o);
  }
  const char *hard[] = {"stretch7:12", "jump2q1:32", "bubbles7:12", "jump2q1:32"};
  for (int k = 0; k < 4; k++) {
    const char *opts = k < 3 ? "-solver pcg -precond amg -tol 1e-8 -amg_coarsening classical"
                             : "-solver pcg -precond amg -tol 1e-8"; /* auto */
    ng_context self1;
    MPI_Comm cm = MPI_COMM_SELF;
    double rec1, recN;
    NG_ASSERT_OK(ng_context_create_comm("cpu", &cm, &self1));
    int its1 = ng_mpi_test_solve(self1, hard[k], NULL, opts, NULL, &rec1);
    ng_context_destroy(self1);
    int itsN = ng_mpi_test_solve(world, hard[k], NULL, opts, NULL, &recN);
    const char *what = k < 3 ? "classical" : "auto";
    if (rank == 0) printf("%-12s %s: 1 rank %d its | %d ranks %d its\n", hard[k], what, its1, size, itsN);
    ck_assert_msg(itsN == its1, "%s %s: %d iterations on %d ranks, %d on one", hard[k], what, itsN, size, its1);
    ck_assert_msg(recN <= 1e-8, "%s %s: recomputed residual %g", hard[k], what, recN);
  }
  /* the solver's update of the values (a time step's new values) sets the
   * classical hierarchy up again on every rank: values times 2, the same
   * iterations (AMG scales with A) and the tolerance met */
  {
    ng_csr W;
    double *b0 = NULL;
    int64_t starts[65];
    ng_matrix A;
    ng_vector b, x;
    ng_options o;
    ng_solver S;
    int its[2];
    double res[2];
    NG_ASSERT_OK(ng_generate_csr("jump2q1:24", &W, &b0));
    free(b0);
    ng_mpi_test_starts(W.nrows, 1, starts);
    NG_ASSERT_OK(ng_mpi_test_csr_rows(world, &W, starts, &A));
    NG_ASSERT_OK(ng_vector_create(A, &b));
    NG_ASSERT_OK(ng_vector_create(A, &x));
    NG_ASSERT_OK(ng_vector_fill(b, 1.0));
    NG_ASSERT_OK(ng_options_create(&o));
    NG_ASSERT_OK(ng_options_set_from_string(o, "-solver cg -precond amg -amg_coarsening classical -tol 1e-9"));
    NG_ASSERT_OK(ng_solver_create(world, o, &S));
    NG_ASSERT_OK(ng_solver_set_operator(S, A));
    for (int k = 0; k < 2; k++) {
      if (k == 1) {
        int64_t p0 = W.rowptr[starts[rank]], p1 = W.rowptr[starts[rank + 1]];
        double *v = malloc((size_t)(p1 - p0 + 1) * sizeof(double));
        for (int64_t q = p0; q < p1; q++) v[q - p0] = 2.0 * W.val[q];
        NG_ASSERT_OK(ng_matrix_update_values(A, v));
        free(v);
        NG_ASSERT_OK(ng_solver_set_operator(S, A)); /* set up again, not NG_ERR_UNSUPPORTED */
      }
      NG_ASSERT_OK(ng_vector_fill(x, 0.0));
      NG_ASSERT_OK(ng_solver_solve(S, b, x));
      NG_ASSERT_OK(ng_solver_get_iterations(S, &its[k]));
      NG_ASSERT_OK(ng_solver_get_residual(S, &res[k]));
    }
    if (rank == 0) printf("jump2q1:24 classical, update of the values: %d -> %d iterations\n", its[0], its[1]);
    ck_assert_msg(abs(its[1] - its[0]) <= 1 && res[1] <= 1e-9, "after the update: %d iterations (%d before), residual %g",
                  its[1], its[0], res[1]);
    ng_solver_destroy(S);
    ng_options_destroy(o);
    ng_vector_destroy(b);
    ng_vector_destroy(x);
    ng_matrix_destroy(A);
    ng_csr_free(&W);
  }
}
END_TEST

START_TEST(iterations_match_one_rank)
{
  struct { const char *spec, *file, *opts; } c[] = {
    {"lap27:20", NULL, "-solver pcg -precond amg -tol 1e-8"},
    {"fem27:16", NULL, "-solver pcg -precond amg -tol 1e-8"},
    {"aniso27:16", NULL, "-solver pbicgstab -precond amg -tol 1e-8"},
    {NULL, "bcsstk13.mtx", "-solver pcg -precond amg -tol 1e-8 -maxit 2000"},
    {NULL, "494_bus.mtx", "-solver pcg -precond amg -tol 1e-8"}, /* one level: gathered for the dense solve */
    {"het5:64", NULL, "-solver pcg -precond amg -tol 1e-8 -amg_cycle w -amg_coarse_size 20"}, /* W-cycle */
  };
  for (int k = 0; k < 6; k++) {
    ng_context self;
    MPI_Comm cm = MPI_COMM_SELF;
    double rec1, recN;
    const char *path = c[k].file ? ng_test_data(c[k].file) : NULL;
    NG_ASSERT_OK(ng_context_create_comm("cpu", &cm, &self));
    int its1 = ng_mpi_test_solve(self, c[k].spec, path, c[k].opts, NULL, &rec1);
    ng_context_destroy(self);
    int itsN = ng_mpi_test_solve(world, c[k].spec, path, c[k].opts, NULL, &recN);
    if (rank == 0)
      printf("%-14s %-45s 1 rank %d its | %d ranks %d its (recomputed residual %.2e)\n",
             c[k].spec ? c[k].spec : c[k].file, c[k].opts, its1, size, itsN, recN);
    ck_assert_msg(itsN <= its1 + 2, "%s: %d iterations on %d ranks, %d on one", c[k].spec ? c[k].spec : c[k].file,
                  itsN, size, its1);
    ck_assert_msg(recN <= 2e-8, "%s: recomputed residual %g", c[k].spec ? c[k].spec : c[k].file, recN);
  }
}
END_TEST

/* z = M^-1 r with r[g] = 1 + sin(g), returned as this rank's values. */
START_TEST(update_across_ranks)
{
  ng_csr W;
  double *b;
  int64_t starts[65];
  ng_context self;
  ng_matrix A, As;
  ng_precond P, Ps;
  MPI_Comm cm = MPI_COMM_SELF;
  NG_ASSERT_OK(ng_generate_csr("fem27:10", &W, &b));
  ng_mpi_test_starts(W.nrows, 1, starts);
  ng_options o = amg_options(NULL);
  NG_ASSERT_OK(ng_context_create_comm("cpu", &cm, &self));
  NG_ASSERT_OK(ng_matrix_create_csr(self, W.nrows, W.ncols, W.rowptr, W.col, W.val, &As));
  NG_ASSERT_OK(ng_precond_create(self, o, As, &Ps));
  NG_ASSERT_OK(ng_mpi_test_csr_rows(world, &W, starts, &A));
  NG_ASSERT_OK(ng_precond_create(world, o, A, &P));
  int32_t n = A->n_local;
  int64_t p0 = W.rowptr[starts[rank]];
  double *z0 = malloc((size_t)n * 8 + 8), *z1 = malloc((size_t)n * 8 + 8), *zs = malloc((size_t)W.nrows * 8 + 8);
  ng_mpi_test_vcycle(P, A, z0);
  /* unchanged values: the very same hierarchy, bit for bit */
  NG_ASSERT_OK(ng_matrix_update_values(A, W.val + p0));
  NG_ASSERT_OK(ng_precond_update(P, A));
  ng_mpi_test_vcycle(P, A, z1);
  for (int32_t i = 0; i < n; i++) ck_assert_msg(z0[i] == z1[i], "same-value update changed z[%d]", (int)i);
  /* new values (aggregates and patterns kept): the one-rank update's V-cycle */
  for (int32_t i = 0; i < W.nrows; i++)
    for (int64_t k = W.rowptr[i]; k < W.rowptr[i + 1]; k++)
      W.val[k] *= (1.5 + sin(0.1 * i)) * (1.5 + sin(0.1 * W.col[k]));
  NG_ASSERT_OK(ng_matrix_update_values(A, W.val + p0));
  NG_ASSERT_OK(ng_precond_update(P, A));
  NG_ASSERT_OK(ng_matrix_update_values(As, W.val));
  NG_ASSERT_OK(ng_precond_update(Ps, As));
  ng_mpi_test_vcycle(P, A, z1);
  ng_mpi_test_vcycle(Ps, As, zs);
  double diff = 0, nz = 0, moved = 0;
  for (int32_t i = 0; i < n; i++) {
    double s = zs[starts[rank] + i];
    diff = fmax(diff, fabs(z1[i] - s));
    moved = fmax(moved, fabs(z1[i] - z0[i]));
    nz = fmax(nz, fabs(s));
  }
  MPI_Allreduce(MPI_IN_PLACE, &diff, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &moved, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  MPI_Allreduce(MPI_IN_PLACE, &nz, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  if (rank == 0) printf("update: V-cycle moved by %.3g, differs from one rank's update by %.3g (|z| %.3g)\n", moved,
                        diff, nz);
  ck_assert_msg(moved > 1e-3 * nz, "the update did not change the V-cycle");
  ck_assert_msg(diff <= 1e-11 * nz, "updated V-cycle differs from one rank's update by %g (|z| %g)", diff, nz);
  ng_precond_destroy(P);
  ng_precond_destroy(Ps);
  ng_matrix_destroy(A);
  ng_matrix_destroy(As);
  ng_context_destroy(self);
  ng_options_destroy(o);
  ng_csr_free(&W);
  free(b); free(z0); free(z1); free(zs);
}
END_TEST

START_TEST(every_smoother_across_ranks)
{
  const char *sm[] = {"jacobi", "mcgs", "mmcgs", "chebyshev"};
  struct { const char *spec, *solver; } c[] = {{"lap27:16", "pcg"}, {"fem27:14", "pcg"}, {"aniso27:14", "pbicgstab"}};
  for (int k = 0; k < 3; k++)
    for (int s = 0; s < 4; s++) {
      char opts[160];
      ng_context self;
      MPI_Comm cm = MPI_COMM_SELF;
      double rec1, recN;
      snprintf(opts, sizeof(opts), "-solver %s -precond amg -tol 1e-8 -amg_smoother %s", c[k].solver, sm[s]);
      NG_ASSERT_OK(ng_context_create_comm("cpu", &cm, &self));
      int its1 = ng_mpi_test_solve(self, c[k].spec, NULL, opts, NULL, &rec1);
      ng_context_destroy(self);
      int itsN = ng_mpi_test_solve(world, c[k].spec, NULL, opts, NULL, &recN);
      if (rank == 0)
        printf("%-11s %-10s 1 rank %2d its | %d ranks %2d its (recomputed residual %.2e)\n", c[k].spec, sm[s], its1,
               size, itsN, recN);
      int hybrid = s == 1 || s == 2;
      ck_assert_msg(itsN <= (hybrid ? its1 * 3 / 2 + 3 : its1 + 2), "%s %s: %d iterations on %d ranks, %d on one",
                    c[k].spec, sm[s], itsN, size, its1);
      ck_assert_msg(recN <= 2e-8, "%s %s: recomputed residual %g", c[k].spec, sm[s], recN);
    }
  /* random uneven rows: symmetry and the same-value update, per smoother */
  ng_csr W;
  double *b;
  int64_t starts[65];
  NG_ASSERT_OK(ng_generate_csr("fem27:10", &W, &b));
  ng_mpi_test_starts(W.nrows, 1, starts);
  ng_matrix A;
  NG_ASSERT_OK(ng_mpi_test_csr_rows(world, &W, starts, &A));
  int32_t n = A->n_local;
  int64_t p0 = W.rowptr[starts[rank]];
  double *x = malloc((size_t)n * 8 + 8), *y = malloc((size_t)n * 8 + 8), *mx = malloc((size_t)n * 8 + 8);
  double *my = malloc((size_t)n * 8 + 8), *z = malloc((size_t)n * 8 + 8);
  for (int s = 0; s < 4; s++) {
    char extra[96];
    snprintf(extra, sizeof(extra), "-amg_smoother %s -amg_coarse_solver smoother -amg_coarse_sweeps 6", sm[s]);
    ng_options o = amg_options(extra);
    ng_precond P;
    NG_ASSERT_OK(ng_precond_create(world, o, A, &P));
    ng_mpi_test_vcycle(P, A, mx); /* r = 1 + sin(g) */
    for (int32_t i = 0; i < n; i++) x[i] = 1.0 + sin((double)(starts[rank] + i));
    for (int32_t i = 0; i < n; i++) y[i] = cos(0.37 * (double)(starts[rank] + i));
    ng_vector yv, zv;
    NG_ASSERT_OK(ng_vector_create(A, &yv));
    NG_ASSERT_OK(ng_vector_create(A, &zv));
    NG_ASSERT_OK(ng_vector_set_values(yv, y));
    NG_ASSERT_OK(ng_precond_apply(P, yv, zv));
    NG_ASSERT_OK(ng_vector_get_values(zv, my));
    double d[3] = {0, 0, 0};
    for (int32_t i = 0; i < n; i++) {
      d[0] += x[i] * my[i];
      d[1] += y[i] * mx[i];
      d[2] += fabs(x[i] * my[i]);
    }
    MPI_Allreduce(MPI_IN_PLACE, d, 3, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
    if (rank == 0) printf("%s on %d ranks: x'My %.15g, y'Mx %.15g\n", sm[s], size, d[0], d[1]);
    ck_assert_msg(fabs(d[0] - d[1]) <= 1e-12 * d[2], "%s: x'My %.17g, y'Mx %.17g", sm[s], d[0], d[1]);
    NG_ASSERT_OK(ng_matrix_update_values(A, W.val + p0));
    NG_ASSERT_OK(ng_precond_update(P, A));
    ng_mpi_test_vcycle(P, A, z);
    for (int32_t i = 0; i < n; i++) ck_assert_msg(z[i] == mx[i], "%s: same-value update changed z[%d]", sm[s], (int)i);
    ng_vector_destroy(yv);
    ng_vector_destroy(zv);
    ng_precond_destroy(P);
    ng_options_destroy(o);
  }
  free(x); free(y); free(mx); free(my); free(z);
  ng_matrix_destroy(A);
  ng_csr_free(&W);
  free(b);
}
END_TEST

/* The coarsest dense inverse, its rows spread over the ranks: on the rank
 * holding the level, bit for bit the one-rank ng_dense_inverse of the same
 * operator, at setup and after an update; the SPD path (lap27, the level
 * over 128 rows), Gauss-Jordan (rows scaled: not symmetric), and a level
 * held by the last rank alone (494_bus, every row there). */
static void check_coarse_inverse(const ng_amg *M, const char *what)
{
  const ng_amg_dlevel *D = M->dist;
  int l = M->nlevels - 1;
  ng_matrix Ac = D[l].A;
  ck_assert_msg(M->coarse_direct, "%s: no dense coarsest", what);
  if (Ac->n_local == 0) return;
  int32_t n = Ac->n_local;
  ck_assert_int_eq(n, Ac->n_global);
  double *d = calloc((size_t)n * n + 1, sizeof(double));
  for (int32_t i = 0; i < n; i++)
    for (int64_t q = Ac->local.rowptr[i]; q < Ac->local.rowptr[i + 1]; q++)
      d[(size_t)i * n + Ac->local.col[q]] += Ac->local.val[q];
  NG_ASSERT_OK(ng_dense_inverse(n, d));
  for (int64_t k = 0; k < (int64_t)n * n; k++)
    ck_assert_msg(d[k] == M->coarse_inv.val[k], "%s: inverse entry (%d,%d) %.17g, one rank's %.17g", what,
                  (int)(k / n), (int)(k % n), M->coarse_inv.val[k], d[k]);
  free(d);
}

START_TEST(coarse_inverse_spread)
{
  struct { const char *spec, *file, *opts; int scale, last; double shift; } c[] = {
    {"lap27:20", NULL, "-amg_coarse_size 400", 0, 0, 0.0},
    {"lap27:20", NULL, "-amg_coarse_size 400 -solver pbicgstab", 1, 0, 0.0},
    {NULL, "494_bus.mtx", "-amg_coarse_size 500", 0, 1, 0.0},
    {"lap27:20", NULL, "-amg_coarse_size 400", 0, 0, 1.0}, /* symmetric, indefinite: Cholesky stops midway */
  };
  for (int k = 0; k < 4; k++) {
    ng_csr W;
    double *b = NULL;
    int64_t starts[65];
    if (c[k].spec) NG_ASSERT_OK(ng_generate_csr(c[k].spec, &W, &b));
    else NG_ASSERT_OK(ng_mmio_read_csr(ng_test_data(c[k].file), &W));
    for (int32_t i = 0; c[k].scale && i < W.nrows; i++)
      for (int64_t q = W.rowptr[i]; q < W.rowptr[i + 1]; q++) W.val[q] *= 1.0 + 0.25 * sin((double)i);
    for (int32_t i = 0; c[k].shift != 0.0 && i < W.nrows; i++)
      for (int64_t q = W.rowptr[i]; q < W.rowptr[i + 1]; q++) W.val[q] -= W.col[q] == i ? c[k].shift : 0.0;
    ng_mpi_test_starts(W.nrows, 1, starts);
    if (c[k].last)
      for (int r = 0; r < size; r++) starts[r] = 0;
    ng_matrix A;
    ng_precond P;
    NG_ASSERT_OK(ng_mpi_test_csr_rows(world, &W, starts, &A));
    ng_options o = amg_options(c[k].opts);
    NG_ASSERT_OK(ng_precond_create(world, o, A, &P));
    ng_amg *M = ng_amg_of(P);
    ck_assert_ptr_nonnull(M);
    if (M->dist) check_coarse_inverse(M, "setup"); /* one rank: the one-rank setup itself */
    for (int32_t i = 0; i < W.nrows; i++)
      for (int64_t q = W.rowptr[i]; q < W.rowptr[i + 1]; q++) W.val[q] *= 1.0 + 0.1 * cos((double)i + W.col[q]);
    NG_ASSERT_OK(ng_matrix_update_values(A, W.val + W.rowptr[starts[rank]]));
    NG_ASSERT_OK(ng_precond_update(P, A));
    if (M->dist) check_coarse_inverse(M, "update");
    if (rank == 0 && M->dist)
      printf("coarse inverse of %s %s on %d ranks: %d rows, as one rank's\n", c[k].spec ? c[k].spec : c[k].file,
             c[k].opts, size, (int)((ng_amg_dlevel *)M->dist)[M->nlevels - 1].n_global);
    ng_precond_destroy(P);
    ng_matrix_destroy(A);
    ng_options_destroy(o);
    ng_csr_free(&W);
    free(b);
  }
}
END_TEST

int main(int argc, char **argv)
{
  int rc = ng_mpi_test_init(&argc, &argv, &rank, &size);
  if (rc || (rc = ng_mpi_test_context("cpu", &world))) return rc;
  /* "classical": that test alone (test/amg_classical_mpi.sh), its own
   * process and time limit; else the rest */
  int classical = argc > 1 && !strcmp(argv[1], "classical");
  Suite *s = suite_create("amg_mpi");
  TCase *tc = tcase_create("amg_mpi");
  tcase_set_timeout(tc, 300);
  if (classical) tcase_add_test(tc, classical_equals_one_rank);
  else {
    tcase_add_test(tc, transfer_and_galerkin_equal_serial);
    tcase_add_test(tc, iterations_match_one_rank);
    tcase_add_test(tc, update_across_ranks);
    tcase_add_test(tc, every_smoother_across_ranks);
    tcase_add_test(tc, coarse_inverse_spread);
  }
  suite_add_tcase(s, tc);
  return ng_mpi_test_finish(s, world);
}
