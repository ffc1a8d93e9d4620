/* bench/halo.c: the halo transports under MPI on GPU contexts (issue 11);
 * one JSON line per case, printed by rank 0.
 *
 *   mpirun -np P bench/halo [-transports host,ipc] [-sizes 8K,...,8M]
 *                            [-spmv fem27:64] [-solve fem27:48]
 *
 * exchange: a synthetic distributed matrix in which every rank reads
 *   `bytes` (as doubles) from each of its two neighbours in a chain (rows
 *   g-m and g+m of row g, m = bytes / 8 rows per rank); one exchange is
 *   ng_halo_begin + ng_halo_end + a stream sync, started together on all
 *   ranks (barrier); ms is the median over the runs of the slowest rank's
 *   time, GBs the bytes a middle rank receives (2 messages; 1 on a chain
 *   end) per exchange over ms.
 * spmv: ng_matrix_apply_raw of the distributed matrix of -spmv (median,
 *   slowest rank, stream synced), with its halo bytes per rank.
 * solve: AMG-PCG (-solver pcg -precond amg, tol 1e-8) of -solve: setup and
 *   median solve time of 3 solves after a warm-up, iterations.
 * Each line names the transport asked for and, as "neighbours", what rank 0
 * got per neighbour (ng_matrix_get_transport); ipc lines name the ordering
 * (NG_IPC_SYNC: event, the default, or host; see comm/transport_ipc.c). */
#include "bench_util.h"
#include "../comm/halo.h"
#include <mpi.h>
#include <string.h>

static int rank, size;

static void line_begin(const char *bench, const char *transport, int *first)
{
  printf("{");
  bench_str("bench", bench, first);
  bench_str("transport", transport, first);
  if (strstr(transport, "ipc") || !strcmp(transport, "auto")) { /* comm/transport_ipc.c's ordering */
    const char *sync = getenv("NG_IPC_SYNC");
    bench_str("ipc_sync", sync ? sync : "event", first);
  }
  bench_int("ranks", size, first);
}

