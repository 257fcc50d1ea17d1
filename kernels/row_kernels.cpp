// One-row decoding loops (see row_kernels.h). The matrix-vector product holds four output rows at a
// time, one SIMD accumulator each, so four independent FMA chains stream four weight rows while x
// stays in L1; a decoder step is bound by reading the weights, which this reaches on two cores
// (docs/generation.md). Compiled with -fno-trapping-math so the GELU's compares vectorise.
#include "kernels/row_kernels.h"

#include <cmath>

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include "kernels/environment/compute_paths.h"
#include "kernels/fast_exp.h"

namespace mixerlab::kernels {
namespace {

inline float finish(float dot, const float* bias, const float* add, int64_t o) {
  if (bias != nullptr) dot += bias[o];
  if (add != nullptr) dot += add[o];
  return dot;
}

void matVecGeneric(const float* w, int64_t in, const float* x, const float* bias, const float* add, float* y,
                   int64_t begin, int64_t end) {
  constexpr int64_t kRows = 4, kLanes = 8;
  const int64_t full = in / kLanes * kLanes;
  int64_t o = begin;
  for (; o + kRows <= end; o += kRows) {
    float acc[kRows][kLanes] = {};
    for (int64_t k = 0; k < full; k += kLanes) {
      for (int64_t r = 0; r < kRows; ++r) {
        const float* row = w + (o + r) * in + k;
        for (int64_t l = 0; l < kLanes; ++l) acc[r][l] += row[l] * x[k + l];
      }
    }
    for (int64_t r = 0; r < kRows; ++r) {
      float dot = 0;
      for (int64_t l = 0; l < kLanes; ++l) dot += acc[r][l];
      for (int64_t k = full; k < in; ++k) dot += w[(o + r) * in + k] * x[k];
      y[o + r] = finish(dot, bias, add, o + r);
    }
  }
  for (; o < end; ++o) {
    float dot = 0;
    for (int64_t k = 0; k < in; ++k) dot += w[o * in + k] * x[k];
    y[o] = finish(dot, bias, add, o);
  }
}

#if defined(__x86_64__)
__attribute__((target("avx2,fma"))) inline float sum8(__m256 v) {
  const __m128 half = _mm_add_ps(_mm256_castps256_ps128(v), _mm256_extractf128_ps(v, 1));
  const __m128 pair = _mm_add_ps(half, _mm_movehl_ps(half, half));
  return _mm_cvtss_f32(_mm_add_ss(pair, _mm_shuffle_ps(pair, pair, 1)));
}

__attribute__((target("avx2,fma"))) void matVecAvx2(const float* w, int64_t in, const float* x, const float* bias,
                                                    const float* add, float* y, int64_t begin, int64_t end) {
  const int64_t full = in / 8 * 8;
  int64_t o = begin;
  for (; o + 4 <= end; o += 4) {
    const float* w0 = w + o * in;
    __m256 a0 = _mm256_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    for (int64_t k = 0; k < full; k += 8) {
      const __m256 xv = _mm256_loadu_ps(x + k);
      a0 = _mm256_fmadd_ps(_mm256_loadu_ps(w0 + k), xv, a0);
      a1 = _mm256_fmadd_ps(_mm256_loadu_ps(w0 + in + k), xv, a1);
      a2 = _mm256_fmadd_ps(_mm256_loadu_ps(w0 + 2 * in + k), xv, a2);
      a3 = _mm256_fmadd_ps(_mm256_loadu_ps(w0 + 3 * in + k), xv, a3);
    }
    float dots[4] = {sum8(a0), sum8(a1), sum8(a2), sum8(a3)};
    for (int64_t r = 0; r < 4; ++r) {
      for (int64_t k = full; k < in; ++k) dots[r] += w0[r * in + k] * x[k];
      y[o + r] = finish(dots[r], bias, add, o + r);
    }
  }
  for (; o < end; ++o) {
    const float* row = w + o * in;
    __m256 acc = _mm256_setzero_ps();
    for (int64_t k = 0; k < full; k += 8) acc = _mm256_fmadd_ps(_mm256_loadu_ps(row + k), _mm256_loadu_ps(x + k), acc);
    float dot = sum8(acc);
    for (int64_t k = full; k < in; ++k) dot += row[k] * x[k];
    y[o] = finish(dot, bias, add, o);
  }
}

// The sum of 16 lanes. Written out with a zeroed merge source: GCC 12 warns of an uninitialised
// temporary in _mm512_reduce_add_ps, the unmasked extract and the 512-to-256 cast.
__attribute__((target("avx512f"))) inline float sum16(__m512 v) {
  const __m512d wide = _mm512_castps_pd(v);
  const __m256 lo = _mm256_castpd_ps(_mm512_mask_extractf64x4_pd(_mm256_setzero_pd(), 0xF, wide, 0));
  const __m256 hi = _mm256_castpd_ps(_mm512_mask_extractf64x4_pd(_mm256_setzero_pd(), 0xF, wide, 1));
  const __m256 eight = _mm256_add_ps(lo, hi);
  const __m128 four = _mm_add_ps(_mm256_castps256_ps128(eight), _mm256_extractf128_ps(eight, 1));
  const __m128 two = _mm_add_ps(four, _mm_movehl_ps(four, four));
  return _mm_cvtss_f32(_mm_add_ss(two, _mm_shuffle_ps(two, two, 1)));
}

__attribute__((target("avx512f"))) void matVecAvx512(const float* w, int64_t in, const float* x, const float* bias,
                                                     const float* add, float* y, int64_t begin, int64_t end) {
  const int64_t full = in / 16 * 16;
  const __mmask16 tail = static_cast<__mmask16>((1u << (in - full)) - 1u);  // the last in % 16 columns
  const __m512 x_tail = _mm512_maskz_loadu_ps(tail, x + full);
  int64_t o = begin;
  for (; o + 4 <= end; o += 4) {
    const float* w0 = w + o * in;
    __m512 a0 = _mm512_setzero_ps(), a1 = a0, a2 = a0, a3 = a0;
    for (int64_t k = 0; k < full; k += 16) {
      const __m512 xv = _mm512_loadu_ps(x + k);
      a0 = _mm512_fmadd_ps(_mm512_loadu_ps(w0 + k), xv, a0);
      a1 = _mm512_fmadd_ps(_mm512_loadu_ps(w0 + in + k), xv, a1);
      a2 = _mm512_fmadd_ps(_mm512_loadu_ps(w0 + 2 * in + k), xv, a2);
      a3 = _mm512_fmadd_ps(_mm512_loadu_ps(w0 + 3 * in + k), xv, a3);
    }
    if (tail != 0) {
      a0 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(tail, w0 + full), x_tail, a0);
      a1 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(tail, w0 + in + full), x_tail, a1);
      a2 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(tail, w0 + 2 * in + full), x_tail, a2);
      a3 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(tail, w0 + 3 * in + full), x_tail, a3);
    }
    y[o] = finish(sum16(a0), bias, add, o);
    y[o + 1] = finish(sum16(a1), bias, add, o + 1);
    y[o + 2] = finish(sum16(a2), bias, add, o + 2);
    y[o + 3] = finish(sum16(a3), bias, add, o + 3);
  }
  for (; o < end; ++o) {
    const float* row = w + o * in;
    __m512 acc = _mm512_setzero_ps();
    for (int64_t k = 0; k < full; k += 16) acc = _mm512_fmadd_ps(_mm512_loadu_ps(row + k), _mm512_loadu_ps(x + k), acc);
    if (tail != 0) acc = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(tail, row + full), x_tail, acc);
    y[o] = finish(sum16(acc), bias, add, o);
  }
}
#endif

}  // namespace

