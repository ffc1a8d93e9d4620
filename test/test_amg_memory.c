/* test/test_amg_memory.c: the memory accounting (core/memtrack.c) and the
 * AMG's report of it (issue 35 item 2, -amg_view's memory line), on the
 * host. tracker: live and peak bytes of thousands of blocks made, grown
 * and freed out of order come back to where they started (the map's
 * deletions keep every entry findable). matrix: ng_matrix_memory counts the
 * bytes its creation left live. hierarchy: lap7:32's AMG hierarchy bytes
 * (P->mem_held) lie between the levels' arrays summed here independently
 * and 5% above them; the setup's peak is at least that; the view prints
 * the line; destroying the preconditioner returns the live bytes to their
 * value before it, and so does a K-cycle (its work vectors counted).
 * solver: ng_solver_get_memory's Krylov bytes are the work block, and no
 * device bytes on a CPU context. gpu: the same on a GPU context, where
 * there is one. */
#include "testutil.h"
#include "../solver/solver.h"
#include "../amg/amg.h"
#include <stdlib.h>
#include <string.h>

static ng_context ctx;
static void setup(void) { NG_ASSERT_OK(ng_context_create("cpu", &ctx)); }
static void teardown(void) { ng_context_destroy(ctx); }

START_TEST(tracker)
{
  enum { N = 5000 };
  static char *p[N];
  static size_t sz[N];
  int64_t base = ng_mem_current(NG_MEM_HOST), sum = 0;
  ng_mem_reset_peak(NG_MEM_HOST);
  for (int k = 0; k < N; k++) {
    sz[k] = 1 + (size_t)(k * 7919 % 1000);
    NG_ASSERT_OK(NG_MALLOC(p[k], sz[k]));
    sum += (int64_t)sz[k];
  }
  ck_assert_int_eq(ng_mem_current(NG_MEM_HOST) - base, sum);
  ck_assert_int_eq(ng_mem_peak(NG_MEM_HOST) - base, sum);
  /* free every third, grow every fifth: out of allocation order */
  for (int k = 0; k < N; k += 3) {
    ng_free(p[k]);
    sum -= (int64_t)sz[k];
    p[k] = NULL;
  }
  for (int k = 1; k < N; k += 5)
    if (p[k]) {
      NG_ASSERT_OK(ng_host_realloc((void **)&p[k], 3 * sz[k], 1, "grown"));
      sum += 2 * (int64_t)sz[k];
      sz[k] *= 3;
    }
  ck_assert_int_eq(ng_mem_current(NG_MEM_HOST) - base, sum);
  ck_assert_int_ge(ng_mem_peak(NG_MEM_HOST) - base, sum);
  /* an unknown pointer is ignored; a reset peak is the live bytes */
  char other[8];
  ck_assert_uint_eq(ng_mem_untrack(NG_MEM_HOST, other), 0);
  ck_assert_int_eq(ng_mem_reset_peak(NG_MEM_HOST) - base, sum);
  ck_assert_int_eq(ng_mem_peak(NG_MEM_HOST) - base, sum);
  for (int k = N - 1; k >= 0; k--) ng_free(p[k]);
  ck_assert_int_eq(ng_mem_current(NG_MEM_HOST), base);
  ck_assert_int_eq(ng_mem_current(NG_MEM_DEVICE), 0); /* nothing on a CPU context */
}
END_TEST

START_TEST(matrix)
{
  ng_matrix A;
  int64_t b0 = ng_mem_current(NG_MEM_HOST), m[NG_MEM_SPACES];
  NG_ASSERT_OK(ng_matrix_generate(ctx, "lap7:32", &A, NULL));
  int64_t held = ng_mem_current(NG_MEM_HOST) - b0;
  ng_matrix_memory(A, m);
  /* rows + 1 offsets twice (local and the empty off-rank block), 12 bytes an entry */
  ck_assert_int_ge(m[NG_MEM_HOST], 2 * (int64_t)(A->n_local + 1) * 8 + A->local.nnz * 12);
  ck_assert_msg(llabs(held - m[NG_MEM_HOST]) <= held / 100 + 64, "matrix: %lld live, %lld counted", (long long)held,
                (long long)m[NG_MEM_HOST]);
  ck_assert_int_eq(m[NG_MEM_DEVICE], 0);
  ng_matrix_destroy(A);
  ck_assert_int_eq(ng_mem_current(NG_MEM_HOST), b0);
}
END_TEST

