/* test/test_transport.c: the halo transports (comm/transport_*.c), run by
 * test/mpi-run.sh on 2 and 4 ranks, on a CPU context ("cpu", the default)
 * or a GPU context ("gpu": skipped with "skipped: no CUDA device" without
 * one). Checks: every transport this context can use (host, auto, ipc,
 * cuda_mpi where available) delivers halo values identical to the host
 * transport, and exactly the owners' values, on random partitions
 * (zero-row ranks included), over repeated exchanges with changing x; the
 * same for a plan built by hand with send and receive roles swapped whose
 * receive buffer lies inside a larger context allocation (as the
 * restriction of a distributed AMG would build); the gather plan onto rank
 * 0 and its reverse move exactly the owners' values, an empty rank
 * included; a plan over the entries of variable-length rows delivers each
 * halo row whole; SpMV and PCG give the same
 * results through every transport; the per-neighbour report names each
 * neighbour once; a CPU context accepts only host (and auto); forced
 * cuda_mpi on an MPI that is not CUDA-aware fails on every rank with the
 * same message, never a hang. */
#include "mpi_testutil.h"
#include "../comm/transport_part.h"
#include <math.h>
#include <mpi.h>

static int rank, size;
static ng_context ctx;
static const char *transports[4];
static int n_transports;

/* This rank's rows of G, its halos moved by the named transport. */
static ng_status create_rows_via(const ng_test_gcsr *G, const int64_t *starts, const char *transport, ng_matrix *A)
{
  ng_status st = ng_context_set_transport(ctx, transport);
  return st ? st : ng_mpi_test_rows(ctx, G, starts, A);
}

static double xval(int64_t g, int e) { return (1.0 + 0.001 * (double)g) * (double)(e + 1) + 1.0 / 3.0; }

/* All ranks: did every rank pass cond? */
static int all_true(int cond)
{
  int v = cond;
  MPI_Allreduce(MPI_IN_PLACE, &v, 1, MPI_INT, MPI_LAND, MPI_COMM_WORLD);
  return v;
}

/* Exchanges x_e = xval(., e) for e < n_ex through A's plan; halo[e] gets
 * the received values (host copies). */
static void run_exchanges(ng_matrix A, int n_ex, double **halo)
{
  double *xh = malloc(((size_t)A->n_local + 1) * sizeof(double)), *x;
  NG_ASSERT_OK(ctx->vops->alloc(ctx, &x, A->n_local + 1));
  for (int e = 0; e < n_ex; e++) {
    for (int32_t i = 0; i < A->n_local; i++) xh[i] = xval(A->row_begin + i, e);
    NG_ASSERT_OK(ctx->vops->upload(ctx, x, xh, A->n_local));
    halo[e] = malloc(((size_t)A->n_halo + 1) * sizeof(double));
    if (A->halo) {
      NG_ASSERT_OK(ng_halo_begin(A, x));
      NG_ASSERT_OK(ng_halo_end(A));
      NG_ASSERT_OK(ctx->vops->download(ctx, halo[e], A->halo_values, A->n_halo));
    }
  }
  ctx->vops->free(ctx, x);
  free(xh);
}

START_TEST(halo_identical_to_host)
{
  for (int trial = 0; trial < 4; trial++) {
    ng_test_gcsr G;
    int64_t starts[65];
    ng_matrix H;
    double *ref[3];
    ng_test_gcsr_random(&G, 300 + 41 * trial);
    ng_mpi_test_starts(G.n, 1, starts);
    NG_ASSERT_OK(create_rows_via(&G, starts, "host", &H));
    run_exchanges(H, 3, ref);
    for (int e = 0; e < 3; e++)
      for (int32_t k = 0; k < H->n_halo; k++)
        ck_assert_msg(ref[e][k] == xval(H->halo_gcol[k], e), "host: rank %d halo %d exchange %d: %g, want %g", rank,
                      (int)k, e, ref[e][k], xval(H->halo_gcol[k], e));
    for (int t = 0; t < n_transports; t++) {
      ng_matrix A;
      double *got[3];
      NG_ASSERT_OK(create_rows_via(&G, starts, transports[t], &A));
      ck_assert_int_eq(A->n_halo, H->n_halo);
      run_exchanges(A, 3, got);
      for (int e = 0; e < 3; e++) {
        ck_assert_msg(A->n_halo == 0 || !memcmp(got[e], ref[e], (size_t)A->n_halo * sizeof(double)),
                      "%s: rank %d exchange %d differs from host", transports[t], rank, e);
        free(got[e]);
      }
      ng_matrix_destroy(A);
    }
    for (int e = 0; e < 3; e++) free(ref[e]);
    ng_matrix_destroy(H);
    ng_test_gcsr_free(&G);
  }
  NG_ASSERT_OK(ng_context_set_transport(ctx, "auto"));
}
END_TEST

