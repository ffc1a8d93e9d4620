/* bench/solve.c: a whole GPU solve per case, its time per iteration beside
 * the SpMV time on the same matrix (issue 4's target: a CG iteration costs
 * at most SpMV + 0.5 ms on lap27 256^3); one JSON line per case.
 *
 *   bench/solve [-matrix SPEC[,SPEC...]] [-solver cg|pcg[,...]] [-tol T] [-host]
 *
 * pcg uses Jacobi. setup_ms is ng_solver_set_operator (work vectors and the
 * preconditioner); solve_ms and ms (= solve_ms / iterations) are the median
 * of 3 solves from x = 0 after one warm-up solve; spmv_ms is the median of
 * the matrix's SpMV by CUDA events. -host also solves on the CPU and prints
 * its iteration count (bench "solve-host") for the GPU/host comparison. */
#include "bench_util.h"
#include <string.h>

typedef struct {
  ng_matrix A;
  double *x, *y;
} apply_arg;
static ng_status run_apply(void *a, int run)
{
  apply_arg *s = a;
  return ng_matrix_apply_raw(s->A, s->x, s->y);
}

/* One solve from x = 0: iterations and seconds. */
static void solve_once(ng_solver S, ng_vector b, ng_vector x, int *its, double *sec)
{
  double setup;
  BENCH_OK(ng_vector_fill(x, 0.0));
  ng_status st = ng_solver_solve(S, b, x);
  if (st != NG_SUCCESS) fprintf(stderr, "# solve: %s: %s\n", ng_status_name(st), ng_last_error());
  BENCH_OK(ng_solver_get_iterations(S, its));
  BENCH_OK(ng_solver_get_times(S, &setup, sec));
}

static void bench_case(ng_context ctx, ng_context hctx, const char *spec, const char *solvers, const char *tol)
{
  ng_matrix A;
  ng_vector b, x;
  int64_t n, nnz;
  double t0 = ng_wtime();
  BENCH_OK(ng_matrix_generate(ctx, spec, &A, &b));
  BENCH_OK(ng_vector_create(A, &x));
  BENCH_OK(ng_matrix_get_size(A, &n, NULL, &nnz));
  fprintf(stderr, "# %s: %lld rows, %lld entries, on the GPU in %.1f s\n", spec, (long long)n, (long long)nnz,
          ng_wtime() - t0);
  apply_arg aa = {A, b->data, x->data};
  double spmv_ms = bench_time(ctx, run_apply, &aa);
  char *list = strdup(solvers), *save = NULL;
  for (char *sv = strtok_r(list, ",", &save); sv; sv = strtok_r(NULL, ",", &save)) {
    char opts[256];
    int pc = !strcmp(sv, "pcg");
    snprintf(opts, sizeof(opts), "-solver %s -precond %s -tol %s -maxit 20000", sv, pc ? "jacobi" : "none", tol);
    ng_options o;
    ng_solver S;
    BENCH_OK(ng_options_create(&o));
    BENCH_OK(ng_options_set_from_string(o, opts));
    BENCH_OK(ng_solver_create(ctx, o, &S));
    BENCH_OK(ng_solver_set_operator(S, A));
    double setup, solve, sec[3];
    int its;
    BENCH_OK(ng_solver_get_times(S, &setup, &solve));
    solve_once(S, b, x, &its, &solve); /* warm-up */
    for (int k = 0; k < 3; k++) solve_once(S, b, x, &its, &sec[k]);
    qsort(sec, 3, sizeof(double), bench_cmp_double);
    bench_line L = bench_line_init("solve");
    L.matrix = spec;
    L.format = ng_matrix_format(A);
    L.solver = pc ? "pcg-jacobi" : sv;
    L.n = n;
    L.nnz = nnz;
    L.iterations = its;
    L.setup_ms = setup * 1e3;
    L.solve_ms = sec[1] * 1e3;
    L.ms = its ? L.solve_ms / its : -1;
    L.spmv_ms = spmv_ms;
    bench_print(&L);
    ng_solver_destroy(S);
    if (hctx) {
      ng_matrix Ah;
      ng_vector bh, xh;
      BENCH_OK(ng_matrix_generate(hctx, spec, &Ah, &bh));
      BENCH_OK(ng_vector_create(Ah, &xh));
      BENCH_OK(ng_solver_create(hctx, o, &S));
      BENCH_OK(ng_solver_set_operator(S, Ah));
      solve_once(S, bh, xh, &its, &solve);
      bench_line H = bench_line_init("solve-host");
      H.matrix = spec;
      H.format = "csr";
      H.solver = L.solver;
      H.n = n;
      H.nnz = nnz;
      H.iterations = its;
      H.solve_ms = solve * 1e3;
      H.ms = its ? H.solve_ms / its : -1;
      bench_print(&H);
      ng_solver_destroy(S);
      ng_vector_destroy(bh);
      ng_vector_destroy(xh);
      ng_matrix_destroy(Ah);
    }
    ng_options_destroy(o);
  }
  free(list);
  ng_vector_destroy(b);
  ng_vector_destroy(x);
  ng_matrix_destroy(A);
}

int main(int argc, char **argv)
{
  const char *matrices = "lap27:128,lap27:256", *solvers = "cg,pcg", *tol = "1e-8";
  int host = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "-matrix") && i + 1 < argc) matrices = argv[++i];
    else if (!strcmp(argv[i], "-solver") && i + 1 < argc) solvers = argv[++i];
    else if (!strcmp(argv[i], "-tol") && i + 1 < argc) tol = argv[++i];
    else if (!strcmp(argv[i], "-host")) host = 1;
    else {
      fprintf(stderr, "usage: %s [-matrix SPEC[,SPEC...]] [-solver cg|pcg[,...]] [-tol T] [-host]\n", argv[0]);
      return 2;
    }
  }
  ng_context ctx, hctx = NULL;
  if (ng_context_create("gpu", &ctx) != NG_SUCCESS) {
    fprintf(stderr, "bench/solve: %s\n", ng_last_error());
    return 77;
  }
  if (host) BENCH_OK(ng_context_create("cpu", &hctx));
  fprintf(stderr, "# %s\n", ng_context_describe(ctx));
  char *list = strdup(matrices), *save = NULL;
  for (char *m = strtok_r(list, ",", &save); m; m = strtok_r(NULL, ",", &save)) bench_case(ctx, hctx, m, solvers, tol);
  free(list);
  ng_context_destroy(hctx);
  ng_context_destroy(ctx);
  return 0;
}
