/* bench/peers/mtx_read.h: a minimal Matrix Market reader for the peer
 * programs (coordinate real, general or symmetric, 1-based) into sorted
 * CSR, so that hypre and PETSc read the same files as nagare without
 * depending on nagare. Header-only: each peer program includes it once. */
#ifndef PEER_MTX_READ_H
#define PEER_MTX_READ_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
  int n;
  long long nnz;
  long long *rowptr;
  int *col;
  double *val;
} peer_csr;

typedef struct {
  int i, j;
  double v;
} peer_entry;

static int peer_cmp(const void *a, const void *b)
{
  const peer_entry *x = a, *y = b;
  if (x->i != y->i) return x->i < y->i ? -1 : 1;
  return x->j < y->j ? -1 : x->j > y->j;
}

/* 0 on success; prints the reason and returns -1 otherwise. */
static int peer_read_mtx(const char *path, peer_csr *A)
{
  FILE *f = fopen(path, "r");
  char line[1024];
  int sym = 0, m, n;
  long long nz;
  if (!f) { fprintf(stderr, "%s: cannot open\n", path); return -1; }
  if (!fgets(line, sizeof line, f) || strncmp(line, "%%MatrixMarket matrix coordinate real", 37)) {
    fprintf(stderr, "%s: not a coordinate real Matrix Market file\n", path);
    fclose(f);
    return -1;
  }
  sym = strstr(line, "symmetric") != NULL;
  do {
    if (!fgets(line, sizeof line, f)) { fclose(f); return -1; }
  } while (line[0] == '%');
  if (sscanf(line, "%d %d %lld", &m, &n, &nz) != 3 || m != n) {
    fprintf(stderr, "%s: bad size line\n", path);
    fclose(f);
    return -1;
  }
  peer_entry *e = malloc(sizeof(peer_entry) * (size_t)(sym ? 2 * nz : nz) + 1);
  long long k = 0;
  for (long long q = 0; q < nz; q++) {
    int i, j;
    double v;
    if (fscanf(f, "%d %d %lf", &i, &j, &v) != 3) { fprintf(stderr, "%s: short file\n", path); fclose(f); free(e); return -1; }
    e[k++] = (peer_entry){i - 1, j - 1, v};
    if (sym && i != j) e[k++] = (peer_entry){j - 1, i - 1, v};
  }
  fclose(f);
  qsort(e, (size_t)k, sizeof(peer_entry), peer_cmp);
  A->n = n;
  A->nnz = k;
  A->rowptr = calloc((size_t)n + 1, sizeof(long long));
  A->col = malloc(sizeof(int) * (size_t)k + 1);
  A->val = malloc(sizeof(double) * (size_t)k + 1);
  for (long long q = 0; q < k; q++) {
    A->rowptr[e[q].i + 1]++;
    A->col[q] = e[q].j;
    A->val[q] = e[q].v;
  }
  for (int i = 0; i < n; i++) A->rowptr[i + 1] += A->rowptr[i];
  free(e);
  return 0;
}

/* The case name: the file's base name without .mtx */
static void peer_case_name(const char *path, char *out, size_t len)
{
  const char *b = strrchr(path, '/');
  snprintf(out, len, "%s", b ? b + 1 : path);
  char *d = strstr(out, ".mtx");
  if (d) *d = 0;
}
#endif
