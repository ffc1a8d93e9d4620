/* test/mpi_testutil.c: the helpers of the MPI Check suites (mpi_testutil.h):
 * main()'s start and end, shared random matrices and row partitions, this
 * rank's rows, a solve that reports its iterations. Built into each MPI
 * test program (comm/comm.mk, amg/amg.mk). */
#include "mpi_testutil.h"
#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <math.h>

static int my_rank(void) { int r; MPI_Comm_rank(MPI_COMM_WORLD, &r); return r; }
static int my_size(void) { int s; MPI_Comm_size(MPI_COMM_WORLD, &s); return s; }

int ng_mpi_test_init(int *argc, char ***argv, int *rank, int *size)
{
  unsigned seed;
  MPI_Init(argc, argv);
  MPI_Comm_rank(MPI_COMM_WORLD, rank);
  MPI_Comm_size(MPI_COMM_WORLD, size);
  if (*size > NG_MPI_TEST_MAX_RANKS) {
    if (*rank == 0) printf("skipped: at most %d ranks\n", NG_MPI_TEST_MAX_RANKS);
    MPI_Finalize();
    return 77;
  }
  /* one seed for all ranks: the random matrices must be the same everywhere */
  seed = *rank == 0 ? ng_test_seed() : 0;
  MPI_Bcast(&seed, 1, MPI_UNSIGNED, 0, MPI_COMM_WORLD);
  if (*rank != 0) {
    char s[32];
    snprintf(s, sizeof(s), "%u", seed);
    setenv("NG_TEST_SEED", s, 1);
  }
  setenv("CK_FORK", "no", 1); /* collectives cannot run in forked children */
  return 0;
}