static int64_t vec(const void *p, int64_t n) { return p ? n * (int64_t)sizeof(double) : 0; }

/* The bytes of a level's table, unless it reads the level's own CSR. */
static int64_t table(const ng_spmv_ops *ops, const void *data, const ng_csr *own)
{
  return ops && data && data != (const void *)own ? (int64_t)ops->bytes(data) : 0;
}

/* The hierarchy's arrays, from its structs (host context). */
static int64_t hierarchy_bytes(ng_precond P)
{
  ng_amg *M = ng_amg_of(P);
  int64_t b = (int64_t)sizeof(*M) + (int64_t)M->max_levels * (int64_t)sizeof(ng_amg_level);
  for (int l = 0; l < M->nlevels; l++) {
    ng_amg_level *L = &M->L[l];
    int64_t n = L->s.n;
    b += (int64_t)(ng_csr_bytes(&L->A) + ng_csr_bytes(&L->G) + ng_csr_bytes(&L->P) + ng_csr_bytes(&L->R) +
                   ng_csr_bytes(&L->AP));
    if (L->smap) b += L->G.nnz * 8;
    if (L->agg) b += n * 4;
    b += vec(L->ptent, n) + vec(L->x, n) + vec(L->b, n) + vec(L->s.dinv, n) + vec(L->s.r, n);
    if (L->rperm) b += L->P.nnz * 8;
    for (int k = 0; k < 4; k++) b += vec(L->kw[k], n);
    b += table(L->Pops, L->Pdata, &L->P) + table(L->Rops, L->Rdata, &L->R) + table(L->s.Aops, L->s.Adata, &L->A);
  }
  b += (int64_t)ng_csr_bytes(&M->coarse_inv) + table(M->Cops, M->Cdata, &M->coarse_inv);
  b += vec(M->eigvec0, M->L[0].s.n);
  return b;
}

/* sdata 0: the smoother keeps no data of its own (Jacobi: the levels'
 * dinv), the count above is all; 1: it does (colors, blocks), only a lower
 * bound. Returns the hierarchy's bytes. */
static int64_t check_hierarchy(ng_matrix A, const char *options, int sdata)
{
  int64_t b0 = ng_mem_current(NG_MEM_HOST);
  ng_precond P = ng_test_amg(ctx, A, options);
  int64_t held = P->mem_held[NG_MEM_HOST], peak = P->mem_peak[NG_MEM_HOST], mine = hierarchy_bytes(P);
  printf("%s: hierarchy %lld bytes reported, %lld counted from the levels' arrays, setup peak %lld\n", options,
         (long long)held, (long long)mine, (long long)peak);
  ck_assert_msg(held >= mine && held <= mine + (sdata ? mine : mine / 20),
                "%s: hierarchy %lld bytes, the levels' arrays %lld", options, (long long)held, (long long)mine);
  ck_assert_int_ge(peak, held);
  ck_assert_int_eq(P->mem_held[NG_MEM_DEVICE], 0);
  /* the live bytes since the setup are the hierarchy's and the precond's own struct */
  ck_assert_int_ge(ng_mem_current(NG_MEM_HOST) - b0, held);
  char buf[4096];
  NG_ASSERT_OK(ng_precond_describe(P, buf, sizeof(buf)));
  ck_assert_msg(strstr(buf, "  memory: matrix ") && strstr(buf, "bytes per unknown: matrix "), "%s", buf);
  NG_ASSERT_OK(ng_precond_destroy(P));
  ck_assert_int_eq(ng_mem_current(NG_MEM_HOST), b0);
  return held;
}

START_TEST(hierarchy)
{
  ng_matrix A;
  NG_ASSERT_OK(ng_matrix_generate(ctx, "lap7:32", &A, NULL));
  int64_t jacobi = check_hierarchy(A, "-amg_smoother jacobi", 0);
  /* the K-cycle's work vectors: 4 on each level between the finest and the coarsest */
  ck_assert_int_gt(check_hierarchy(A, "-amg_smoother jacobi -amg_cycle k", 0), jacobi);
  ck_assert_int_gt(check_hierarchy(A, "-amg_smoother mcgs", 1), jacobi);
  ng_matrix_destroy(A);
}
END_TEST