/* A plan with the roles of A's plan swapped (each rank sends its halo
 * slots back to their owners), its receive buffer at an offset inside a
 * larger context allocation: received entry k must be f(row_begin +
 * send_idx_host[k]) when every rank sends f(halo_gcol[j]). */
static void swapped_exchange(ng_matrix A, const char *transport, int n_ex, double **got)
{
  struct ng_halo_plan empty, *o = A->halo, *h;
  double *pool, *fh;
  int32_t *idx;
  const int lead = 37; /* doubles before the receive buffer in its allocation */
  int32_t zero = 0;
  if (!o) { /* no neighbours here: an empty plan, still set up collectively */
    memset(&empty, 0, sizeof(empty));
    empty.send_offset = empty.recv_offset = &zero;
    o = &empty;
  }
  h = calloc(1, sizeof(*h));
  h->ctx = ctx;
  h->n_send_nb = o->n_recv_nb;
  h->n_recv_nb = o->n_send_nb;
  h->send_rank = malloc(((size_t)h->n_send_nb + 1) * sizeof(int));
  h->recv_rank = malloc(((size_t)h->n_recv_nb + 1) * sizeof(int));
  h->send_offset = malloc(((size_t)h->n_send_nb + 1) * sizeof(int32_t));
  h->recv_offset = malloc(((size_t)h->n_recv_nb + 1) * sizeof(int32_t));
  if (h->n_send_nb) memcpy(h->send_rank, o->recv_rank, (size_t)h->n_send_nb * sizeof(int));
  if (h->n_recv_nb) memcpy(h->recv_rank, o->send_rank, (size_t)h->n_recv_nb * sizeof(int));
  memcpy(h->send_offset, o->recv_offset, ((size_t)h->n_send_nb + 1) * sizeof(int32_t));
  memcpy(h->recv_offset, o->send_offset, ((size_t)h->n_recv_nb + 1) * sizeof(int32_t));
  h->n_send = o->n_recv;
  h->n_recv = o->n_send;
  h->n_neighbors = o->n_neighbors;
  idx = malloc(((size_t)h->n_send + 1) * sizeof(int32_t));
  for (int32_t k = 0; k < h->n_send; k++) idx[k] = k; /* sends the halo slots in order */
  h->send_idx_host = idx;
  NG_ASSERT_OK(ctx->vops->alloc_raw(ctx, (void **)&h->send_idx, ((size_t)h->n_send + 1) * sizeof(int32_t), "idx"));
  NG_ASSERT_OK(ctx->vops->upload_raw(ctx, h->send_idx, idx, (size_t)h->n_send * sizeof(int32_t)));
  NG_ASSERT_OK(ctx->vops->alloc(ctx, &h->send_buf, h->n_send + 1));
  NG_ASSERT_OK(ctx->vops->alloc(ctx, &pool, lead + h->n_recv + 1));
  NG_ASSERT_OK(ng_context_set_transport(ctx, transport));
  NG_ASSERT_OK(ng_transport_select_and_setup(h, pool + lead));
  double *f;
  NG_ASSERT_OK(ctx->vops->alloc(ctx, &f, A->n_halo + 1));
  fh = malloc(((size_t)A->n_halo + 1) * sizeof(double));
  for (int e = 0; e < n_ex; e++) {
    for (int32_t j = 0; j < A->n_halo; j++) fh[j] = -xval(A->halo_gcol[j], e);
    NG_ASSERT_OK(ctx->vops->upload(ctx, f, fh, A->n_halo));
    NG_ASSERT_OK(h->transport->pack(h, f));
    NG_ASSERT_OK(h->transport->start(h));
    NG_ASSERT_OK(h->transport->finish(h, pool + lead));
    got[e] = malloc(((size_t)h->n_recv + 1) * sizeof(double));
    NG_ASSERT_OK(ctx->vops->download(ctx, got[e], pool + lead, h->n_recv));
    for (int32_t k = 0; k < h->n_recv; k++)
      ck_assert_msg(got[e][k] == -xval(A->row_begin + o->send_idx_host[k], e), "%s swapped: rank %d entry %d: %g",
                    transport, rank, (int)k, got[e][k]);
  }
  free(fh);
  ctx->vops->free(ctx, f);
  ng_halo_plan_destroy(h); /* frees the tables, send_idx, send_buf and the transport */
  ctx->vops->free(ctx, pool);
  NG_ASSERT_OK(ng_context_set_transport(ctx, "auto"));
}

