// The rows of a causal token-mixing product, computed for just the positions a decoder needs: the
// incremental decoders of masked mixers and the Transfixer call it with the one new row, their
// prefill with every prompt row. Same arithmetic as MaskedTokenConv::forward on the applied weight.
#pragma once
#include <ATen/core/Tensor.h>

namespace mixerlab {

// weight: the applied [T_out, T_in, k] weight (already masked / normalised, e.g. appliedWeight());
// bias: [T_out] or undefined; rows: the mixing input [B, n, D] of positions 0..n-1. Returns output
// rows first..n-1, [B, n-first, D]. Taps t > 0 read feature f + t - (k-1)/2 ('same' padding on D).
at::Tensor mixTokenRows(const at::Tensor& weight, const at::Tensor& bias, const at::Tensor& rows, int64_t first);

}  // namespace mixerlab