RowSimd activeRowSimd() { return activeComputePaths().row_simd.value_or(widestRowSimd()); }

void rowMatVec(const float* weight, int64_t in, const float* x, const float* bias, const float* add, float* y,
               int64_t begin, int64_t end, RowSimd simd) {
#if defined(__x86_64__)
  if (simd == RowSimd::kAvx512) return matVecAvx512(weight, in, x, bias, add, y, begin, end);
  if (simd == RowSimd::kAvx2) return matVecAvx2(weight, in, x, bias, add, y, begin, end);
#endif
  matVecGeneric(weight, in, x, bias, add, y, begin, end);
}

void weightedRowSum(const float* coefficient, int64_t coefficient_stride, const float* rows, int64_t row_stride,
                    int64_t count, float* out, int64_t d_begin, int64_t d_end) {
  float* __restrict o = out + d_begin;
  const int64_t width = d_end - d_begin;
  for (int64_t d = 0; d < width; ++d) o[d] = 0.0f;
  for (int64_t j = 0; j < count; ++j) {
    const float c = coefficient[j * coefficient_stride];
    const float* __restrict row = rows + j * row_stride + d_begin;
    for (int64_t d = 0; d < width; ++d) o[d] += c * row[d];
  }
}

void addScaledRow(const float* coefficient, int64_t coefficient_stride, const float* row, int64_t width, float* sums,
                  int64_t begin, int64_t end) {
  for (int64_t i = begin; i < end; ++i) {
    const float c = coefficient[i * coefficient_stride];
    float* __restrict s = sums + i * width;
    const float* __restrict r = row;
    for (int64_t d = 0; d < width; ++d) s[d] += c * r[d];
  }
}

void layerNormRow(const float* x, int64_t width, const float* weight, const float* bias, double eps, float* out) {
  double total = 0;
  for (int64_t d = 0; d < width; ++d) total += x[d];
  const double mean = total / static_cast<double>(width);
  double squares = 0;  // two passes: no cancellation in the variance
  for (int64_t d = 0; d < width; ++d) squares += (x[d] - mean) * (x[d] - mean);
  const double rstd = 1.0 / std::sqrt(squares / static_cast<double>(width) + eps);
  for (int64_t d = 0; d < width; ++d) {
    float v = static_cast<float>((x[d] - mean) * rstd);
    if (weight != nullptr) v *= weight[d];
    if (bias != nullptr) v += bias[d];
    out[d] = v;
  }
}

void geluInPlace(float* x, int64_t begin, int64_t end) {
  // erf by Abramowitz & Stegun 7.1.26 (absolute error below 1.5e-7): for z >= 0,
  // erf(z) = 1 - t (a1 + t (a2 + t (a3 + t (a4 + t a5)))) exp(-z^2), t = 1 / (1 + p z).
  const float p = 0.3275911f, a1 = 0.254829592f, a2 = -0.284496736f, a3 = 1.421413741f, a4 = -1.453152027f,
              a5 = 1.061405429f;
  float* __restrict v = x;
  for (int64_t i = begin; i < end; ++i) {
    const float value = v[i];
    const float z = std::fabs(value) * 0.70710678118654752f;
    const float t = 1.0f / (1.0f + p * z);
    const float poly = t * (a1 + t * (a2 + t * (a3 + t * (a4 + t * a5))));
    const float erf_abs = 1.0f - poly * fastExp(-z * z);
    const float erf = value >= 0.0f ? erf_abs : -erf_abs;
    v[i] = 0.5f * value * (1.0f + erf);
  }
}

}  // namespace mixerlab::kernels