/* Median over runs of the slowest rank's seconds (rank 0's answer). */
static double median_max(double *t, int runs)
{
  MPI_Allreduce(MPI_IN_PLACE, t, runs, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
  qsort(t, runs, sizeof(double), bench_cmp_double);
  return t[runs / 2];
}

/* Chain matrix: row g couples to g-m and g+m (m rows per rank). */
static void chain_matrix(ng_context ctx, int64_t m, ng_matrix *A)
{
  int64_t n = m * size, b = m * rank, e = b + m;
  int64_t *rp = malloc((size_t)(m + 1) * sizeof(int64_t)), *col = malloc((size_t)m * 3 * sizeof(int64_t));
  double *val = malloc((size_t)m * 3 * sizeof(double));
  int64_t k = 0;
  for (int64_t g = b; g < e; g++) {
    rp[g - b] = k;
    if (g - m >= 0) { col[k] = g - m; val[k++] = -1.0; }
    col[k] = g; val[k++] = 4.0;
    if (g + m < n) { col[k] = g + m; val[k++] = -1.0; }
  }
  rp[m] = k;
  BENCH_OK(ng_matrix_create_distributed(ctx, n, b, e, rp, col, val, A));
  free(rp); free(col); free(val);
}

static void bench_exchange(ng_context ctx, const char *transport, int64_t bytes)
{
  ng_matrix A;
  double *x, t[60];
  int runs = bytes >= (4 << 20) ? 21 : 59;
  int64_t m = bytes / 8;
  char nbs[128];
  chain_matrix(ctx, m, &A);
  BENCH_OK(ng_matrix_get_transport(A, nbs, sizeof(nbs)));
  BENCH_OK(ctx->vops->alloc(ctx, &x, A->n_local));
  BENCH_OK(ctx->vops->fill(ctx, A->n_local, 1.0, x));
  for (int r = -5; r < runs; r++) {
    BENCH_CUDA(cudaStreamSynchronize(ctx->cuda->stream));
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    if (A->halo) {
      BENCH_OK(ng_halo_begin(A, x));
      BENCH_OK(ng_halo_end(A));
    }
    BENCH_CUDA(cudaStreamSynchronize(ctx->cuda->stream));
    if (r >= 0) t[r] = MPI_Wtime() - t0;
  }
  double s = median_max(t, runs);
  int nmsg = size > 2 ? 2 : 1;
  if (rank == 0) {
    int first = 1;
    line_begin("halo", transport, &first);
    bench_str("neighbours", nbs, &first);
    bench_int("bytes", bytes, &first);
    bench_int("messages_in", nmsg, &first);
    bench_num("ms", s * 1e3, &first);
    bench_num("GBs", (double)bytes * nmsg / s * 1e-9, &first);
    printf("}\n");
    fflush(stdout);
  }
  ctx->vops->free(ctx, x);
  ng_matrix_destroy(A);
}

static void bench_spmv_solve(ng_context ctx, const char *transport, const char *spmv_spec, const char *solve_spec)
{
  ng_matrix A;
  ng_vector b, x;
  char nbs[128];
  double t[25];
  int64_t n;
  BENCH_OK(ng_matrix_generate(ctx, spmv_spec, &A, &b));
  BENCH_OK(ng_vector_create(A, &x));
  BENCH_OK(ng_matrix_get_size(A, &n, NULL, NULL));
  BENCH_OK(ng_matrix_get_transport(A, nbs, sizeof(nbs)));
  for (int r = -3; r < 25; r++) {
    BENCH_CUDA(cudaStreamSynchronize(ctx->cuda->stream));
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    BENCH_OK(ng_matrix_apply_raw(A, b->data, x->data));
    BENCH_CUDA(cudaStreamSynchronize(ctx->cuda->stream));
    if (r >= 0) t[r] = MPI_Wtime() - t0;
  }
  double s = median_max(t, 25);
  long long halo_bytes = A->halo ? (long long)A->halo->n_recv * 8 : 0;
  if (rank == 0) {
    int first = 1;
    line_begin("halo-spmv", transport, &first);
    bench_str("neighbours", nbs, &first);
    bench_str("matrix", spmv_spec, &first);
    bench_int("n", n, &first);
    bench_int("halo_bytes_rank0", halo_bytes, &first);
    bench_num("ms", s * 1e3, &first);
    printf("}\n");
    fflush(stdout);
  }
  ng_vector_destroy(x);
  ng_vector_destroy(b);
  ng_matrix_destroy(A);

  ng_options o;
  ng_solver S;
  int its = 0;
  double setup = 0, sec[3];
  BENCH_OK(ng_matrix_generate(ctx, solve_spec, &A, &b));
  BENCH_OK(ng_vector_create(A, &x));
  BENCH_OK(ng_matrix_get_transport(A, nbs, sizeof(nbs)));
  BENCH_OK(ng_options_create(&o));
  BENCH_OK(ng_options_set_from_string(o, "-solver pcg -precond amg -tol 1e-8"));
  BENCH_OK(ng_solver_create(ctx, o, &S));
  double t0 = MPI_Wtime();
  BENCH_OK(ng_solver_set_operator(S, A));
  setup = MPI_Wtime() - t0;
  for (int r = -1; r < 3; r++) {
    BENCH_OK(ng_vector_fill(x, 0.0));
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    ng_status st = ng_solver_solve(S, b, x);
    if (st != NG_SUCCESS && rank == 0) fprintf(stderr, "# solve: %s: %s\n", ng_status_name(st), ng_last_error());
    if (r >= 0) sec[r] = MPI_Wtime() - t0;
  }
  BENCH_OK(ng_solver_get_iterations(S, &its));
  double s3 = median_max(sec, 3);
  if (rank == 0) {
    int first = 1;
    line_begin("halo-solve", transport, &first);
    bench_str("neighbours", nbs, &first);
    bench_str("matrix", solve_spec, &first);
    bench_str("solver", "pcg-amg", &first);
    bench_int("iterations", its, &first);
    bench_num("setup_ms", setup * 1e3, &first);
    bench_num("solve_ms", s3 * 1e3, &first);
    printf("}\n");
    fflush(stdout);
  }
  ng_solver_destroy(S);
  ng_options_destroy(o);
  ng_vector_destroy(x);
  ng_vector_destroy(b);
  ng_matrix_destroy(A);
}

static int64_t parse_size(const char *s)
{
  char *end;
  double v = strtod(s, &end);
  if (*end == 'K' || *end == 'k') v *= 1024;
  else if (*end == 'M' || *end == 'm') v *= 1024 * 1024;
  return (int64_t)v;
}

int main(int argc, char **argv)
{
  const char *transports = "host,ipc", *sizes = "8K,32K,128K,512K,2M,8M";
  const char *spmv_spec = "fem27:64", *solve_spec = "fem27:48";
  MPI_Init(&argc, &argv);
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  for (int a = 1; a + 1 < argc; a += 2) {
    if (!strcmp(argv[a], "-transports")) transports = argv[a + 1];
    else if (!strcmp(argv[a], "-sizes")) sizes = argv[a + 1];
    else if (!strcmp(argv[a], "-spmv")) spmv_spec = argv[a + 1];
    else if (!strcmp(argv[a], "-solve")) solve_spec = argv[a + 1];
    else {
      if (rank == 0) fprintf(stderr, "unknown argument %s\n", argv[a]);
      MPI_Finalize();
      return 2;
    }
  }
  ng_context ctx;
  BENCH_OK(ng_context_create("gpu", &ctx));
  if (size < 2) {
    if (rank == 0) fprintf(stderr, "bench/halo: run it under mpirun with 2 or more ranks\n");
    ng_context_destroy(ctx);
    MPI_Finalize();
    return 2;
  }
  if (rank == 0) fprintf(stderr, "# bench/halo: %d ranks, rank 0 on %s\n", size, ng_context_describe(ctx));
  char *tl = strdup(transports), *ts = NULL;
  for (char *tr = strtok_r(tl, ",", &ts); tr; tr = strtok_r(NULL, ",", &ts)) {
    ng_status st = ng_context_set_transport(ctx, tr);
    if (st != NG_SUCCESS) {
      if (rank == 0) fprintf(stderr, "# %s: %s\n", tr, ng_last_error());
      continue;
    }
    char *sl = strdup(sizes), *ss = NULL;
    for (char *sz = strtok_r(sl, ",", &ss); sz; sz = strtok_r(NULL, ",", &ss)) bench_exchange(ctx, tr, parse_size(sz));
    free(sl);
    bench_spmv_solve(ctx, tr, spmv_spec, solve_spec);
  }
  free(tl);
  ng_context_destroy(ctx);
  MPI_Finalize();
  return 0;
}
