/* test/test_mpi.c: distribution over MPI ranks, run by test/mpi-run.sh with
 * 1, 2 and 4 ranks (CK_FORK=no: every test is collective, so all ranks run
 * every test in the same order). Checks: the halo exchange delivers exactly
 * the owners' values on random partitions (zero-row ranks included);
 * distributed SpMV equals a serial SpMV written here from the global arrays;
 * CG/BiCGSTAB on lap27 and fem27 take the same iteration count (within 1) and
 * reach the same residual as a one-rank context (MPI_COMM_SELF) in the same
 * process; whole matrices from rank 0 (file, CSR) give the serial product;
 * mismatched inputs fail on every rank with a clear message; binding memory
 * on a machine with one NUMA node succeeds and is reported as such. */
#include "mpi_testutil.h"
#ifdef _OPENMP
#include <omp.h>
#endif
#include "../comm/halo.h"
#include "../comm/comm_mpi.h" /* ng_comm's MPI communicator */
#include <math.h>
#include <mpi.h>
#ifdef NG_HAVE_HWLOC
#include <hwloc.h>
#endif

static int rank, size;

static double xval(int64_t g) { return 1.0 + 0.001 * (double)g; }

static ng_context world;

START_TEST(halo_random_partitions)
{
  for (int trial = 0; trial < 5; trial++) {
    ng_test_gcsr G;
    int64_t starts[65];
    ng_matrix A;
    ng_test_gcsr_random(&G, 200 + 37 * trial);
    ng_mpi_test_starts(G.n, 1, starts);
    NG_ASSERT_OK(ng_mpi_test_rows(world, &G, starts, &A));
    /* x = xval(global index); after an exchange halo_values[k] must be
     * exactly xval(halo_gcol[k]) */
    double *x = malloc((size_t)A->n_local * sizeof(double) + 8);
    for (int32_t i = 0; i < A->n_local; i++) x[i] = xval(A->row_begin + i);
    int64_t sent = 0, recvd = A->n_halo, tot[2];
    if (A->halo) {
      NG_ASSERT_OK(ng_halo_begin(A, x));
      NG_ASSERT_OK(ng_halo_end(A));
      sent = A->halo->n_send;
      ck_assert_int_eq(A->halo->n_recv, A->n_halo);
    }
    for (int32_t k = 0; k < A->n_halo; k++) {
      ck_assert_msg(A->halo_gcol[k] < starts[rank] || A->halo_gcol[k] >= starts[rank + 1], "halo column is owned");
      ck_assert_msg(A->halo_values[k] == xval(A->halo_gcol[k]), "trial %d rank %d halo %d: got %g want %g", trial,
                    rank, (int)k, A->halo_values[k], xval(A->halo_gcol[k]));
    }
    /* exactly the needed values move: the distinct off-rank columns of the
     * rows, counted here independently of the plan */
    int64_t want = 0;
    char *seen = calloc((size_t)G.n, 1);
    for (int64_t i = starts[rank]; i < starts[rank + 1]; i++)
      for (int64_t p = G.rp[i]; p < G.rp[i + 1]; p++) {
        int64_t j = G.col[p];
        if ((j < starts[rank] || j >= starts[rank + 1]) && !seen[j]) { seen[j] = 1; want++; }
      }
    ck_assert_int_eq(want, A->n_halo);
    tot[0] = sent; tot[1] = recvd;
    MPI_Allreduce(MPI_IN_PLACE, tot, 2, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
    ck_assert_int_eq(tot[0], tot[1]);
    if (size == 1) ck_assert_int_eq(A->n_halo, 0);
    free(seen);
    free(x);
    ng_matrix_destroy(A);
    ng_test_gcsr_free(&G);
  }
}
END_TEST

/* y = G x over all rows, by hand. */
static void serial_spmv(const ng_test_gcsr *G, const double *x, double *y)
{
  for (int64_t i = 0; i < G->n; i++) {
    double s = 0;
    for (int64_t p = G->rp[i]; p < G->rp[i + 1]; p++) s += G->val[p] * x[G->col[p]];
    y[i] = s;
  }
}

START_TEST(spmv_equals_serial)
{
  ng_test_gcsr G;
  int64_t starts[65];
  ng_matrix A;
  ng_vector x, y;
  ng_test_gcsr_random(&G, 500);
  ng_mpi_test_starts(G.n, 1, starts);
  double *xg = malloc(G.n * sizeof(double)), *yg = malloc(G.n * sizeof(double));
  double *yl = malloc(G.n * sizeof(double));
  ng_test_random(xg, G.n);
  serial_spmv(&G, xg, yg);
  NG_ASSERT_OK(ng_mpi_test_rows(world, &G, starts, &A));
  NG_ASSERT_OK(ng_vector_create(A, &x));
  NG_ASSERT_OK(ng_vector_create(A, &y));
  NG_ASSERT_OK(ng_vector_set_values(x, xg + starts[rank]));
  for (int rep = 0; rep < 3; rep++) { /* the plan is reused */
    NG_ASSERT_OK(ng_matrix_apply(A, x, y));
    NG_ASSERT_OK(ng_vector_get_values(y, yl));
    for (int64_t i = starts[rank]; i < starts[rank + 1]; i++)
      ck_assert_msg(fabs(yl[i - starts[rank]] - yg[i]) <= 1e-13 * (1.0 + fabs(yg[i])), "row %lld: %.17g vs %.17g",
                    (long long)i, yl[i - starts[rank]], yg[i]);
  }
  int32_t nl, nh;
  int nb;
  double secs;
  NG_ASSERT_OK(ng_matrix_get_comm_info(A, &nl, &nh, &nb, &secs));
  ck_assert_int_eq(nl, starts[rank + 1] - starts[rank]);
  ck_assert_int_eq(nh, A->n_halo);
  ck_assert(secs >= 0.0);
  if (size == 1) ck_assert(nb == 0 && secs == 0.0);
  if (A->halo) ck_assert_int_eq(A->halo->exchanges, 3);
  ng_vector_destroy(x);
  ng_vector_destroy(y);
  ng_matrix_destroy(A);
  ng_test_gcsr_free(&G);
  free(xg); free(yg); free(yl);
}
END_TEST

static void compare_with_serial(const char *spec, const char *opts)
{
  ng_context self;
  int its1, itsN;
  double res1, resN, rec1, recN;
  MPI_Comm c = MPI_COMM_SELF;
  NG_ASSERT_OK(ng_context_create_comm("cpu", &c, &self));
  its1 = ng_mpi_test_solve(self, spec, NULL, opts, &res1, &rec1);
  ng_context_destroy(self);
  itsN = ng_mpi_test_solve(world, spec, NULL, opts, &resN, &recN);
  if (rank == 0)
    printf("%-14s %-40s 1 rank: %d its rel %.3e | %d ranks: %d its rel %.3e (recomputed %.3e)\n", spec, opts, its1,
           res1, size, itsN, resN, recN);
  ck_assert_msg(abs(its1 - itsN) <= 1, "%s %s: %d iterations on 1 rank, %d on %d", spec, opts, its1, itsN, size);
  ck_assert_msg(resN <= 1e-8 && recN <= 1e-7, "%s: residual %g (recomputed %g)", spec, resN, recN);
  /* same residual: within a factor 3 (rounding moves it slightly), unless
   * both are at rounding level or the counts differ by one */
  ck_assert_msg(fabs(log10(resN) - log10(res1)) < 0.5 || (resN < 1e-14 && res1 < 1e-14) || abs(its1 - itsN) == 1,
                "%s: residual %g vs %g", spec, resN, res1);
}

START_TEST(krylov_matches_serial)
{
  const char *opts[] = {"-solver cg -precond none -tol 1e-9", "-solver pcg -precond jacobi -tol 1e-9",
                        "-solver bicgstab -precond none -tol 1e-9", "-solver pbicgstab -precond jacobi -tol 1e-9",
                        "-solver gmres -precond jacobi -tol 1e-9 -gmres_restart 10",
                        "-solver fgmres -precond amg -tol 1e-9"};
  for (int k = 0; k < 6; k++) {
    compare_with_serial("lap27:12", opts[k]);
    compare_with_serial("fem27:12x10x14", opts[k]);
  }
  /* more ranks than z-planes: ranks 2, 3 own no rows */
  compare_with_serial("lap27:6x5x2", opts[1]);
  compare_with_serial("lap27:6x5x2", opts[4]);
}
END_TEST

/* One z-plane and several ranks: all but one rank own no rows, yet SpMV
 * (b = A * ones for the stencils) and the plan work. */
START_TEST(zero_row_ranks)
{
  ng_matrix A;
  ng_vector b, x, y;
  int64_t rb, re, rows;
  NG_ASSERT_OK(ng_matrix_generate(world, "lap7:4x4x1", &A, &b));
  NG_ASSERT_OK(ng_matrix_get_ownership(A, &rb, &re));
  ck_assert(re - rb == 0 || re - rb == 16);
  rows = re - rb;
  MPI_Allreduce(MPI_IN_PLACE, &rows, 1, MPI_INT64_T, MPI_SUM, MPI_COMM_WORLD);
  ck_assert_int_eq(rows, 16);
  NG_ASSERT_OK(ng_vector_create(A, &x));
  NG_ASSERT_OK(ng_vector_create(A, &y));
  NG_ASSERT_OK(ng_vector_fill(x, 1.0));
  NG_ASSERT_OK(ng_matrix_apply(A, x, y));
  NG_ASSERT_OK(ng_vector_axpy(-1.0, b, y));
  double nr;
  NG_ASSERT_OK(ng_vector_norm2(y, &nr));
  ck_assert(nr == 0.0);
  ng_vector_destroy(x);
  ng_vector_destroy(y);
  ng_matrix_destroy(A);
  ng_vector_destroy(b);
}
END_TEST

/* Whole matrix from rank 0 (file and CSR) against the one-rank product. */
START_TEST(whole_matrix_from_rank0)
{
  ng_context self;
  ng_matrix A1, A;
  ng_vector x1, y1, x, y;
  MPI_Comm c = MPI_COMM_SELF;
  const char *path = ng_test_data("494_bus.mtx");
  NG_ASSERT_OK(ng_context_create_comm("cpu", &c, &self));
  NG_ASSERT_OK(ng_matrix_read_mtx(self, path, &A1));
  NG_ASSERT_OK(ng_matrix_read_mtx(world, path, &A));
  int64_t n = A1->n_global, rb, re, nnz1, nnz;
  NG_ASSERT_OK(ng_matrix_get_size(A, NULL, NULL, &nnz));
  NG_ASSERT_OK(ng_matrix_get_size(A1, NULL, NULL, &nnz1));
  ck_assert_int_eq(nnz, nnz1);
  double *xg = malloc(n * sizeof(double)), *yg = malloc(n * sizeof(double)), *yl = malloc(n * sizeof(double));
  ng_test_random(xg, n);
  NG_ASSERT_OK(ng_vector_create(A1, &x1));
  NG_ASSERT_OK(ng_vector_create(A1, &y1));
  NG_ASSERT_OK(ng_vector_set_values(x1, xg));
  NG_ASSERT_OK(ng_matrix_apply(A1, x1, y1));
  NG_ASSERT_OK(ng_vector_get_values(y1, yg));
  NG_ASSERT_OK(ng_matrix_get_ownership(A, &rb, &re));
  NG_ASSERT_OK(ng_vector_create(A, &x));
  NG_ASSERT_OK(ng_vector_create(A, &y));
  NG_ASSERT_OK(ng_vector_set_values(x, xg + rb));
  NG_ASSERT_OK(ng_matrix_apply(A, x, y));
  NG_ASSERT_OK(ng_vector_get_values(y, yl));
  for (int64_t i = rb; i < re; i++)
    ck_assert_msg(fabs(yl[i - rb] - yg[i]) <= 1e-12 * (1.0 + fabs(yg[i])), "row %lld", (long long)i);
  /* vector round trip through rank 0 */
  const char *vf = NULL;
  char vpath[4096];
  if (rank == 0) vf = ng_test_tmpfile(".mtx");
  if (rank == 0) snprintf(vpath, sizeof(vpath), "%s", vf);
  MPI_Bcast(vpath, sizeof(vpath), MPI_CHAR, 0, MPI_COMM_WORLD);
  NG_ASSERT_OK(ng_vector_write_mtx(y, vpath));
  NG_ASSERT_OK(ng_vector_fill(x, 0.0));
  NG_ASSERT_OK(ng_vector_read_mtx(x, vpath));
  NG_ASSERT_OK(ng_vector_get_values(x, yl));
  for (int64_t i = rb; i < re; i++)
    ck_assert_msg(fabs(yl[i - rb] - yg[i]) <= 1e-12 * (1.0 + fabs(yg[i])), "vector row %lld", (long long)i);
  MPI_Barrier(MPI_COMM_WORLD);
  if (rank == 0) remove(vpath);
  /* CSR given on rank 0 only (NULL arrays elsewhere) */
  ng_matrix B;
  if (rank == 0)
    NG_ASSERT_OK(ng_matrix_create_csr(world, A1->local.nrows, A1->local.ncols, A1->local.rowptr, A1->local.col,
                                      A1->local.val, &B));
  else
    NG_ASSERT_OK(ng_matrix_create_csr(world, 0, 0, NULL, NULL, NULL, &B));
  NG_ASSERT_OK(ng_vector_set_values(x, xg + rb));
  NG_ASSERT_OK(ng_matrix_apply(B, x, y));
  NG_ASSERT_OK(ng_vector_get_values(y, yl));
  for (int64_t i = rb; i < re; i++)
    ck_assert_msg(fabs(yl[i - rb] - yg[i]) <= 1e-12 * (1.0 + fabs(yg[i])), "csr row %lld", (long long)i);
  ng_matrix_destroy(B);
  ng_vector_destroy(x); ng_vector_destroy(y); ng_vector_destroy(x1); ng_vector_destroy(y1);
  ng_matrix_destroy(A);
  ng_matrix_destroy(A1);
  ng_context_destroy(self);
  free(xg); free(yg); free(yl);
}
END_TEST

/* Every rank must get the error; each case is followed by a good build
 * to show the ranks are still in step. */
static void expect_fail_everywhere(ng_status st, ng_status want, const char *needle, const char *what)
{
  int bad = st != want || (needle && !strstr(ng_last_error(), needle)), any = 0;
  if (rank == 0 || rank == size - 1) printf("rank %d, %s: %s\n", rank, what, ng_last_error());
  if (bad) fprintf(stderr, "rank %d %s: got %s: %s\n", rank, what, ng_status_name(st), ng_last_error());
  MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  ck_assert_msg(!any, "%s: some rank did not fail as expected", what);
}

static void still_in_step(void)
{
  ng_matrix A;
  NG_ASSERT_OK(ng_matrix_generate(world, "lap7:5", &A, NULL));
  ng_matrix_destroy(A);
}

START_TEST(mismatched_inputs)
{
  ng_test_gcsr G;
  int64_t starts[65];
  ng_matrix A = NULL;
  ng_test_gcsr_random(&G, 100);
  for (int r = 0; r <= size; r++) starts[r] = G.n * r / size;
  int64_t b = starts[rank], e = starts[rank + 1], p0 = G.rp[b];
  int64_t *rp = malloc((size_t)(e - b + 2) * sizeof(int64_t));
  for (int64_t i = b; i <= e; i++) rp[i - b] = G.rp[i] - p0;
  rp[e - b + 1] = rp[e - b]; /* an extra empty row for the overlap case */
  /* different n_global on the last rank */
  int64_t n = rank == size - 1 && size > 1 ? G.n + 1 : G.n;
  if (size > 1) {
    expect_fail_everywhere(ng_matrix_create_distributed(world, n, b, e, rp, G.col + p0, G.val + p0, &A), NG_ERR_MPI,
                           "disagree on the matrix size", "n_global mismatch");
    ck_assert(A == NULL);
    still_in_step();
    /* overlap: rank 1 starts one row early */
    int64_t b2 = rank == 1 ? b - 1 : b;
    expect_fail_everywhere(ng_matrix_create_distributed(world, G.n, b2, e, rp, G.col + p0, G.val + p0, &A),
                           NG_ERR_MPI, "overlap", "overlapping ranges");
    still_in_step();
    /* gap: rank 0 ends one row early */
    int64_t e2 = rank == 0 ? e - 1 : e;
    expect_fail_everywhere(ng_matrix_create_distributed(world, G.n, b, e2, rp, G.col + p0, G.val + p0, &A),
                           NG_ERR_MPI, "gap", "gapped ranges");
    still_in_step();
    /* a bad column on the last rank only: every rank fails, the others name it */
    int64_t save = G.col[G.rp[e] - 1];
    if (rank == size - 1) G.col[G.rp[e] - 1] = -5;
    ng_status st = ng_matrix_create_distributed(world, G.n, b, e, rp, G.col + p0, G.val + p0, &A);
    expect_fail_everywhere(st, NG_ERR_ARGUMENT, rank == size - 1 ? "outside" : "failed: entry", "bad column");
    G.col[G.rp[e] - 1] = save;
    still_in_step();
  }
  /* rows missing at the end (any size) */
  int64_t e3 = rank == size - 1 ? e - 1 : e;
  expect_fail_everywhere(ng_matrix_create_distributed(world, G.n, b, e3, rp, G.col + p0, G.val + p0, &A), NG_ERR_MPI,
                         "rows missing", "short ranges");
  still_in_step();
  /* a missing file on rank 0 is an I/O error on every rank */
  expect_fail_everywhere(ng_matrix_read_mtx(world, "/nonexistent/nagare.mtx", &A), NG_ERR_IO, NULL, "missing file");
  still_in_step();
  free(rp);
  ng_test_gcsr_free(&G);
}
END_TEST

START_TEST(binding_report)
{
  char buf[256];
  NG_ASSERT_OK(ng_context_report_binding(world, buf, sizeof(buf)));
  ck_assert(strlen(buf) > 0);
  if (!ng_have_hwloc()) ck_assert(strstr(buf, "hwloc not available") != NULL);
  else ck_assert(strstr(buf, "cpus ") != NULL && strstr(buf, "numa ") != NULL);
  if (rank == 0) printf("binding: %s\n", buf);
}
END_TEST

/* Binding memory on a machine with one NUMA node (as hwloc counts them)
 * succeeds without the memory-policy syscall, which kernels without NUMA
 * support (Firecracker VMs, this CI's included) fail with ENOSYS, and the
 * report says so. Skipped, with a message, where there are several nodes. */
START_TEST(bind_memory_one_numa_node)
{
  char buf[256];
  if (!ng_have_hwloc()) {
    ck_assert_int_eq(ng_context_bind_memory(world), NG_ERR_UNSUPPORTED);
    ck_assert_msg(strstr(ng_last_error(), "hwloc") != NULL, "%s", ng_last_error());
    return;
  }
#ifdef NG_HAVE_HWLOC
  hwloc_topology_t t;
  int nodes = -1;
  if (hwloc_topology_init(&t) == 0) {
    if (hwloc_topology_load(t) == 0) nodes = hwloc_get_nbobjs_by_type(t, HWLOC_OBJ_NUMANODE);
    hwloc_topology_destroy(t);
  }
  ck_assert_msg(nodes >= 1, "hwloc found no NUMA node");
  if (nodes > 1) {
    if (rank == 0) printf("skipped bind_memory_one_numa_node: hwloc counts %d NUMA nodes\n", nodes);
    return;
  }
  NG_ASSERT_OK(ng_context_bind_memory(world));
  NG_ASSERT_OK(ng_context_report_binding(world, buf, sizeof(buf)));
  if (rank == 0) printf("binding after ng_context_bind_memory on one NUMA node: %s\n", buf);
  ck_assert_msg(strstr(buf, " (only node)") != NULL && !strstr(buf, "(memory bound)"), "report '%s'", buf);
#endif
}
END_TEST

/* Each rank's rows of a generated problem (local + off-rank blocks merged
 * back to global columns) and its b equal the one-rank problem's exactly. */
static void check_generated(const char *spec)
{
  ng_context self;
  ng_matrix A1, A;
  ng_vector b1, b;
  int64_t rb, re;
  MPI_Comm c = MPI_COMM_SELF;
  NG_ASSERT_OK(ng_context_create_comm("cpu", &c, &self));
  NG_ASSERT_OK(ng_matrix_generate(self, spec, &A1, &b1));
  NG_ASSERT_OK(ng_matrix_generate(world, spec, &A, &b));
  NG_ASSERT_OK(ng_matrix_get_ownership(A, &rb, &re));
  ck_assert_int_eq(A->n_global, A1->n_global);
  ck_assert_int_eq(A->nnz_global, A1->nnz_global);
  const ng_csr *W = &A1->local, *L = &A->local, *O = &A->offrank;
  double *bw = malloc((size_t)A1->n_local * sizeof(double) + 8), *bl = malloc((size_t)A->n_local * sizeof(double) + 8);
  NG_ASSERT_OK(ng_vector_get_values(b1, bw));
  NG_ASSERT_OK(ng_vector_get_values(b, bl));
  for (int64_t i = rb; i < re; i++) {
    int32_t r = (int32_t)(i - rb);
    int64_t pl = L->rowptr[r], po = O->rowptr[r];
    ck_assert_msg(bl[r] == bw[i], "%s: b[%lld] differs", spec, (long long)i);
    ck_assert_int_eq(W->rowptr[i + 1] - W->rowptr[i], (L->rowptr[r + 1] - pl) + (O->rowptr[r + 1] - po));
    for (int64_t p = W->rowptr[i]; p < W->rowptr[i + 1]; p++) { /* merge of two sorted lists */
      int64_t gl = pl < L->rowptr[r + 1] ? L->col[pl] + rb : INT64_MAX;
      int64_t go = po < O->rowptr[r + 1] ? A->halo_gcol[O->col[po]] : INT64_MAX;
      int64_t gc = gl < go ? gl : go;
      double v = gl < go ? L->val[pl++] : O->val[po++];
      ck_assert_msg(gc == W->col[p] && v == W->val[p], "%s: row %lld entry %lld differs", spec, (long long)i,
                    (long long)(p - W->rowptr[i]));
    }
  }
  free(bw);
  free(bl);
  ng_vector_destroy(b);
  ng_vector_destroy(b1);
  ng_matrix_destroy(A);
  ng_matrix_destroy(A1);
  ng_context_destroy(self);
}

START_TEST(generated_equals_serial)
{
  const char *specs[] = {"lap7:5x4x7", "lap27:6x5x9", "aniso27:4x4x6", "fem27:5x4x7", "lap27:3x3x2", "mps:4"};
  for (int k = 0; k < 6; k++) check_generated(specs[k]);
#ifdef _OPENMP
  /* slabs of more than 20000 rows on 1 and 2 ranks, their planes written by
   * 3 threads (ng_gen_stencil_slab; mpi-run.sh sets one thread a rank) */
  int keep = omp_get_max_threads();
  omp_set_num_threads(3);
  check_generated("lap27:40x30x36");
  omp_set_num_threads(keep);
#endif
  ng_matrix A = NULL;
  expect_fail_everywhere(ng_matrix_generate(world, "lap7:0", &A, NULL), NG_ERR_ARGUMENT, "size 0", "lap7:0");
  expect_fail_everywhere(ng_matrix_generate(world, "fem27:1", &A, NULL), NG_ERR_ARGUMENT, NULL, "fem27:1");
  expect_fail_everywhere(ng_matrix_generate(world, "lap7:+4", &A, NULL), NG_ERR_ARGUMENT, NULL, "lap7:+4");
  still_in_step();
}
END_TEST

/* GPU choice: NG_DEVICE wins and is checked; else local rank modulo the
 * count (or a GPU near the rank's cores, also in range). */
START_TEST(gpu_pick)
{
  int d = -1;
  setenv("NG_DEVICE", "1", 1);
  NG_ASSERT_OK(ng_binding_pick_gpu(world, 2, &d));
  ck_assert_int_eq(d, 1);
  setenv("NG_DEVICE", "2", 1);
  ck_assert_int_eq(ng_binding_pick_gpu(world, 2, &d), NG_ERR_ARGUMENT);
  ck_assert(strstr(ng_last_error(), "NG_DEVICE") != NULL);
  unsetenv("NG_DEVICE");
  NG_ASSERT_OK(ng_binding_pick_gpu(world, 3, &d));
  ck_assert(d >= 0 && d < 3);
  if (!(ng_have_hwloc() && ng_have_cuda())) ck_assert_int_eq(d, world->comm->local_rank % 3);
}
END_TEST

/* Each row's entries sorted by column (insertion sort of the pairs). */
static void sort_rows(ng_test_gcsr *G)
{
  for (int64_t i = 0; i < G->n; i++)
    for (int64_t p = G->rp[i] + 1; p < G->rp[i + 1]; p++)
      for (int64_t q = p; q > G->rp[i] && G->col[q - 1] > G->col[q]; q--) {
        int64_t c = G->col[q];
        double v = G->val[q];
        G->col[q] = G->col[q - 1];
        G->val[q] = G->val[q - 1];
        G->col[q - 1] = c;
        G->val[q - 1] = v;
      }
}

/* New values in the creation order, y = A' x against a serial product:
 * rows given in any order (through the value map), and rows given in
 * ascending columns (no map held: each row's blocks merged). */
static void update_values_case(int sorted)
{
  ng_test_gcsr G;
  int64_t starts[65];
  ng_matrix A;
  ng_vector x, y;
  ng_test_gcsr_random(&G, 300);
  if (sorted) sort_rows(&G);
  ng_mpi_test_starts(G.n, 1, starts);
  double *xg = malloc(G.n * sizeof(double)), *yg = malloc(G.n * sizeof(double)), *yl = malloc(G.n * sizeof(double));
  ng_test_random(xg, G.n);
  NG_ASSERT_OK(ng_mpi_test_rows(world, &G, starts, &A));
  if (A->offrank.nnz) ck_assert_msg((A->value_map == NULL) == sorted, "sorted %d: value map %p", sorted, (void *)A->value_map);
  for (int64_t p = 0; p < G.rp[G.n]; p++) G.val[p] *= 2.0 + sin(0.7 * (double)p); /* a different factor each */
  NG_ASSERT_OK(ng_matrix_update_values(A, G.val + G.rp[starts[rank]]));
  serial_spmv(&G, xg, yg);
  NG_ASSERT_OK(ng_vector_create(A, &x));
  NG_ASSERT_OK(ng_vector_create(A, &y));
  NG_ASSERT_OK(ng_vector_set_values(x, xg + starts[rank]));
  NG_ASSERT_OK(ng_matrix_apply(A, x, y));
  NG_ASSERT_OK(ng_vector_get_values(y, yl));
  for (int64_t i = starts[rank]; i < starts[rank + 1]; i++)
    ck_assert_msg(fabs(yl[i - starts[rank]] - yg[i]) <= 1e-13 * (1.0 + fabs(yg[i])), "row %lld", (long long)i);
  /* and read back in the same order */
  int64_t nnz = 0;
  NG_ASSERT_OK(ng_matrix_get_local_nnz(A, &nnz));
  double *back = malloc((size_t)(nnz ? nnz : 1) * sizeof(double));
  NG_ASSERT_OK(ng_matrix_values_in_input_order(A, back));
  for (int64_t p = 0; p < nnz; p++) ck_assert(back[p] == G.val[G.rp[starts[rank]] + p]);
  free(back);
  ng_vector_destroy(x);
  ng_vector_destroy(y);
  ng_matrix_destroy(A);
  ng_test_gcsr_free(&G);
  free(xg); free(yg); free(yl);
}

START_TEST(update_values_distributed)
{
  update_values_case(0);
  update_values_case(1);
}
END_TEST

int main(int argc, char **argv)
{
  int rc = ng_mpi_test_init(&argc, &argv, &rank, &size);
  if (rc || (rc = ng_mpi_test_context("cpu", &world))) return rc;
  Suite *s = suite_create("mpi");
  TCase *tc = tcase_create("mpi");
  tcase_set_timeout(tc, 120);
  tcase_add_test(tc, halo_random_partitions);
  tcase_add_test(tc, spmv_equals_serial);
  tcase_add_test(tc, krylov_matches_serial);
  tcase_add_test(tc, zero_row_ranks);
  tcase_add_test(tc, whole_matrix_from_rank0);
  tcase_add_test(tc, mismatched_inputs);
  tcase_add_test(tc, binding_report);
  tcase_add_test(tc, bind_memory_one_numa_node);
  tcase_add_test(tc, gpu_pick);
  tcase_add_test(tc, generated_equals_serial);
  tcase_add_test(tc, update_values_distributed);
  suite_add_tcase(s, tc);
  return ng_mpi_test_finish(s, world);
}
