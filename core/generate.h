/* core/generate.h: the problem generators behind ng_generate_csr
 * (core/generate.c parses the spec and dispatches here). Each builds the
 * whole matrix on the host, rows in natural order (x fastest, then y, then
 * z), and its right-hand side b (NG_MALLOC'd, nrows long). On failure A is
 * left empty, *b NULL, and nothing is leaked. Sizes are already checked:
 * every dimension >= 1 and the row count fits int32. */
#ifndef NG_GENERATE_H
#define NG_GENERATE_H
#include "core.h"

/* Constant-coefficient grid operators, truncated at the box (generate_stencil.c). */
ng_status ng_gen_lap7(int32_t nx, int32_t ny, int32_t nz, ng_csr *A, double **b);
ng_status ng_gen_lap27(int32_t nx, int32_t ny, int32_t nz, ng_csr *A, double **b);
ng_status ng_gen_aniso27(int32_t nx, int32_t ny, int32_t nz, ng_csr *A, double **b);
/* The 27 coefficients of a constant stencil spec ("lap7:...", "lap27:...",
 * "aniso27:..."; offset (dx,dy,dz) at (dz+1)*9 + (dy+1)*3 + dx+1); 0 for
 * any other spec. */
int ng_gen_stencil_coeffs(const char *spec, double c[27]);
/* Rows of planes [z0, z1) of that stencil on the nx x ny x nz grid as one
 * rank's blocks (dist/generate_dist.c): L over the columns of these planes
 * (numbered from plane z0), the other entries (planes z0 - 1 and z1) as
 * rows orp of global columns ogc and values oval, and b (row sums): the
 * whole grid's rows bit for bit, written in parallel by planes. */
ng_status ng_gen_stencil_slab(const double c[27], int32_t nx, int32_t ny, int32_t nz, int32_t z0, int32_t z1,
                              ng_csr *L, int64_t **orp, int64_t **ogc, double **oval, double **b);
/* The pure-Neumann lap7 (points 7) or lap27 (points 27): the same couplings,
 * each diagonal the sum of its row's off-diagonal magnitudes, so every row
 * sums to zero and the constant vector spans the null space (singular,
 * symmetric positive semidefinite); b = A u with u_i = the node's x index,
 * a consistent right-hand side (generate_stencil.c). */
ng_status ng_gen_lap_neumann(int points, int32_t nx, int32_t ny, int32_t nz, ng_csr *A, double **b);

/* Q1 FEM Poisson on (nx-1)(ny-1)(nz-1) elements; needs nx, ny, nz >= 2 (generate_fem27.c). */
ng_status ng_gen_fem27(int32_t nx, int32_t ny, int32_t nz, ng_csr *A, double **b);
/* Element stiffness of -div(diag(kx,ky,kz) grad u) on a cube of side h,
 * trilinear (Q1) basis; corner a = ax + 2 ay + 4 az with ax, ay, az in {0,1}. */
void ng_gen_q1_stiffness(double kx, double ky, double kz, double h, double Ke[8][8]);

/* Q1 linear elasticity, 3 unknowns per node, clamped face x = 0; needs
 * nx, ny, nz >= 2 and 3 nx ny nz <= INT32_MAX (generate_elast27.c). */
ng_status ng_gen_elast27(int32_t nx, int32_t ny, int32_t nz, ng_csr *A, double **b);

/* MPS pressure Poisson of a dam-break column n particles wide (generate_mps.c). */
ng_status ng_gen_mps(int32_t n, ng_csr *A, double **b);
/* Largest n that ng_gen_mps accepts (its particle count fits int32). */
int32_t ng_gen_mps_max_width(void);

/* Hard-coefficient problems (generate_hard.c): is NAME (len chars) one of
 * het7, het5, rotaniso, rotaniso3; build it from its size N and the rest of
 * the spec after N ("" or ":param[:param]"). */
int ng_gen_is_hard(const char *name, size_t len);
ng_status ng_gen_hard(const char *spec, size_t len, int64_t N, const char *rest, ng_csr *A, double **b);

/* CFD pressure-system classes of issue 31 (generate_cfd.c): is NAME (len
 * chars) one of stretch7, jump2q1, bubbles7, spheres7, jump3q1, bubbles5, layers7, p1tet; build it from N and
 * the rest of the spec after N ("" or ":param"). */
int ng_gen_is_cfd(const char *name, size_t len);
ng_status ng_gen_cfd(const char *spec, size_t len, int64_t N, const char *rest, ng_csr *A, double **b);

#endif /* NG_GENERATE_H */
