// Row-wise causal token mixing (see token_mix_rows.h).
#include "core/models/mixers/token_mix_rows.h"

#include <torch/torch.h>

namespace mixerlab {

at::Tensor mixTokenRows(const at::Tensor& weight, const at::Tensor& bias, const at::Tensor& rows, int64_t first) {
  namespace F = torch::nn::functional;
  const int64_t n = rows.size(1), width = rows.size(2), kernel = weight.size(2), count = n - first;
  const int64_t left = (kernel - 1) / 2, right = kernel - 1 - left;
  const at::Tensor padded = kernel > 1 ? F::pad(rows, F::PadFuncOptions({left, right})) : rows;
  at::Tensor y;
  for (int64_t t = 0; t < kernel; ++t) {
    auto w = weight.select(2, t).narrow(0, first, count).narrow(1, 0, n);  // [count, n]
    auto part = torch::matmul(w, padded.narrow(2, t, width));              // [B, count, D]
    y = y.defined() ? y + part : part;
  }
  if (bias.defined()) y = y + bias.narrow(0, first, count).view({1, count, 1});
  return y;
}

}  // namespace mixerlab