int ng_mpi_test_context(const char *resource, ng_context *ctx)
{
  ng_status st = ng_context_create(resource, ctx);
  int ok = st == NG_SUCCESS, all = 0, nodev = st == NG_ERR_NO_DEVICE, any_nodev = 0;
  MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
  MPI_Allreduce(&nodev, &any_nodev, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  if (all) return 0;
  if (any_nodev && my_rank() == 0) printf("skipped: no CUDA device\n");
  if (!any_nodev && !ok) fprintf(stderr, "rank %d: context '%s': %s\n", my_rank(), resource, ng_last_error());
  if (ok) ng_context_destroy(*ctx);
  *ctx = NULL;
  MPI_Finalize();
  return any_nodev ? 77 : 1;
}

int ng_mpi_test_finish(Suite *s, ng_context ctx)
{
  int rc = ng_test_run(s), worst = rc;
  MPI_Allreduce(&rc, &worst, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
  ng_context_destroy(ctx);
  MPI_Finalize();
  return worst;
}

void ng_test_gcsr_random(ng_test_gcsr *A, int64_t n)
{
  double r[14];
  A->n = n;
  A->rp = calloc((size_t)n + 1, sizeof(int64_t));
  A->col = malloc((size_t)n * 7 * sizeof(int64_t));
  A->val = malloc((size_t)n * 7 * sizeof(double));
  for (int64_t i = 0; i < n; i++) {
    int64_t k = A->rp[i];
    ng_test_random(r, 14);
    A->col[k] = i;
    A->val[k++] = 10.0 + r[0];
    for (int q = 0; q < 6; q++) {
      int64_t j = (int64_t)((r[1 + q] + 1.0) * 0.5 * (double)n) % n;
      int dup = 0;
      for (int64_t p = A->rp[i]; p < k; p++) dup |= A->col[p] == j;
      if (dup || r[7 + q] < -0.2) continue;
      A->col[k] = j;
      A->val[k++] = r[8 + q];
    }
    A->rp[i + 1] = k;
  }
}

void ng_test_gcsr_free(ng_test_gcsr *A)
{
  free(A->rp);
  free(A->col);
  free(A->val);
}

void ng_mpi_test_starts(int64_t n, int random, int64_t *starts)
{
  double r[NG_MPI_TEST_MAX_RANKS];
  int size = my_size();
  ng_test_random(r, size);
  starts[0] = 0;
  starts[size] = n;
  for (int k = 1; k < size; k++) starts[k] = random ? (int64_t)((r[k] + 1.0) * 0.5 * (double)n) : n * k / size;
  for (int k = 1; k < size; k++) /* insertion sort */
    for (int j = k; j > 1 && starts[j] < starts[j - 1]; j--) {
      int64_t t = starts[j]; starts[j] = starts[j - 1]; starts[j - 1] = t;
    }
  if (random && size > 2) starts[2] = starts[1]; /* rank 1 owns no rows */
}

ng_status ng_mpi_test_rows(ng_context ctx, const ng_test_gcsr *G, const int64_t *starts, ng_matrix *A)
{
  int rank, size;
  ng_context_rank(ctx, &rank, &size);
  int64_t b = starts[rank], e = starts[rank + 1], p0 = G->rp[b];
  int64_t *rp = malloc((size_t)(e - b + 1) * sizeof(int64_t));
  for (int64_t i = b; i <= e; i++) rp[i - b] = G->rp[i] - p0;
  ng_status st = ng_matrix_create_distributed(ctx, G->n, b, e, rp, G->col + p0, G->val + p0, A);
  free(rp);
  return st;
}

ng_status ng_mpi_test_csr_rows(ng_context ctx, const ng_csr *W, const int64_t *starts, ng_matrix *A)
{
  int rank, size;
  ng_context_rank(ctx, &rank, &size);
  int64_t b = starts[rank], e = starts[rank + 1], p0 = W->rowptr[b];
  int64_t *rp = malloc((size_t)(e - b + 1) * sizeof(int64_t));
  int64_t *g = malloc((size_t)(W->rowptr[e] - p0 + 1) * sizeof(int64_t)); /* global columns, 64-bit */
  for (int64_t i = b; i <= e; i++) rp[i - b] = W->rowptr[i] - p0;
  for (int64_t p = p0; p < W->rowptr[e]; p++) g[p - p0] = W->col[p];
  ng_status st = ng_matrix_create_distributed(ctx, W->nrows, b, e, rp, g, W->val + p0, A);
  free(rp);
  free(g);
  return st;
}

void ng_mpi_test_vcycle(ng_precond P, ng_matrix A, double *z)
{
  ng_vector r, zv;
  int64_t b;
  int32_t n;
  NG_ASSERT_OK(ng_matrix_get_ownership(A, &b, NULL));
  NG_ASSERT_OK(ng_matrix_get_size(A, NULL, &n, NULL));
  double *h = malloc((size_t)n * 8 + 8);
  for (int32_t i = 0; i < n; i++) h[i] = 1.0 + sin((double)(b + i));
  NG_ASSERT_OK(ng_vector_create(A, &r));
  NG_ASSERT_OK(ng_vector_create(A, &zv));
  NG_ASSERT_OK(ng_vector_set_values(r, h));
  NG_ASSERT_OK(ng_precond_apply(P, r, zv));
  NG_ASSERT_OK(ng_vector_get_values(zv, z));
  ng_vector_destroy(r);
  ng_vector_destroy(zv);
  free(h);
}

int ng_mpi_test_solve(ng_context ctx, const char *spec, const char *path, const char *opts, double *res,
                      double *rec)
{
  ng_options o;
  ng_matrix A;
  ng_vector b = NULL, x, r;
  ng_solver S;
  int its;
  double nb, nr;
  NG_ASSERT_OK(ng_options_create(&o));
  NG_ASSERT_OK(ng_options_set_from_string(o, opts));
  if (spec) NG_ASSERT_OK(ng_matrix_generate(ctx, spec, &A, &b));
  else {
    NG_ASSERT_OK(ng_matrix_read_mtx(ctx, path, &A));
    NG_ASSERT_OK(ng_vector_create(A, &b));
    NG_ASSERT_OK(ng_vector_fill(b, 1.0));
  }
  NG_ASSERT_OK(ng_vector_create(A, &x));
  NG_ASSERT_OK(ng_vector_create(A, &r));
  NG_ASSERT_OK(ng_solver_create(ctx, o, &S));
  NG_ASSERT_OK(ng_solver_set_operator(S, A));
  NG_ASSERT_OK(ng_solver_solve(S, b, x));
  NG_ASSERT_OK(ng_solver_get_iterations(S, &its));
  if (res) NG_ASSERT_OK(ng_solver_get_residual(S, res));
  NG_ASSERT_OK(ng_matrix_apply(A, x, r));
  NG_ASSERT_OK(ng_vector_axpy(-1.0, b, r));
  NG_ASSERT_OK(ng_vector_norm2(r, &nr));
  NG_ASSERT_OK(ng_vector_norm2(b, &nb));
  *rec = nr / nb;
  ng_solver_destroy(S);
  ng_vector_destroy(r);
  ng_vector_destroy(x);
  ng_vector_destroy(b);
  ng_matrix_destroy(A);
  ng_options_destroy(o);
  return its;
}

double ng_mpi_test_value(int64_t g) { return sin(0.37 * (double)g + 0.1) + 0.3 * cos(1.7 * (double)g); }

void ng_mpi_test_new_values(ng_matrix A, const ng_csr *W, const int64_t *starts, double shift)
{
  int rank = A->ctx->rank;
  int64_t p0 = W->rowptr[starts[rank]], p1 = W->rowptr[starts[rank + 1]];
  double *v = malloc((size_t)(p1 - p0 + 1) * sizeof(double));
  for (int64_t i = starts[rank]; i < starts[rank + 1]; i++)
    for (int64_t k = W->rowptr[i]; k < W->rowptr[i + 1]; k++)
      v[k - p0] = W->val[k] * (1.0 + 0.2 * sin(0.3 * (double)(i + W->col[k]))) + (W->col[k] == i ? shift : 0.0);
  NG_ASSERT_OK(ng_matrix_update_values(A, v));
  free(v);
}
