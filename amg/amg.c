/* amg/amg.c: the "amg" preconditioner: options, the ops table (setup,
 * update, apply, destroy, describe). Setup and update run on the host
 * (amg_setup.c), on a GPU context with the big levels on the device
 * (-amg_setup gpu|host, -amg_gpu_min_rows; amg_setup_cuda.cu); apply is one
 * V-cycle (amg_cycle.c) on the context's memory.
 * Options: -amg_theta, -amg_omega, -amg_presweeps/-amg_postsweeps or the
 * graded -amg_sweeps "4,3,2,1" (finest first, the last count repeats),
 * -amg_coarse_solver direct|smoother with -amg_coarse_sweeps,
 * -amg_coarse_size, -amg_max_levels, -amg_format, -amg_fine_format, -amg_sparsify
 * with -amg_sparsify_lump diagonal|path (amg_sparsify.c, amg_sparsify_path.c),
 * -amg_smoother and its options (read by smoother/smoother_options.c into
 * M->sopts), -amg_cycle v|w|k (amg_wcycle.c, amg_kcycle.c), -amg_precision single|double
 * (amg_single.c), -amg_cuda_graph (amg_graph_cuda.cu), -amg_coarsening
 * aggregation|classical with -amg_classical_theta, -amg_classical_interp,
 * -amg_classical_split, -amg_classical_pmax (amg_classical.c). */
#include "amg_dist.h"
#include "../smoother/smoother.h"
#include <math.h>
#include <stdlib.h>
#ifdef _OPENMP
#include <omp.h>
#endif
#include <stdio.h>

extern const ng_precond_ops ng_precond_amg;
void *ng_amg_of(ng_precond P) { return P && P->ops == &ng_precond_amg ? P->data : NULL; }

/* "4,3,2,1" into counts (at most max); the number of counts or -1. */
static int parse_sweeps(const char *s, int *counts, int max)
{
  int k = 0;
  while (*s) {
    char *end;
    long v = strtol(s, &end, 10);
    if (end == s || v < 0 || v > 1000 || k == max) return -1;
    counts[k++] = (int)v;
    s = end;
    if (*s == ',') s++;
    else if (*s) return -1;
  }
  return k;
}