START_TEST(swapped_plan_any_buffer)
{
  ng_test_gcsr G;
  int64_t starts[65];
  ng_matrix A;
  ng_test_gcsr_random(&G, 400);
  ng_mpi_test_starts(G.n, 1, starts);
  NG_ASSERT_OK(create_rows_via(&G, starts, "host", &A));
  double *ref[3];
  int32_t n = A->halo ? A->halo->n_send : 0;
  swapped_exchange(A, "host", 3, ref);
  for (int t = 0; t < n_transports; t++) {
    double *got[3];
    swapped_exchange(A, transports[t], 3, got);
    for (int e = 0; e < 3; e++) {
      ck_assert_msg(!memcmp(got[e], ref[e], (size_t)n * sizeof(double)), "%s swapped differs", transports[t]);
      free(got[e]);
    }
  }
  for (int e = 0; e < 3; e++) free(ref[e]);
  ng_matrix_destroy(A);
  ng_test_gcsr_free(&G);
}
END_TEST

/* The gather plan onto rank 0 (comm/halo_gather.c) and its reverse through
 * one transport, on partitions starts: rank 0 receives every other rank's
 * values in rank order, exactly; the reverse brings rank 0's (negated)
 * copy back to each owner. Two rounds with changing x. */
static void gather_via(const char *transport, const int64_t *starts)
{
  NG_ASSERT_OK(ng_context_set_transport(ctx, transport));
  int root = rank == 0;
  int32_t nl = (int32_t)(starts[rank + 1] - starts[rank]), nr = root ? (int32_t)(starts[size] - starts[1]) : 0;
  double *xh = malloc(((size_t)nl + (size_t)nr + 1) * sizeof(double)), *x, *recv = NULL, *y;
  NG_ASSERT_OK(ctx->vops->alloc(ctx, &x, nl + 1));
  NG_ASSERT_OK(ctx->vops->alloc(ctx, &y, nl + 1));
  if (root) NG_ASSERT_OK(ctx->vops->alloc(ctx, &recv, nr + 1));
  struct ng_halo_plan *g = NULL, *r = NULL;
  NG_ASSERT_OK(ng_halo_gather_create(ctx, NG_SUCCESS, starts, recv, &g));
  NG_ASSERT_OK(ng_halo_reverse_create(ctx, NG_SUCCESS, g, &r));
  ck_assert_msg(all_true(size == 1 || starts[size] == starts[1] || (root ? g != NULL : (g != NULL) == (nl > 0))),
                "%s: a gather plan where rows move, none elsewhere", transport);
  for (int e = 0; e < 2; e++) {
    for (int32_t i = 0; i < nl; i++) xh[i] = xval(starts[rank] + i, e);
    NG_ASSERT_OK(ctx->vops->upload(ctx, x, xh, nl));
    if (g) NG_ASSERT_OK(ng_halo_gather_run(g, x, recv));
    if (root && nr) {
      NG_ASSERT_OK(ctx->vops->download(ctx, xh, recv, nr));
      for (int32_t k = 0; k < nr; k++)
        ck_assert_msg(xh[k] == xval(starts[1] + k, e), "%s gather: entry %d got %g want %g", transport, (int)k, xh[k],
                      xval(starts[1] + k, e));
      NG_ASSERT_OK(ctx->vops->scale(ctx, nr, -1.0, recv));
    }
    if (!root && nl) NG_ASSERT_OK(ctx->vops->fill(ctx, nl, 0.0, y));
    if (r) {
      NG_ASSERT_OK(ng_halo_reverse_begin(r, root ? recv : y));
      NG_ASSERT_OK(ng_halo_reverse_end(r, g, y));
    }
    if (!root && nl) {
      NG_ASSERT_OK(ctx->vops->download(ctx, xh, y, nl));
      for (int32_t i = 0; i < nl; i++)
        ck_assert_msg(xh[i] == -xval(starts[rank] + i, e), "%s scatter: rank %d row %d got %g", transport, rank, (int)i,
                      xh[i]);
    }
  }
  ng_halo_reverse_destroy(r);
  ng_halo_plan_destroy(g);
  ctx->vops->free(ctx, x);
  ctx->vops->free(ctx, y);
  if (recv) ctx->vops->free(ctx, recv);
  free(xh);
  NG_ASSERT_OK(ng_context_set_transport(ctx, "auto"));
}