START_TEST(solver)
{
  ng_matrix A;
  ng_options o;
  ng_solver S;
  int64_t host[4], dev[4], m[NG_MEM_SPACES];
  NG_ASSERT_OK(ng_matrix_generate(ctx, "lap7:32", &A, NULL));
  NG_ASSERT_OK(ng_options_create(&o));
  NG_ASSERT_OK(ng_options_set_from_string(o, "-solver cg -precond amg -maxit 100"));
  NG_ASSERT_OK(ng_solver_create(ctx, o, &S));
  NG_ASSERT_OK(ng_solver_set_operator(S, A));
  NG_ASSERT_OK(ng_solver_get_memory(S, 0, host));
  NG_ASSERT_OK(ng_solver_get_memory(S, 1, dev));
  ng_matrix_memory(A, m);
  ck_assert_int_eq(host[0], m[NG_MEM_HOST]);
  ck_assert_int_eq(host[1], S->P->mem_held[NG_MEM_HOST]);
  ck_assert_int_gt(host[1], 0);
  ck_assert_int_ge(host[2], host[1]);
  ck_assert_int_ge(host[3], (int64_t)S->nwork * A->n_local * 8 + 101 * 8);
  ck_assert_int_le(host[3], (int64_t)S->nwork * (A->n_local + 32) * 8 + 101 * 8 + 4096);
  for (int k = 0; k < 4; k++) ck_assert_int_eq(dev[k], 0);
  ng_solver_destroy(S);
  ng_options_destroy(o);
  ng_matrix_destroy(A);
}
END_TEST

/* On a GPU context (skipped without one): the hierarchy is in device
 * memory, at least the coarse levels' operators' 12 bytes an entry; the
 * view has both lines; destroying it returns both spaces' live bytes. */
START_TEST(gpu)
{
  if (ng_test_no_gpu()) return;
  ng_context g;
  ng_matrix A;
  NG_ASSERT_OK(ng_context_create("gpu", &g));
  NG_ASSERT_OK(ng_matrix_generate(g, "lap7:32", &A, NULL));
  int64_t h0 = ng_mem_current(NG_MEM_HOST), d0 = ng_mem_current(NG_MEM_DEVICE), m[NG_MEM_SPACES];
  ng_matrix_memory(A, m);
  ck_assert_int_ge(m[NG_MEM_DEVICE], A->local.nnz * 12);
  ng_precond P = ng_test_amg(g, A, "");
  ng_amg *M = ng_amg_of(P);
  int64_t coarse = 0;
  for (int l = 1; l < M->nlevels; l++) coarse += (int64_t)M->L[l].A.nnz * 12;
  char buf[4096];
  NG_ASSERT_OK(ng_precond_describe(P, buf, sizeof(buf)));
  printf("%s", buf);
  ck_assert_int_ge(P->mem_held[NG_MEM_DEVICE], coarse);
  ck_assert_int_ge(P->mem_peak[NG_MEM_DEVICE], P->mem_held[NG_MEM_DEVICE]);
  ck_assert_msg(strstr(buf, "  device memory: matrix ") && strstr(buf, "  host memory: matrix "), "%s", buf);
  NG_ASSERT_OK(ng_precond_destroy(P));
  ck_assert_int_eq(ng_mem_current(NG_MEM_DEVICE), d0);
  ck_assert_int_eq(ng_mem_current(NG_MEM_HOST), h0);
  ng_matrix_destroy(A);
  ng_context_destroy(g);
}
END_TEST

int main(void)
{
  Suite *s = suite_create("amg_memory");
  TCase *tc = tcase_create("core");
  tcase_set_timeout(tc, 300);
  tcase_add_unchecked_fixture(tc, setup, teardown);
  tcase_add_test(tc, tracker);
  tcase_add_test(tc, matrix);
  tcase_add_test(tc, hierarchy);
  tcase_add_test(tc, solver);
  tcase_add_test(tc, gpu);
  suite_add_tcase(s, tc);
  return ng_test_run(s);
}