static ng_status read_options(ng_amg *M, ng_options opts)
{
  const char *s;
  int pre, post, coarse_sweeps, counts[64], nc, coarse_size;
  NG_CHECK(ng_options_get_real(opts, "amg_theta", &M->theta));
  NG_CHECK(ng_options_get_real(opts, "amg_sparsify", &M->sparsify));
  NG_CHECK(ng_options_get_real(opts, "amg_theta_coarse", &M->theta_coarse));
  NG_CHECK(ng_options_get_string(opts, "amg_strength", &s));
  M->strength_signed = !strcmp(s, "signed");
  NG_CHECK(ng_options_get_bool(opts, "amg_filter", &M->filter));
  NG_CHECK(ng_options_get_string(opts, "amg_sparsify_lump", &s));
  if (strcmp(s, "diagonal") && strcmp(s, "path"))
    return NG_ERROR(NG_ERR_ARGUMENT, "-amg_sparsify_lump '%s' is not available (known: diagonal, path)", s);
  M->sparsify_path = !strcmp(s, "path");
  NG_CHECK(ng_options_get_string(opts, "amg_coarse_nullspace", &s));
  if (strcmp(s, "constant") && strcmp(s, "carried"))
    return NG_ERROR(NG_ERR_ARGUMENT, "-amg_coarse_nullspace '%s' is not available (known: constant, carried)", s);
  M->carry_nullspace = !strcmp(s, "carried");
  NG_CHECK(ng_options_get_string(opts, "amg_cycle", &s));
  if (strcmp(s, "v") && strcmp(s, "w") && strcmp(s, "k"))
    return NG_ERROR(NG_ERR_ARGUMENT, "-amg_cycle '%s' is not available (known: v, w, k)", s);
  M->cycle_gamma = !strcmp(s, "w") ? 2 : 1;
  M->kcycle = !strcmp(s, "k");
  NG_CHECK(ng_options_get_string(opts, "amg_coarsening", &s));
  if (strcmp(s, "auto") && strcmp(s, "aggregation") && strcmp(s, "classical"))
    return NG_ERROR(NG_ERR_ARGUMENT, "-amg_coarsening '%s' is not available (known: auto, aggregation, classical)",
                    s);
  M->classical = !strcmp(s, "classical");
  M->coarsening_auto = !strcmp(s, "auto");
  NG_CHECK(ng_options_get_real(opts, "amg_auto_rate", &M->auto_rate));
  if (!(M->auto_rate == -1 || (M->auto_rate > 0 && M->auto_rate <= 1)))
    return NG_ERROR(NG_ERR_ARGUMENT, "-amg_auto_rate %g must be in (0, 1], or -1 (by the context)", M->auto_rate);
  NG_CHECK(ng_options_get_int(opts, "amg_auto_its", &M->auto_its));
  if (M->auto_its != -1 && (M->auto_its < 2 || M->auto_its > 1000))
    return NG_ERROR(NG_ERR_ARGUMENT, "-amg_auto_its %d must be in [2, 1000], or -1 (by the context)", M->auto_its);
  NG_CHECK(ng_options_get_real(opts, "amg_classical_theta", &M->classical_theta));
  if (!(M->classical_theta <= 1))
    return NG_ERROR(NG_ERR_ARGUMENT, "-amg_classical_theta %g must be in [0, 1]", M->classical_theta);
  NG_CHECK(ng_options_get_int(opts, "amg_classical_pmax", &M->classical_pmax));
  NG_CHECK(ng_options_get_string(opts, "amg_classical_interp", &s));
  if (strcmp(s, "ext+i") && strcmp(s, "direct"))
    return NG_ERROR(NG_ERR_ARGUMENT, "-amg_classical_interp '%s' is not available (known: ext+i, direct)", s);
  M->classical_direct = !strcmp(s, "direct");
  NG_CHECK(ng_options_get_string(opts, "amg_classical_split", &s));
  if (strcmp(s, "pmis") && strcmp(s, "hmis"))
    return NG_ERROR(NG_ERR_ARGUMENT, "-amg_classical_split '%s' is not available (known: pmis, hmis)", s);
  M->classical_hmis = !strcmp(s, "hmis");
  if (!(M->sparsify >= 0 && M->sparsify < 1))
    return NG_ERROR(NG_ERR_ARGUMENT, "-amg_sparsify %g must be in [0, 1)", M->sparsify);
  NG_CHECK(ng_options_get_int(opts, "amg_presweeps", &pre));
  NG_CHECK(ng_options_get_int(opts, "amg_postsweeps", &post));
  NG_CHECK(ng_options_get_int(opts, "amg_coarse_sweeps", &coarse_sweeps));
  NG_CHECK(ng_options_get_int(opts, "amg_coarse_size", &coarse_size));
  NG_CHECK(ng_options_get_int(opts, "amg_max_levels", &M->max_levels));
  int agg_rows;
  NG_CHECK(ng_options_get_int(opts, "amg_agglomerate_rows", &agg_rows));
  M->agglomerate_rows = agg_rows; /* 0: the device decides in setup_options */
  /* -amg_smoother and its options (smoother/smoother_options.c) */
  NG_CHECK(ng_smoother_read_options(opts, &M->sopts));
  M->omega_opt = M->sopts.omega; /* -amg_omega, read once by the smoother side: also each level's weight */
  NG_CHECK(ng_options_get_string(opts, "amg_coarse_solver", &s));
  M->coarse_direct = !strcmp(s, "direct");
  NG_CHECK(ng_options_get_string(opts, "amg_format", &s));
  if (strlen(s) >= sizeof(M->format)) return NG_ERROR(NG_ERR_ARGUMENT, "-amg_format '%s' is too long", s);
  strcpy(M->format, s);
  NG_CHECK(ng_options_get_string(opts, "amg_precision", &s));
  M->single = !strcmp(s, "single");
  M->values = M->single ? &ng_amg_values_float : &ng_amg_values_double; /* the cycle's value type, once */
  if (M->single && M->sopts.ops != &ng_smoother_jacobi)
    return NG_ERROR(NG_ERR_UNSUPPORTED, "-amg_precision single works with -amg_smoother jacobi only (given '%s')",
                    M->sopts.ops->name);
  if (M->single && strcmp(M->format, "csr"))
    return NG_ERROR(NG_ERR_UNSUPPORTED, "-amg_precision single stores the levels in csr only (given -amg_format '%s')",
                    M->format);
  NG_CHECK(ng_options_get_string(opts, "amg_fine_format", &s));
  if (strlen(s) >= sizeof(M->fine_format)) return NG_ERROR(NG_ERR_ARGUMENT, "-amg_fine_format '%s' is too long", s);
  strcpy(M->fine_format, s);
  if (M->single && strcmp(s, "auto") && strcmp(s, "matrix") && strncmp(s, "csr", 3) && strncmp(s, "dia", 3))
    return NG_ERROR(NG_ERR_UNSUPPORTED,
                    "-amg_precision single: the finest level in csr, dia or dia_half only (given -amg_fine_format '%s')", s);
  if (M->max_levels < 1 || M->max_levels > 64)
    return NG_ERROR(NG_ERR_ARGUMENT, "-amg_max_levels %d must be in 1..64", M->max_levels);
  if (coarse_size < 1) return NG_ERROR(NG_ERR_ARGUMENT, "-amg_coarse_size %d must be >= 1", coarse_size);
  M->coarse_size = coarse_size;
  NG_CHECK(ng_options_get_string(opts, "amg_sweeps", &s));
  nc = parse_sweeps(s, counts, 64);
  if (nc < 0) return NG_ERROR(NG_ERR_ARGUMENT, "-amg_sweeps '%s' is not a comma-separated list of counts 0..1000", s);
  NG_CHECK(NG_CALLOC(M->L, M->max_levels));
  for (int l = 0; l < M->max_levels; l++) {
    ng_smoother_level *S = &M->L[l].s;
    S->level = l;
    S->host_A = &M->L[l].A; /* made current by ng_amg_level_host (amg_setup.c) */
    S->host_current = ng_amg_level_host_cb;
    S->owner = M;
    M->L[l].pre = nc ? counts[l < nc ? l : nc - 1] : pre;
    M->L[l].post = nc ? M->L[l].pre : post;
    M->L[l].wscale = 1.0; /* amg_wcycle.c sets the W-cycle's after the setup */
  }
  M->coarse_sweeps = coarse_sweeps;
  return NG_SUCCESS;
}

