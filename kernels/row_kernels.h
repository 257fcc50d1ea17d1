// Raw fp32 loops for decoding one row at a time on the CPU: a matrix-vector product over a range of
// output rows, the weighted sum of cached rows and the rank-1 update of running sums that a causal
// token mix needs for one new position, LayerNorm of one row and an exact-form GELU. A decoder step
// calls them on plain pointers from a PhaseTeam (phase_team.h), each thread on its own range, so no
// ATen dispatch, allocation or BLAS thread hand-off happens inside a step.
//
// The matrix-vector product is written three times (AVX-512, AVX2+FMA, plain C++) and picked at run
// time from what the CPU supports; ComputePaths::row_simd (MIXERLAB_ROW_SIMD) forces one. The other loops are plain
// C++ that the compiler vectorises. Results match ATen's to rounding (float accumulation in another
// order; the GELU's erf to ~1.5e-7 absolute).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "kernels/environment/compute_paths.h"

namespace mixerlab::kernels {

// The variant rowMatVec uses: the active compute paths' row_simd, else the widest the CPU supports.
RowSimd activeRowSimd();

// y[o] = bias[o] + sum_k weight[o * in + k] * x[k] (+ add[o]) for o in [begin, end). bias and add
// may be null. weight is row-major [out, in].
// Pass activeRowSimd() read once on the calling thread.
void rowMatVec(const float* weight, int64_t in, const float* x, const float* bias, const float* add, float* y,
               int64_t begin, int64_t end, RowSimd simd);

// out[d] = sum_{j < count} coefficient[j * coefficient_stride] * rows[j * row_stride + d] for d in
// [d_begin, d_end): a causal token mix pulling one output row from the rows so far.
void weightedRowSum(const float* coefficient, int64_t coefficient_stride, const float* rows, int64_t row_stride,
                    int64_t count, float* out, int64_t d_begin, int64_t d_end);

// sums[i * width + d] += coefficient[i * coefficient_stride] * row[d] for i in [begin, end): one new
// row pushed into the running sums of later positions.
void addScaledRow(const float* coefficient, int64_t coefficient_stride, const float* row, int64_t width, float* sums,
                  int64_t begin, int64_t end);

// out = (x - mean) / sqrt(var + eps) * weight + bias over `width` values (biased variance, as
// torch.nn.LayerNorm; weight / bias may be null). Mean and variance accumulate in double.
void layerNormRow(const float* x, int64_t width, const float* weight, const float* bias, double eps, float* out);

// x = x * Phi(x) = 0.5 x (1 + erf(x / sqrt 2)) in place, over [begin, end) (GELU, approximate="none").
void geluInPlace(float* x, int64_t begin, int64_t end);

}  // namespace mixerlab::kernels
