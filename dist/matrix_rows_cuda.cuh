/* dist/matrix_rows_cuda.cuh: row i of a distributed matrix in global
 * column order on the device, from its two blocks (the local block's
 * columns ascending, the off-rank block's halo columns ascending, and the
 * halo columns numbered in global order: the first nlow of them lie below
 * the own columns). The walk is shared by the AMG's extended rows X
 * (amg/amg_dist_aggregate_cuda.cu) and the gather of a matrix onto rank 0
 * (dist/matrix_gather_cuda.cu), which differ only in what they write for an
 * entry: put(p, halo, c, k) is called for the p-th merged entry of the row
 * (p counted from Lrp[i] + Orp[i]) with halo = 0 and c the local column,
 * k the local block's position, or halo = 1 and c the halo column, k the
 * off-rank block's position. Returns 0 when a block's row is not
 * ascending. */
#ifndef NG_MATRIX_ROWS_CUDA_CUH
#define NG_MATRIX_ROWS_CUDA_CUH
#include <stdint.h>

template <class Put>
__device__ inline bool ng_merged_row(int32_t i, int32_t nlow, const int64_t *Lrp, const int32_t *Lcol,
                                     const int64_t *Orp, const int32_t *Ocol, Put put)
{
  int64_t k = Orp ? Orp[i] : 0, ke = Orp ? Orp[i + 1] : 0, p = Lrp[i] + k;
  int32_t prev_o = -1, prev_l = -1;
  bool sorted = true;
  for (; k < ke && Ocol[k] < nlow; k++, p++) {
    sorted &= Ocol[k] > prev_o;
    prev_o = Ocol[k];
    put(p, 1, Ocol[k], k);
  }
  for (int64_t q = Lrp[i]; q < Lrp[i + 1]; q++, p++) {
    sorted &= Lcol[q] > prev_l;
    prev_l = Lcol[q];
    put(p, 0, Lcol[q], q);
  }
  for (; k < ke; k++, p++) {
    sorted &= Ocol[k] > prev_o;
    prev_o = Ocol[k];
    put(p, 1, Ocol[k], k);
  }
  return sorted;
}
#endif