/* The OpenMP threads of the host-side setup and update. On a GPU context
 * every core busy made OpenMP barriers wait for the CUDA driver's threads
 * (measured on the H100 machine, 16 cores: a 1,500-row host level's update
 * took 4 ms with 8 threads and 3 to 18 ms with 16), so the default there is
 * half the cores unless OMP_NUM_THREADS says otherwise. The caller's setting
 * is restored afterwards (threads_end). */
static int threads_begin(const ng_amg *M)
{
#ifdef _OPENMP
  int saved = omp_get_max_threads();
  if (M->host_threads > 0) omp_set_num_threads(M->host_threads);
  return saved;
#else
  (void)M;
  return 0;
#endif
}
static void threads_end(int saved)
{
#ifdef _OPENMP
  omp_set_num_threads(saved);
#else
  (void)saved;
#endif
}

static ng_status read_threads(ng_amg *M, ng_context ctx, ng_options opts)
{
  int n;
  NG_CHECK(ng_options_get_int(opts, "amg_host_threads", &n)); /* >= 0: checked by the options */
  M->host_threads = n;
#ifdef _OPENMP
  if (n == 0 && ctx->on_gpu && !getenv("OMP_NUM_THREADS")) {
    /* half the cores, shared by the node's ranks: 4 ranks of 32 threads
     * each on 64 cores spun against each other (level 1's tentative P 70
     * ms, the finish 0.7 s on 4 H100s, lap27:256) */
    int procs = omp_get_num_procs() / ng_comm_local_size(ctx);
    M->host_threads = procs > 1 ? procs / 2 : 1;
  }
#else
  (void)ctx;
#endif
  return NG_SUCCESS;
}

static void amg_destroy(ng_precond P)
{
  ng_amg *M = P->data;
  if (!M) return;
  ng_options_destroy(M->saved_opts);
  ng_amg_free(P->ctx, M);
  ng_free(M);
  P->data = NULL;
}