START_TEST(gather_onto_rank0)
{
  int64_t starts[65];
  for (int trial = 0; trial < 3; trial++) {
    ng_mpi_test_starts(700 + 53 * trial, trial > 0, starts);
    if (trial == 2 && size > 2) starts[2] = starts[1]; /* rank 1 empty, rank 2 takes its rows */
    gather_via("host", starts);
    for (int t = 0; t < n_transports; t++) gather_via(transports[t], starts);
  }
}
END_TEST

/* The plan over the entries of variable-length rows (comm/halo_rows_plan.c)
 * through one transport: global row g has 1 + g % 4 entries, entry t worth
 * xval(4 g + t, e); each rank packs the rows its halo plan sends, in send
 * order, and every halo row must arrive whole and exact, two rounds with
 * changing values (an update sends values again through the same plan). */
static double rval(int64_t g, int t, int e) { return xval(4 * g + t, e); }

static void rows_plan_via(ng_matrix A, const char *transport)
{
  const struct ng_halo_plan *h = A->halo;
  int32_t ns = h ? h->n_send : 0, nh = A->n_halo;
  int64_t *srp = malloc(((size_t)ns + 1) * sizeof(int64_t)), *rrp = malloc(((size_t)nh + 1) * sizeof(int64_t));
  srp[0] = rrp[0] = 0;
  for (int32_t k = 0; k < ns; k++) srp[k + 1] = srp[k] + 1 + (A->row_begin + h->send_idx_host[k]) % 4;
  for (int32_t j = 0; j < nh; j++) rrp[j + 1] = rrp[j] + 1 + A->halo_gcol[j] % 4;
  double *xh = malloc(((size_t)srp[ns] + 1) * sizeof(double)), *gh = malloc(((size_t)rrp[nh] + 1) * sizeof(double));
  double *x, *recv;
  NG_ASSERT_OK(ctx->vops->alloc(ctx, &x, (int32_t)srp[ns] + 1));
  NG_ASSERT_OK(ctx->vops->alloc(ctx, &recv, (int32_t)rrp[nh] + 1));
  NG_ASSERT_OK(ng_context_set_transport(ctx, transport));
  struct ng_halo_plan *e = NULL;
  NG_ASSERT_OK(ng_halo_rows_plan_create(ctx, NG_SUCCESS, h, srp, rrp, recv, &e));
  ck_assert_msg(all_true((e != NULL) == (h != NULL)), "%s: a rows plan exactly where the halo plan has neighbours",
                transport);
  for (int r = 0; r < 2; r++) {
    for (int32_t k = 0; k < ns; k++)
      for (int64_t p = srp[k]; p < srp[k + 1]; p++) xh[p] = rval(A->row_begin + h->send_idx_host[k], (int)(p - srp[k]), r);
    NG_ASSERT_OK(ctx->vops->upload(ctx, x, xh, (int32_t)srp[ns]));
    if (e) NG_ASSERT_OK(ng_halo_plan_run(e, x, recv));
    NG_ASSERT_OK(ctx->vops->download(ctx, gh, recv, (int32_t)rrp[nh]));
    for (int32_t j = 0; j < nh; j++)
      for (int64_t p = rrp[j]; p < rrp[j + 1]; p++)
        ck_assert_msg(gh[p] == rval(A->halo_gcol[j], (int)(p - rrp[j]), r), "%s rows plan: rank %d halo row %d entry %d: %g",
                      transport, rank, (int)j, (int)(p - rrp[j]), gh[p]);
  }
  ng_halo_plan_destroy(e);
  ctx->vops->free(ctx, x);
  ctx->vops->free(ctx, recv);
  free(xh);
  free(gh);
  free(srp);
  free(rrp);
  NG_ASSERT_OK(ng_context_set_transport(ctx, "auto"));
}

