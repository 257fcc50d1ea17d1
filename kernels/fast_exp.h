// fastExp: an fp32 exp without calls or branches, so loops over it vectorise (the fused selective
// scan's decays, the decoders' GELU). Cephes-style: round k = x / ln 2, a degree-6 polynomial of
// the remainder, then scale by 2^k through the exponent bits. About 2 ulp; 0 below -87.3 (where
// expf is subnormal or 0); clamped at 88.3. Files that loop over it compile with
// -fno-trapping-math (kernels/CMakeLists.txt), which lets GCC vectorise the compares.
#pragma once

#include <algorithm>
#include <cstdint>
#include <cstring>

namespace mixerlab::kernels {

inline float fastExp(float x) {
  const float lo = -87.3f, hi = 88.3f;
  const float xc = std::min(std::max(x, lo), hi);
  const float round_magic = 12582912.0f;  // 1.5 * 2^23: adding it rounds to an integer
  const float k = (xc * 1.44269504088896341f + round_magic) - round_magic;
  const float r = (xc - k * 0.693359375f) + k * 2.12194440e-4f;  // xc - k*ln2 in two parts
  float p = 1.9875691500e-4f;
  p = p * r + 1.3981999507e-3f;
  p = p * r + 8.3334519073e-3f;
  p = p * r + 4.1665795894e-2f;
  p = p * r + 1.6666665459e-1f;
  p = p * r + 5.0000001201e-1f;
  const float e_r = p * r * r + r + 1.0f;
  const int32_t bits = (static_cast<int32_t>(k) + 127) << 23;
  float scale;
  std::memcpy(&scale, &bits, sizeof scale);
  const float keep = x >= lo ? 1.0f : 0.0f;  // a select of constants: stays vectorisable
  return e_r * scale * keep;
}

}  // namespace mixerlab::kernels