/* The options of the setup (local, no communication). */
static ng_status setup_options(ng_precond P, ng_amg *M, ng_options opts)
{
  NG_CHECK(read_options(M, opts));
  const char *where;
  NG_CHECK(ng_options_get_string(opts, "amg_setup", &where));
  /* the finest level's setup on the GPU when the context is there */
  M->gpu_setup = P->ctx->on_gpu && !strcmp(where, "gpu");
  /* classical coarsening is a host setup (one rank and across ranks): on a
   * GPU context its levels are made on the host and the cycle runs on the
   * device, as with -amg_setup host */
  if (M->classical) M->gpu_setup = 0;
  /* -amg_auto_its / -amg_auto_rate -1: on a GPU the classical setup is a
   * host setup, 1-2 us a row on one H200's host (2.0-3.9 s at 2M rows
   * against aggregation's 0.03-0.2 s on the device: doc/performance.md),
   * longer than hundreds of aggregation's iterations; and over the first
   * 8 iterations an indefinite M can grow (r, M^-1 r) where CG still
   * converges in 65 (bubbles5:1024). So there auto judges after 100
   * iterations, over iterations 50-100, and switches only where
   * aggregation stagnates: 0.98 a step, ~900 more iterations to 1e-8
   * (jump2q1:300 measured 1.01; stretch7:128, which converges in 165,
   * 0.950, and with 0.95 it was switched to a 4.3 s host setup). */
  if (M->auto_its == -1) M->auto_its = P->ctx->on_gpu ? 100 : 8;
  if (M->auto_rate == -1) M->auto_rate = P->ctx->on_gpu ? 0.98 : 0.35;
  /* -amg_agglomerate_rows 0: on GPUs a level of a few thousand rows a rank
   * costs each exchange's latency (~20 us) at every smoothing step; 30000
   * measured best on 2 and 4 H100s (doc/performance.md, multi-GPU) */
  if (M->agglomerate_rows == 0) M->agglomerate_rows = P->ctx->on_gpu ? 30000 : 1000;
  int min_rows;
  NG_CHECK(ng_options_get_int(opts, "amg_gpu_min_rows", &min_rows));
  if (min_rows < 0) return NG_ERROR(NG_ERR_ARGUMENT, "-amg_gpu_min_rows %d must be >= 0", min_rows);
  M->gpu_min_rows = min_rows;
  const char *da;
  NG_CHECK(ng_options_get_string(opts, "amg_dist_aggregation", &da));
  M->dist_aggregation = !strcmp(da, "coupled") ? NG_AMG_DIST_COUPLED : !strcmp(da, "uncoupled") ? NG_AMG_DIST_UNCOUPLED
                                                                                                 : NG_AMG_DIST_AUTO;
  int tel;
  NG_CHECK(ng_options_get_int(opts, "amg_telescope_rows", &tel));
  if (tel < -1)
    return NG_ERROR(NG_ERR_ARGUMENT, "-amg_telescope_rows %d must be -1 (the default), 0 (never) or a row count", tel);
  /* -1: the GPU setup gathers the coarse levels onto rank 0's device below
   * 2M rows (a one-rank GPU setup of them costs a few ms, their
   * distributed setup a host algorithm's 100 ms: doc/performance.md) */
  M->telescope_rows = tel == -1 ? (M->gpu_setup ? NG_AMG_TELESCOPE_GPU_ROWS : 0) : tel;
  NG_CHECK(read_threads(M, P->ctx, opts));
  if (M->carry_nullspace && (M->gpu_setup || P->ctx->size > 1))
    return NG_ERROR(NG_ERR_UNSUPPORTED,
                    "-amg_coarse_nullspace carried is implemented in the one-rank host setup only (this run: %s%s); "
                    "use -amg_setup host on one rank, or -amg_coarse_nullspace constant",
                    M->gpu_setup ? "-amg_setup gpu" : "", P->ctx->size > 1 ? " several ranks" : "");
  if (M->sparsify_path && M->sparsify > 0 && (M->gpu_setup || P->ctx->size > 1))
    return NG_ERROR(NG_ERR_UNSUPPORTED,
                    "-amg_sparsify_lump path is implemented in the one-rank host setup only (this run: %s%s); "
                    "use -amg_setup host on one rank, or -amg_sparsify_lump diagonal",
                    M->gpu_setup ? "-amg_setup gpu" : "", P->ctx->size > 1 ? " several ranks" : "");
  if (M->single && M->kcycle)
    return NG_ERROR(NG_ERR_UNSUPPORTED, "-amg_cycle k runs in double precision only (given -amg_precision single)");
  /* auto too: refused here, not when it switches in the middle of a solve */
  if ((M->classical || M->coarsening_auto) && P->ctx->size > 1 && (M->classical_direct || M->classical_hmis))
    return NG_ERROR(NG_ERR_UNSUPPORTED, "-amg_coarsening %s across ranks has PMIS and extended+i "
                                        "interpolation only (given %s); use one rank for it",
                    M->classical ? "classical" : "auto (which may switch to classical)",
                    M->classical_direct ? "-amg_classical_interp direct" : "-amg_classical_split hmis");
  if (M->single && P->ctx->size > 1)
    return NG_ERROR(NG_ERR_UNSUPPORTED, "-amg_precision single is for one rank (this run has %d)", P->ctx->size);
  int graph = 0;
  NG_CHECK(ng_options_get_bool(opts, "amg_cuda_graph", &graph));
  /* the K-cycle reads its products on the host between launches: no graph */
  M->use_graph = graph && P->ctx->on_gpu && P->ctx->size == 1 && !M->kcycle;
  return NG_SUCCESS;
}

