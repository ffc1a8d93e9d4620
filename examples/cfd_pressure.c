/* examples/cfd_pressure.c: the pressure projection step of a variable-density
 * incompressible flow, repeated over time steps: the pattern a CFD code
 * copies to call nagare once per step.
 *
 * Grid: n^3 cells of the unit cube, h = 1/n, cell (i,j,k) is row
 * i + n (j + n k). Finite-volume pressure equation -div(1/rho grad p) = -div u*
 * (both sides times h): a 7-point matrix whose coefficient on the face between
 * cells P and Q is the harmonic mean of the cells' 1/rho, i.e.
 * 2 / (rho_P + rho_Q). A heavy blob of fluid (sphere of radius 0.15,
 * -rho_ratio times denser, edge smoothed over 1.5 cells) circles and sinks
 * through the box, so the coefficients change every step while the pattern
 * stays. Walls: no-flux (Neumann) on five faces; the top face z = 1 is an
 * open boundary with p = 0 (Dirichlet through a mirrored ghost cell: the
 * top cells' diagonal gets 2/rho), which makes the matrix nonsingular (SPD).
 * Right-hand side: the discrete divergence of u* = V(t) H(x), the blob's
 * velocity carried by its smoothed indicator H (divergent at its edge).
 *
 * Each step: assemble the new values (host, this rank's rows only),
 * ng_matrix_update_values, ng_solver_set_operator on the same matrix (which
 * is ng_precond_update: AMG keeps its aggregates and recomputes values), then
 * PCG from the previous step's pressure. One table row per step: assembly,
 * update, solve seconds, iterations, residuals, elapsed and remaining time.
 *
 * Under MPI each rank builds only its slab of whole z-planes through
 * ng_matrix_create_distributed. On a GPU context (-device gpu, or auto) the
 * matrix, the vectors, the AMG cycle and PCG live on the GPU; only the new
 * values and the right-hand side cross over each step.
 *   cfd_pressure [-n 64] [-steps 10] [-rho_ratio 100] [-reuse 1]
 *                [-solver pcg -precond amg -tol 1e-8 -device auto ...] */
#include "nagare.h"
#include "report.h"
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

typedef struct {
  int n, size, rank;
  int k0, k1;               /* this rank's z-planes [k0, k1) */
  int64_t row_begin, row_end;
  double rho_ratio, radius;
  double cx, cy, cz;        /* blob centre */
  double vx, vy, vz;        /* blob velocity */
} flow;