START_TEST(rows_plan_moves_rows)
{
  for (int trial = 0; trial < 3; trial++) {
    ng_test_gcsr G;
    int64_t starts[65];
    ng_matrix A;
    ng_test_gcsr_random(&G, 280 + 37 * trial);
    ng_mpi_test_starts(G.n, trial > 0, starts);
    NG_ASSERT_OK(create_rows_via(&G, starts, "host", &A));
    rows_plan_via(A, "host");
    for (int t = 0; t < n_transports; t++) rows_plan_via(A, transports[t]);
    ng_matrix_destroy(A);
    ng_test_gcsr_free(&G);
  }
}
END_TEST

/* SpMV and PCG through each transport: the same numbers as host. */
START_TEST(solve_identical_to_host)
{
  const char *spec = "lap27:12x12x24";
  int its_host = -1;
  double res_host = 0, y_host_sum = 0;
  for (int t = -1; t < n_transports; t++) {
    const char *name = t < 0 ? "host" : transports[t];
    ng_options o;
    ng_matrix A;
    ng_vector b, x, y;
    ng_solver S;
    int its;
    double res, ysum;
    NG_ASSERT_OK(ng_context_set_transport(ctx, name));
    NG_ASSERT_OK(ng_options_create(&o));
    NG_ASSERT_OK(ng_options_set_from_string(o, "-solver pcg -precond jacobi -tol 1e-10"));
    NG_ASSERT_OK(ng_matrix_generate(ctx, spec, &A, &b));
    NG_ASSERT_OK(ng_vector_create(A, &x));
    NG_ASSERT_OK(ng_vector_create(A, &y));
    for (int rep = 0; rep < 4; rep++) NG_ASSERT_OK(ng_matrix_apply(A, b, y)); /* plan reused back to back */
    NG_ASSERT_OK(ng_vector_dot(y, y, &ysum));
    NG_ASSERT_OK(ng_solver_create(ctx, o, &S));
    NG_ASSERT_OK(ng_solver_set_operator(S, A));
    NG_ASSERT_OK(ng_solver_solve(S, b, x));
    NG_ASSERT_OK(ng_solver_get_iterations(S, &its));
    NG_ASSERT_OK(ng_solver_get_residual(S, &res));
    if (t < 0) {
      its_host = its;
      res_host = res;
      y_host_sum = ysum;
    } else {
      ck_assert_msg(its == its_host, "%s: %d iterations, host %d", name, its, its_host);
      ck_assert_msg(fabs(res - res_host) <= 1e-12 * res_host + 1e-300, "%s: residual %.17g, host %.17g", name, res,
                    res_host);
      ck_assert_msg(ysum == y_host_sum, "%s: (Ab, Ab) %.17g, host %.17g", name, ysum, y_host_sum);
    }
    if (rank == 0) printf("%-9s pcg on %s, %d ranks: %d iterations, residual %.3e\n", name, spec, size, its, res);
    ng_solver_destroy(S);
    ng_vector_destroy(x);
    ng_vector_destroy(y);
    ng_vector_destroy(b);
    ng_matrix_destroy(A);
    ng_options_destroy(o);
  }
  NG_ASSERT_OK(ng_context_set_transport(ctx, "auto"));
}
END_TEST