static ng_status amg_setup(ng_precond P, ng_matrix A, ng_options opts)
{
  ng_amg *M = NULL;
  /* what the hierarchy holds: the bytes live after the setup (levels' A, P,
   * R, smoother data, vectors, K-cycle work) less those before; the setup's
   * peak above the same mark (core/memtrack.c, -amg_view) */
  int64_t before[NG_MEM_SPACES];
  for (int s = 0; s < NG_MEM_SPACES; s++) before[s] = ng_mem_reset_peak(s);
  ng_status st = NG_CALLOC(M, 1);
  P->data = M;
  if (!st) st = setup_options(P, M, opts);
  /* the build is collective under MPI: every rank got this far, or none
   * goes on (a local failure above still comes here, once) */
  NG_CHECK_GOTO(st, ng_comm_agree(P->ctx, st), fail);
  int saved = threads_begin(M);
  M->opts = opts; /* read by the gathered levels' setup (amg_dist_telescope.c) */
  st = ng_amg_build(P, M, A);
  M->opts = NULL;
  threads_end(saved);
  NG_CHECK_GOTO(st, st, fail);
  /* the coarsest level smooths -amg_coarse_sweeps times when not direct */
  M->L[M->nlevels - 1].pre = M->coarse_sweeps;
  /* -amg_cycle w: the coarse-correction weights, from the finished cycle */
  saved = threads_begin(M);
  st = ng_amg_w_weights(P, M);
  threads_end(saved);
  NG_CHECK_GOTO(st, st, fail);
  /* -amg_cycle k: the K-steps' vectors; CG then takes the flexible beta */
  NG_CHECK_GOTO(st, ng_amg_k_setup(P, M), fail);
  P->variable = M->kcycle;
  /* -amg_coarsening auto: CG reports its condition estimate (amg_adapt);
   * not with the K-cycle (a nonlinear M: no Lanczos estimate) nor FP32
   * (classical has no FP32 cycle). Auto or classical keep the options
   * for a rebuild (amg_adapt, amg_update). */
  P->adapt_after = M->coarsening_auto && !M->kcycle && !M->single ? M->auto_its : 0;
  if (M->coarsening_auto || M->classical) NG_CHECK_GOTO(st, ng_options_copy(opts, &M->saved_opts), fail);
  for (int s = 0; s < NG_MEM_SPACES; s++) {
    P->mem_held[s] = ng_mem_current(s) - before[s];
    P->mem_peak[s] = ng_mem_peak(s) - before[s];
  }
  int view = 0;
  NG_CHECK_GOTO(st, ng_options_get_bool(opts, "amg_view", &view), fail);
  if (view && P->ctx->rank == 0) {
    char buf[4096];
    NG_CHECK_GOTO(st, ng_amg_describe(P, buf, sizeof(buf)), fail);
    fputs(buf, stdout);
    fflush(stdout);
  }
  return NG_SUCCESS;
fail:
  amg_destroy(P);
  return st;
}

/* The hierarchy built again from scratch with opts (a copy is taken
 * before the old one goes), on P->A; auto's verdict carried over. */
static ng_status rebuild(ng_precond P, ng_options opts, int switched, ng_precond_report seen)
{
  ng_options user = NULL, o = NULL; /* copies: opts is the old hierarchy's, freed below */
  int view = 0;
  ng_status st = ng_options_copy(opts, &user);
  if (!st) st = ng_options_copy(opts, &o);
  if (!st) st = ng_options_get_bool(o, "amg_view", &view);
  if (!st && switched) st = ng_options_set(o, "amg_coarsening", "classical");
  if (!st) st = ng_options_set(o, "amg_view", "0"); /* shown below, with auto's verdict */
  if (!st) {
    amg_destroy(P);
    st = amg_setup(P, P->A, o);
  }
  ng_options_destroy(o);
  if (st) {
    ng_options_destroy(user);
    return ng_error_trace(st, __FILE__, __LINE__);
  }
  ng_amg *M = P->data;
  M->auto_switched = switched;
  M->seen = seen;
  ng_options_destroy(M->saved_opts); /* keep the user's (auto, -amg_view) for the next rebuild */
  M->saved_opts = user;
  if (view && P->ctx->rank == 0) {
    char buf[4096];
    NG_CHECK(ng_amg_describe(P, buf, sizeof(buf)));
    fputs(buf, stdout);
    fflush(stdout);
  }
  return NG_SUCCESS;
}