static double wtime(void)
{
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Blob position and velocity at step s of nsteps: one turn of a circle of
 * radius 0.2 around the box axis while sinking from z = 0.7 to z = 0.3. */
static void flow_move(flow *f, int s, int nsteps)
{
  const double pi = 3.14159265358979323846;
  double T = nsteps > 1 ? nsteps : 1, w = 2 * pi / T;
  f->cx = 0.5 + 0.2 * cos(w * s);
  f->cy = 0.5 + 0.2 * sin(w * s);
  f->cz = 0.7 - 0.4 * s / T;
  f->vx = -0.2 * w * sin(w * s);
  f->vy = 0.2 * w * cos(w * s);
  f->vz = -0.4 / T;
}

/* Smoothed indicator of the blob at the centre of cell (i, j, k). */
static double blob(const flow *f, int i, int j, int k)
{
  double h = 1.0 / f->n;
  double x = (i + 0.5) * h - f->cx, y = (j + 0.5) * h - f->cy, z = (k + 0.5) * h - f->cz;
  double d = sqrt(x * x + y * y + z * z);
  return 0.5 * (1.0 - tanh((d - f->radius) / (1.5 * h)));
}

static double density(const flow *f, int i, int j, int k)
{
  return 1.0 + (f->rho_ratio - 1.0) * blob(f, i, j, k);
}

/* Pattern of this rank's rows: global columns in ascending order (k-1, j-1,
 * i-1, self, i+1, j+1, k+1, those that exist). */
static int build_pattern(const flow *f, int64_t **rowptr_out, int64_t **gcol_out)
{
  int n = f->n;
  int64_t nrows = f->row_end - f->row_begin, nn = (int64_t)n * n, p = 0;
  int64_t *rowptr = malloc((size_t)(nrows + 1) * sizeof(int64_t));
  int64_t *gcol = malloc((size_t)(7 * nrows + 1) * sizeof(int64_t));
  if (!rowptr || !gcol) { free(rowptr); free(gcol); return 1; }
  rowptr[0] = 0;
  for (int k = f->k0; k < f->k1; k++)
    for (int j = 0; j < n; j++)
      for (int i = 0; i < n; i++) {
        int64_t r = i + (int64_t)n * j + nn * k;
        if (k > 0) gcol[p++] = r - nn;
        if (j > 0) gcol[p++] = r - n;
        if (i > 0) gcol[p++] = r - 1;
        gcol[p++] = r;
        if (i < n - 1) gcol[p++] = r + 1;
        if (j < n - 1) gcol[p++] = r + n;
        if (k < n - 1) gcol[p++] = r + nn;
        rowptr[r - f->row_begin + 1] = p;
      }
  *rowptr_out = rowptr;
  *gcol_out = gcol;
  return 0;
}

/* Values (in the pattern's order, rows start at rowptr) and right-hand side
 * of this rank's rows for the blob's current position. */
static void assemble(const flow *f, const int64_t *rowptr, double *val, double *b)
{
  static const int di[7] = {0, 0, -1, 0, 1, 0, 0}, dj[7] = {0, -1, 0, 0, 0, 1, 0}, dk[7] = {-1, 0, 0, 0, 0, 0, 1};
  int n = f->n, nplanes = f->k1 - f->k0;
#pragma omp parallel for schedule(static)
  for (int64_t r = 0; r < (int64_t)nplanes * n * n; r++) {
    int i = (int)(r % n), j = (int)(r / n % n), k = f->k0 + (int)(r / ((int64_t)n * n));
    int64_t p = rowptr[r], pdiag = -1;
    double rp = density(f, i, j, k), hp = blob(f, i, j, k), diag = 0, div = 0;
    for (int q = 0; q < 7; q++) { /* neighbours in column order */
      int ii = i + di[q], jj = j + dj[q], kk = k + dk[q];
      if (q == 3) { pdiag = p++; continue; }
      if (ii < 0 || ii >= n || jj < 0 || jj >= n || kk < 0 || kk >= n) continue; /* no-flux wall */
      double beta = 2.0 / (rp + density(f, ii, jj, kk)); /* harmonic mean of 1/rho */
      double hf = 0.5 * (hp + blob(f, ii, jj, kk));     /* u* on the face: V times H */
      div += hf * (f->vx * di[q] + f->vy * dj[q] + f->vz * dk[q]);
      val[p++] = -beta;
      diag += beta;
    }
    if (k == n - 1) diag += 2.0 / rp; /* p = 0 on the top face, half a cell away */
    val[pdiag] = diag;
    b[r] = -div;
  }
}

/* Sums over the steps for the closing lines. */
typedef struct {
  double assemble, setup0, update, values, solve, worst;
  double fresh; /* a fresh setup on the last step's matrix, after the steps (0: not measured) */
  long its;
  int its_min, its_max, failed, steps;
} totals;

static void totals_add(totals *t, int step, double assemble, double update, double values, double solve, int its,
                       double truerel, ng_status st)
{
  t->assemble += assemble;
  if (step == 0) t->setup0 = update; else t->update += update, t->values += values;
  t->solve += solve;
  t->its += its;
  if (step == 0 || its < t->its_min) t->its_min = its;
  if (its > t->its_max) t->its_max = its;
  if (truerel > t->worst) t->worst = truerel;
  if (st != NG_SUCCESS) t->failed++;
  t->steps++;
}

static void totals_print(const totals *t, double seconds, int reuse)
{
  double upd_mean = t->steps > 1 ? t->update / (t->steps - 1) : 0;
  printf("totals: %d steps in %.3f s: assemble %.3f s, setup (step 0) %.4f s, %s %.3f s (%.4f s/step, "
         "%.0f%% of the setup), solves %.3f s (%.4f s/step)\n",
         t->steps, seconds, t->assemble, t->setup0, reuse ? "updates" : "fresh setups (-reuse 0)", t->update, upd_mean,
         t->setup0 > 0 ? 100 * upd_mean / t->setup0 : 0.0, t->solve, t->solve / t->steps);
  if (t->fresh > 0 && t->steps > 1)
    printf("update path %.4f s/step (new values %.4f + preconditioner update %.4f) = %.0f%% of a fresh setup "
           "(%.4f s: set_operator on the last step's matrix, timed after the steps)\n",
           upd_mean, t->values / (t->steps - 1), upd_mean - t->values / (t->steps - 1), 100 * upd_mean / t->fresh,
           t->fresh);
  printf("iterations: total %ld, mean %.1f, min %d, max %d; worst true residual %.3e\n", t->its,
         (double)t->its / t->steps, t->its_min, t->its_max, t->worst);
  printf("%s\n", t->failed ? "FAILED: some steps did not converge" : "all steps converged");
}

static int usage(const char *prog, ng_options opts)
{
  printf("usage: %s [options]\n", prog);
  ng_options_print_help(opts, stdout);
  ng_options_destroy(opts);
  return 0;
}

/* NG_EX_CALL that releases what exists before exiting (no leaks on errors:
 * test/mpi_fault_np2.sh walks allocation failures through this program in
 * the sanitizer tree). */
#define TRY(call)                                                                \
  do {                                                                           \
    ng_status try_s_ = (call);                                                   \
    if (try_s_ != NG_SUCCESS) {                                                  \
      rc = ng_example_fail(#call, try_s_);                                       \
      goto done;                                                                 \
    }                                                                            \
  } while (0)

int main(int argc, char **argv)
{
  ng_context ctx = NULL;
  ng_options opts = NULL;
  ng_matrix A = NULL;
  ng_vector b = NULL, x = NULL;
  ng_solver S = NULL;
  flow f;
  const char *device, *precond;
  int steps, reuse, every, rc = 0;
  int64_t *rowptr = NULL, *gcol = NULL;
  double *val = NULL, *rhs = NULL;
  totals tot;
  memset(&f, 0, sizeof(f));
  memset(&tot, 0, sizeof(tot));
  TRY(ng_options_create(&opts));
  TRY(ng_example_register_options(opts));
  TRY(ng_options_register(opts, "n", "64", "cells per direction (n^3 unknowns)"));
  TRY(ng_options_register(opts, "steps", "10", "time steps"));
  TRY(ng_options_register(opts, "rho_ratio", "100", "density of the blob over the light fluid's"));
  TRY(ng_options_register(opts, "reuse", "1", "1: update the preconditioner each step; 0: fresh setup each step"));
  TRY(ng_options_register(opts, "table_every", "0", "print every k-th step (0: every step up to 50 steps, else ~25 rows)"));
  TRY(ng_options_set_from_string(opts, "-solver pcg -precond amg -tol 1e-8"));
  TRY(ng_options_set_from_args(opts, &argc, argv, 1));
  if (ng_options_help_requested(opts)) {
    usage(argv[0], opts);
    opts = NULL; /* usage destroyed them */
    goto done;
  }
  if (argc > 1) {
    fprintf(stderr, "error: unexpected argument '%s' (-help lists the options)\n", argv[1]);
    rc = 1;
    goto done;
  }
  TRY(ng_options_get_int(opts, "n", &f.n));
  TRY(ng_options_get_int(opts, "steps", &steps));
  TRY(ng_options_get_real(opts, "rho_ratio", &f.rho_ratio));
  TRY(ng_options_get_bool(opts, "reuse", &reuse));
  TRY(ng_options_get_int(opts, "table_every", &every));
  TRY(ng_options_get_string(opts, "device", &device));
  TRY(ng_options_get_string(opts, "precond", &precond));
  if (f.n < 2 || f.n > 2000 || steps < 1 || f.rho_ratio <= 0) {
    fprintf(stderr, "error: need -n in 2..2000, -steps >= 1, -rho_ratio > 0\n");
    rc = 1;
    goto done;
  }
  if (every <= 0) every = steps <= 50 ? 1 : (steps + 24) / 25;
  f.radius = 0.15;

  /* context (spans MPI_COMM_WORLD under mpirun) and this rank's slab */
  TRY(ng_context_create(device, &ctx));
  TRY(ng_example_apply_binding(ctx, opts));
  TRY(ng_context_rank(ctx, &f.rank, &f.size));
  f.k0 = (int)((int64_t)f.n * f.rank / f.size);
  f.k1 = (int)((int64_t)f.n * (f.rank + 1) / f.size);
  f.row_begin = (int64_t)f.k0 * f.n * f.n;
  f.row_end = (int64_t)f.k1 * f.n * f.n;
  int64_t nrows = f.row_end - f.row_begin;
  if (build_pattern(&f, &rowptr, &gcol)) {
    fprintf(stderr, "error: out of host memory\n");
    rc = 1;
    goto done;
  }
  val = malloc((size_t)(rowptr[nrows] + 1) * sizeof(double));
  rhs = malloc((size_t)(nrows + 1) * sizeof(double));
  if (!val || !rhs) {
    fprintf(stderr, "error: out of host memory\n");
    rc = 1;
    goto done;
  }

  /* step 0's matrix: created once; later steps only change its values */
  double t_asm0 = wtime();
  flow_move(&f, 0, steps);
  assemble(&f, rowptr, val, rhs);
  t_asm0 = wtime() - t_asm0;
  TRY(ng_matrix_create_distributed(ctx, (int64_t)f.n * f.n * f.n, f.row_begin, f.row_end, rowptr, gcol, val, &A));
  TRY(ng_vector_create(A, &b));
  TRY(ng_vector_create(A, &x));
  TRY(ng_vector_fill(x, 0.0));
  if (f.rank == 0) {
    printf("cfd_pressure: %d^3 cells (%lld unknowns), %d steps, density ratio %g, top face p = 0\n", f.n,
           (long long)f.n * f.n * f.n, steps, f.rho_ratio);
    printf("device: %s, %d rank%s, -precond %s, %s\n", ng_context_describe(ctx), f.size, f.size == 1 ? "" : "s",
           precond, reuse ? "preconditioner updated each step" : "fresh setup each step (-reuse 0)");
    printf("(times on rank 0's clock; step 0's update column is the fresh setup)\n");
    printf("%5s %10s %10s %10s %6s %11s %11s %9s %9s\n", "step", "assemble s", "update s", "solve s", "its",
           "rel res", "true res", "elapsed", "eta s");
    fflush(stdout);
  }

  double t_start = wtime();
  for (int s = 0; s < steps; s++) {
    double t0 = wtime(), rel = 0, truerel = 0, t_values = 0;
    int its = 0;
    if (s > 0) {
      flow_move(&f, s, steps);
      assemble(&f, rowptr, val, rhs);
    }
    double t1 = wtime();
    if (s == 0) t0 -= t_asm0; /* step 0 was assembled before the matrix existed */
    if (!S || !reuse) {
      /* first step (or -reuse 0): a fresh setup of the whole hierarchy */
      ng_solver_destroy(S);
      S = NULL;
      TRY(ng_solver_create(ctx, opts, &S));
      if (s > 0) TRY(ng_matrix_update_values(A, val));
      TRY(ng_solver_set_operator(S, A));
    } else {
      /* the time-step path: new values, same pattern; setting the same
       * matrix again runs ng_precond_update (AMG keeps its aggregates) */
      TRY(ng_matrix_update_values(A, val));
      t_values = wtime() - t1;
      TRY(ng_solver_set_operator(S, A));
    }
    double t2 = wtime();
    TRY(ng_vector_set_values(b, rhs));
    ng_status st = ng_solver_solve(S, b, x); /* x: the previous step's pressure */
    double t3 = wtime();
    if (st != NG_SUCCESS && st != NG_ERR_NOT_CONVERGED && st != NG_ERR_BREAKDOWN && st != NG_ERR_DIVERGED) {
      rc = ng_example_fail("ng_solver_solve", st);
      goto done;
    }
    TRY(ng_solver_get_iterations(S, &its));
    TRY(ng_solver_get_residual(S, &rel));
    TRY(ng_example_true_residual(A, b, x, &truerel));
    totals_add(&tot, s, t1 - t0, t2 - t1, t_values, t3 - t2, its, truerel, st);
    if (f.rank == 0 && (st != NG_SUCCESS || s % every == 0 || s == steps - 1)) {
      double elapsed = wtime() - t_start, eta = elapsed / (s + 1) * (steps - s - 1);
      printf("%5d %10.4f %10.4f %10.4f %6d %11.3e %11.3e %9.2f %9.1f%s%s\n", s, t1 - t0, t2 - t1, t3 - t2, its,
             rel, truerel, elapsed, eta, st ? "  " : "", st ? ng_status_name(st) : "");
      fflush(stdout);
    }
  }
  double t_end = wtime();
  if (reuse && steps > 1) {
    /* what the update path is measured against: a fresh setup of the same
     * options on the same (last) matrix, warm, without the old hierarchy */
    ng_solver_destroy(S);
    S = NULL;
    double t = wtime();
    TRY(ng_solver_create(ctx, opts, &S));
    TRY(ng_solver_set_operator(S, A));
    tot.fresh = wtime() - t;
  }
  if (f.rank == 0) totals_print(&tot, t_end - t_start, reuse);
  rc = tot.failed ? 2 : 0;
done:
  free(val);
  free(rhs);
  free(rowptr);
  free(gcol);
  ng_solver_destroy(S);
  ng_vector_destroy(x);
  ng_vector_destroy(b);
  ng_matrix_destroy(A);
  ng_options_destroy(opts);
  ng_context_destroy(ctx);
  return rc;
}