/* The report names every neighbour exactly once, under a known transport. */
START_TEST(report_names_each_neighbour)
{
  ng_test_gcsr G;
  int64_t starts[65];
  ng_matrix A;
  char buf[512];
  ng_test_gcsr_random(&G, 250);
  ng_mpi_test_starts(G.n, 1, starts);
  NG_ASSERT_OK(create_rows_via(&G, starts, "auto", &A));
  NG_ASSERT_OK(ng_matrix_get_transport(A, buf, sizeof(buf)));
  int nb = 0;
  NG_ASSERT_OK(ng_matrix_get_comm_info(A, NULL, NULL, &nb, NULL));
  if (nb == 0) ck_assert_str_eq(buf, "-");
  int seen[64] = {0}, count = 0;
  char copy[512];
  snprintf(copy, sizeof(copy), "%s", buf);
  for (char *tok = strtok(copy, " "); tok && nb > 0; tok = strtok(NULL, " ")) {
    char *colon = strchr(tok, ':');
    ck_assert_msg(colon != NULL, "report '%s'", buf);
    *colon = '\0';
    ck_assert_msg(!strcmp(tok, "host") || !strcmp(tok, "ipc") || !strcmp(tok, "cuda_mpi"), "kind '%s'", tok);
    if (!ctx->on_gpu) ck_assert_str_eq(tok, "host");
    for (char *p = colon + 1; *p;) {
      int r = (int)strtol(p, &p, 10);
      ck_assert(r >= 0 && r < size && r != rank);
      ck_assert_msg(!seen[r], "rank %d named twice in '%s'", r, buf);
      seen[r] = 1;
      count++;
      if (*p == ',') p++;
    }
  }
  ck_assert_msg(count == nb, "report '%s' names %d of %d neighbours", buf, count, nb);
  ng_matrix_destroy(A);
  ng_test_gcsr_free(&G);
}
END_TEST

/* Every rank got st and the same message. */
static void assert_same_failure_everywhere(ng_status st, ng_status want)
{
  char msg[1024] = {0}, first[1024] = {0};
  snprintf(msg, sizeof(msg), "%s", ng_last_error());
  ck_assert_msg(st == want, "rank %d: %s, want %s: %s", rank, ng_status_name(st), ng_status_name(want), msg);
  memcpy(first, msg, sizeof(msg));
  MPI_Bcast(first, (int)sizeof(first), MPI_CHAR, 0, MPI_COMM_WORLD);
  /* the agreed message: rank 0's own, or "rank R failed: <it>" elsewhere */
  ck_assert_msg(all_true(strstr(msg, first) != NULL || strstr(first, msg) != NULL), "messages differ: '%s' vs '%s'",
                msg, first);
}