/* -amg_coarsening auto: how CG fared over its first auto_its iterations
 * with aggregation (solver/krylov_adapt.c). Measured (CPU, iterations 4 to 8,
 * b = 1 and a random b, doc/performance.md): ||r||_M^-1 fell by 0.12-0.23
 * per iteration where aggregation converges about as BoomerAMG does
 * (lap27, fem27 to 128^3, lap7, het7 to 96^3, p1tet, mps) and by 0.39-2.0
 * where it needs 2-100x BoomerAMG's iterations (layers, two-phase density,
 * stretched grids, 2D jumps, Q1 jumps with rotated anisotropy,
 * inclusions); above
 * auto_rate the hierarchy is built again with classical coarsening, which
 * holds at BoomerAMG's counts there. Neither the 2-norm of r (not
 * monotone in CG: on b = 1 het7 looked as slow as layers7) nor the
 * condition estimate alone (fem27:128: 6.7 from one outlying eigenvalue,
 * yet 11 iterations) tells them apart. Decided once: later solves and
 * updates keep it. On a GPU the window and the threshold differ
 * (setup_options says why). */
static ng_status amg_adapt(ng_precond P, const ng_precond_report *rep, int *rebuilt)
{
  ng_amg *M = P->data;
  *rebuilt = 0;
  if (rep->dry_run) { /* what it would do, nothing changed */
    *rebuilt = M && rep->rate > M->auto_rate;
    return NG_SUCCESS;
  }
  P->adapt_after = 0;
  if (!M)
    return NG_ERROR(NG_ERR_ARGUMENT, "AMG: the preconditioner has no hierarchy (its rebuild failed: create it again)");
  M->seen = *rep;
  if (!(rep->rate > M->auto_rate)) return NG_SUCCESS;
  NG_CHECK(rebuild(P, M->saved_opts, 1, *rep));
  *rebuilt = 1;
  return NG_SUCCESS;
}

static ng_status amg_update(ng_precond P, ng_matrix A)
{
  ng_amg *M = P->data;
  if (!M) return NG_ERROR(NG_ERR_ARGUMENT, "AMG: the preconditioner has no hierarchy (its rebuild failed: create it again)");
  /* classical coarsening has no update of the values alone: set up again */
  if (M->classical) {
    double t0 = ng_wtime();
    NG_CHECK(rebuild(P, M->saved_opts, M->auto_switched, M->seen));
    ((ng_amg *)P->data)->update_seconds = ng_wtime() - t0;
    return NG_SUCCESS;
  }
  int saved = threads_begin(P->data);
  ng_status st = ng_amg_refresh(P, P->data, A);
  if (st == NG_SUCCESS) st = ng_amg_w_weights(P, P->data);
  threads_end(saved);
  NG_CHECK(st);
  return NG_SUCCESS;
}

static ng_status amg_apply(ng_precond P, const double *r, double *z)
{
  if (!P->data) return NG_ERROR(NG_ERR_ARGUMENT, "AMG: the preconditioner has no hierarchy (its rebuild failed: create it again)");
  NG_CHECK(ng_amg_vcycle(P, P->data, r, z));
  return NG_SUCCESS;
}

static ng_status describe_hierarchy(ng_precond P, char *buf, size_t len)
{
  ng_amg *M = P->data;
  if (M->dist) return ng_amg_dist_describe(P, buf, len);
  double rows = 0, nnz = 0, n0 = M->L[0].s.n, z0 = (double)P->A->local.nnz;
  size_t k;
  for (int l = 0; l < M->nlevels; l++) {
    rows += M->L[l].s.n;
    nnz += l ? (double)M->L[l].A.nnz : z0;
  }
  k = (size_t)snprintf(buf, len,
                       "amg: %d levels, grid complexity %.3f, operator complexity %.3f, %s, theta %g, coarsest %s, smoother %s%s\n"
                       "  setup %.3f s: aggregation %.3f, rho %.3f, P and R %.3f, Galerkin %.3f, coarse inverse and copies %.3f\n",
                       M->nlevels, rows / n0, nnz / z0,
                       M->classical ? (M->classical_hmis ? "classical hmis" : "classical pmis") : "aggregation",
                       M->classical ? M->classical_theta : M->theta, M->coarse_direct ? "direct" : "smoother",
                       M->sopts.ops->name, M->cycle_gamma > 1 ? ", W-cycle" : M->kcycle ? ", K-cycle" : "",
                       M->setup_seconds, M->t_aggregate, M->t_rho, M->t_prolong, M->t_galerkin, M->t_finish);
  if (M->classical && k < len)
    k += (size_t)snprintf(buf + k, len - k,
                          "  classical coarsening: %s, %s interpolation, at most %d weights a row (strength and "
                          "splitting %.3f s, interpolation %.3f s)\n",
                          M->classical_hmis ? "HMIS" : "PMIS", M->classical_direct ? "direct" : "extended+i",
                          M->classical_pmax, M->t_aggregate, M->t_prolong);
  int ngpu = 0;
  for (int l = 0; l < M->nlevels; l++) ngpu += M->L[l].gpu;
  if (ngpu && k < len)
    k += (size_t)snprintf(buf + k, len - k, "  levels 0..%d aggregated, P, R and Galerkin on the GPU (%.3f s)\n",
                          ngpu - 1, M->t_gpu);
  for (int l = 0; l < M->nlevels && k < len; l++) {
    ng_amg_level *L = &M->L[l];
    double z = l ? (double)L->A.nnz : z0;
    int coarsest = l == M->nlevels - 1;
    char sweeps[48];
    if (coarsest && M->coarse_direct) snprintf(sweeps, sizeof(sweeps), "dense inverse");
    else if (coarsest) snprintf(sweeps, sizeof(sweeps), "%d sweeps, omega %.3f", L->pre, L->s.omega);
    else snprintf(sweeps, sizeof(sweeps), "sweeps %d/%d, omega %.3f", L->pre, L->post, L->s.omega);
    char colors[112] = "";
    if (M->sopts.ops->colors && !(coarsest && M->coarse_direct)) {
      const char *how = ng_smoother_sweep_kind(M->sopts.ops, &L->s);
      snprintf(colors, sizeof(colors), ", %s %d colors%s%s", M->sopts.ops->name, M->sopts.ops->colors(L->s.sdata),
               how ? ", " : "", how ? how : "");
    }
    char fmt[48] = "";
    if (l == 0 && M->fine_used[0]) snprintf(fmt, sizeof(fmt), ", cycle's A in %s", M->fine_used);
    char wtxt[64] = "";
    if (!coarsest && ng_amg_coarse_visits(M, l) > 1)
      snprintf(wtxt, sizeof(wtxt), ", W weight %.3f (lambda %.3f)", L->wscale, L->wlambda);
    k += (size_t)snprintf(buf + k, len - k, "  level %d: %d rows, %.0f nnz (%.1f per row), %s%s%s%s\n", l, (int)L->s.n, z,
                          L->s.n ? z / L->s.n : 0.0, sweeps, colors, fmt, wtxt);
  }
  if (k < len) k += ng_amg_describe_memory(P, buf + k, len - k);
  if (M->update_seconds > 0 && k < len)
    snprintf(buf + k, len - k, "  last update %.3f s (%.0f%% of setup)\n", M->update_seconds,
             100.0 * M->update_seconds / M->setup_seconds);
  return NG_SUCCESS;
}

/* One line per memory space in use: the context's device memory on a GPU
 * (its host memory on a second line), the host's on a CPU. MB: 10^6 bytes;
 * per unknown: of this rank's rows. */
/* The hierarchy, then -amg_coarsening auto's state: waiting for CG's
 * estimate, kept aggregation, or rebuilt as classical. */
ng_status ng_amg_describe(ng_precond P, char *buf, size_t len)
{
  ng_amg *M = P->data;
  NG_ASSERT_ARG(M, "AMG: the preconditioner has no hierarchy (its rebuild failed: create it again)");
  NG_CHECK(describe_hierarchy(P, buf, len));
  size_t k = strlen(buf);
  if (k + 1 >= len) return NG_SUCCESS;
  /* the reporting method and its norm (cg: the M^-1 norm and a condition estimate) */
  const char *who = M->seen.solver ? M->seen.solver : "cg";
  int cg = !strcmp(who, "cg") || !strcmp(who, "pipecg");
  char kap[64] = "";
  if (cg && !isnan(M->seen.kappa)) snprintf(kap, sizeof(kap), ", cond(M^-1 A) >= %.3g", M->seen.kappa);
  if (M->auto_switched && isinf(M->seen.rate))
    snprintf(buf + k, len - k, "  -amg_coarsening auto: classical, as %s with aggregation diverged at iteration %d\n",
             who, M->seen.its);
  else if (M->auto_switched)
    snprintf(buf + k, len - k, "  -amg_coarsening auto: classical, as %s with aggregation reduced %s by %.3g per "
             "iteration (above %g) over %d iterations%s\n", who, cg ? "||r||_M^-1" : "||r||", M->seen.rate,
             M->auto_rate, M->seen.its, kap);
  else if (M->coarsening_auto && M->seen.its > 0)
    snprintf(buf + k, len - k, "  -amg_coarsening auto: aggregation kept, %s reduced %s by %.3g per iteration "
             "(at most %g) over %d iterations%s\n", who, cg ? "||r||_M^-1" : "||r||", M->seen.rate, M->auto_rate,
             M->seen.its, kap);
  else if (M->coarsening_auto && P->adapt_after)
    snprintf(buf + k, len - k, "  -amg_coarsening auto: aggregation until the solver (CG: ||r||_M^-1, GMRES, BiCGSTAB: ||r||) reduces the "
             "residual by less than %g per iteration over its first %d (then classical)\n", M->auto_rate, M->auto_its);
  return NG_SUCCESS;
}