START_TEST(cuda_mpi_fails_cleanly)
{
  char why[200];
  if (ng_cuda_mpi_available(why, sizeof(why))) {
    if (rank == 0) printf("MPI is CUDA-aware here: nothing to refuse\n");
    return;
  }
  /* asked for through the API: refused at once, same message everywhere */
  ng_status st = ng_context_set_transport(ctx, "cuda_mpi");
  assert_same_failure_everywhere(st, NG_ERR_UNSUPPORTED);
  ck_assert_msg(strstr(ng_last_error(), "cuda_mpi") != NULL, "%s", ng_last_error());
  ck_assert_str_eq(ng_context_get_transport(ctx), "auto");
  /* forced behind the setter's back (as a plan of another module could
   * be): the plan creation fails on every rank, no rank hangs */
  ng_test_gcsr G;
  int64_t starts[65];
  ng_matrix A = NULL;
  ng_test_gcsr_random(&G, 200);
  ng_mpi_test_starts(G.n, 1, starts);
  ctx->comm_transport = NG_TRANSPORT_CUDA_MPI;
  st = ng_mpi_test_rows(ctx, &G, starts, &A);
  ctx->comm_transport = NG_TRANSPORT_AUTO;
  if (size > 1) {
    assert_same_failure_everywhere(st, NG_ERR_UNSUPPORTED);
    ck_assert_msg(strstr(ng_last_error(), "cuda_mpi") && strstr(ng_last_error(), why), "%s", ng_last_error());
    ck_assert_ptr_null(A);
  } else {
    NG_ASSERT_OK(st); /* one rank: no plan, nothing to refuse */
    ng_matrix_destroy(A);
  }
  ng_test_gcsr_free(&G);
}
END_TEST

START_TEST(names_checked)
{
  ck_assert_int_eq(ng_context_set_transport(ctx, "shm"), NG_ERR_ARGUMENT);
  ck_assert(strstr(ng_last_error(), "auto, host, ipc or cuda_mpi") != NULL);
  NG_ASSERT_OK(ng_context_set_transport(ctx, "host"));
  ck_assert_str_eq(ng_context_get_transport(ctx), "host");
  NG_ASSERT_OK(ng_context_set_transport(ctx, "auto"));
  if (!ctx->on_gpu) { /* a CPU context accepts only host (and auto, which is host there) */
    ck_assert_int_eq(ng_context_set_transport(ctx, "ipc"), NG_ERR_UNSUPPORTED);
    ck_assert_msg(strstr(ng_last_error(), "only 'host'") != NULL, "%s", ng_last_error());
    ck_assert_int_eq(ng_context_set_transport(ctx, "cuda_mpi"), NG_ERR_UNSUPPORTED);
    ck_assert_str_eq(ng_context_get_transport(ctx), "auto");
  }
}
END_TEST

int main(int argc, char **argv)
{
  const char *where = argc > 1 ? argv[1] : "cpu";
  int rc = ng_mpi_test_init(&argc, &argv, &rank, &size);
  if (rc) return rc;
  unsetenv("NG_COMM_TRANSPORT");
  if ((rc = ng_mpi_test_context(where, &ctx))) return rc;
  /* the transports to compare with host: what this context can use */
  transports[n_transports++] = "auto";
  if (ctx->on_gpu) {
    char why[200];
    int one_node = 0;
    MPI_Comm node;
    MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node);
    MPI_Comm_size(node, &one_node);
    MPI_Comm_free(&node);
    if (all_true(one_node == size)) transports[n_transports++] = "ipc";
    if (ng_cuda_mpi_available(why, sizeof(why))) transports[n_transports++] = "cuda_mpi";
  }
  if (rank == 0) {
    printf("context: %s; transports compared with host:", ng_context_describe(ctx));
    for (int t = 0; t < n_transports; t++) printf(" %s", transports[t]);
    printf("\n");
  }
  Suite *s = suite_create("transport");
  TCase *tc = tcase_create("transport");
  tcase_set_timeout(tc, 300);
  tcase_add_test(tc, names_checked);
  tcase_add_test(tc, halo_identical_to_host);
  tcase_add_test(tc, swapped_plan_any_buffer);
  tcase_add_test(tc, gather_onto_rank0);
  tcase_add_test(tc, rows_plan_moves_rows);
  tcase_add_test(tc, solve_identical_to_host);
  tcase_add_test(tc, report_names_each_neighbour);
  tcase_add_test(tc, cuda_mpi_fails_cleanly);
  suite_add_tcase(s, tc);
  return ng_mpi_test_finish(s, ctx);
}