size_t ng_amg_describe_memory(ng_precond P, char *buf, size_t len)
{
  int64_t mat[NG_MEM_SPACES];
  size_t k = 0;
  double n = P->A->n_local > 0 ? (double)P->A->n_local : 1.0;
  ng_matrix_memory(P->A, mat);
  for (int s = P->ctx->on_gpu ? NG_MEM_DEVICE : NG_MEM_HOST; s >= NG_MEM_HOST && k < len; s--) {
    const char *label = !P->ctx->on_gpu ? "memory" : s == NG_MEM_DEVICE ? "device memory" : "host memory";
    char who[32] = "";
    if (P->ctx->size > 1) snprintf(who, sizeof(who), " (rank %d)", P->ctx->rank);
    k += (size_t)snprintf(buf + k, len - k,
                          "  %s%s: matrix %.2f MB, hierarchy %.2f MB (levels' A, P, R, smoother data, vectors), "
                          "setup peak %.2f MB; bytes per unknown: matrix %.1f, hierarchy %.1f, setup peak %.1f\n",
                          label, who, 1e-6 * (double)mat[s],
                          1e-6 * (double)P->mem_held[s], 1e-6 * (double)P->mem_peak[s], (double)mat[s] / n,
                          (double)P->mem_held[s] / n, (double)P->mem_peak[s] / n);
  }
  return k < len ? k : len;
}

static double amg_comm_seconds(ng_precond P) { return ng_amg_dist_comm_seconds(P->data); }

/* The finest level's GPU copy of A (amg_fine.c) for the Krylov products,
 * while it holds A's current values: on lap27:256, 0.64 ms a product in
 * dia_half against cuSPARSE CSR's 2.37 (H200). One rank: several ranks'
 * matrices choose dia_half themselves (dist/matrix.c). */
static void amg_operator_table(ng_precond P, ng_matrix A, const ng_spmv_ops **ops, void **data)
{
  ng_amg *M = P->data;
  *ops = NULL;
  *data = NULL;
  if (!M || !M->L || M->nlevels < 1 || P->ctx->size > 1 || !P->ctx->on_gpu) return;
  const ng_amg_level *L = &M->L[0];
  if (!L->s.Aops || !L->s.Aops->on_gpu || M->fine_of != A || M->fine_seq != A->values_seq) return;
  *ops = L->s.Aops;
  *data = L->s.Adata;
}

const ng_precond_ops ng_precond_amg = {
  .operator_table = amg_operator_table,
  .comm_seconds = amg_comm_seconds,
  .name = "amg",
  .setup = amg_setup,
  .update = amg_update,
  .apply = amg_apply,
  .adapt = amg_adapt,
  .destroy = amg_destroy,
};

/* ng_precond_get_levels (nagare.h): rows and nonzeros per level, global (the
 * distributed hierarchy's n_global/nnz_global; one rank: the level itself). */
ng_status ng_precond_get_levels(ng_precond P, int *nlevels, int64_t *rows, int64_t *nnz, int max)
{
  NG_ASSERT_ARG(P && nlevels && (max <= 0 || (rows && nnz)), "ng_precond_get_levels: null argument");
  ng_amg *M = ng_amg_of(P);
  ng_amg_dlevel *D = M ? M->dist : NULL;
  *nlevels = M ? M->nlevels : 0;
  for (int l = 0; l < *nlevels && l < max; l++) {
    rows[l] = D ? D[l].n_global : M->L[l].s.n;
    nnz[l] = D ? D[l].nnz_global : l ? M->L[l].A.nnz : P->A->local.nnz;
  }
  return NG_SUCCESS;
}
