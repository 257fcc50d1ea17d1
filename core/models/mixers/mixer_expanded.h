// The expanded ("ConvForward") token mixing (docs/architectures.md): Conv1d(T, eT, 1) -> GELU ->
// Conv1d(eT, T, 1), each weight masked with tril on its [out, in] matrix. With e >= 2 conv1 keeps
// rows i >= T fully, but conv2's row i < T reads only channels j <= i < T, so intermediate channels
// T..eT-1 are dead (paper Fig. S1); this is reproduced, not optimised away.
// Registered as the block's "conv" with children "0" and "2" (names conv.0.*, conv.2.*).
#pragma once
#include <torch/nn/module.h>

namespace mixerlab {

// A k=1 Conv1d over the token axis with a rectangular tril mask on its [out, in] matrix.
// Weight [out, in, 1], bias [out] (optional).
class RectMaskedConvImpl : public torch::nn::Module {
 public:
  RectMaskedConvImpl(int64_t in_tokens, int64_t out_tokens, bool bias, bool inplace_mask);
  // x [B, L_in, D] (L_in <= in_tokens) -> [B, out_rows, D], out_rows <= out_tokens (leading rows).
  at::Tensor forward(const at::Tensor& x, int64_t out_rows);
  at::Tensor maskedWeight() const;
  void zeroMaskedEntries();
  at::Tensor weight, bias;

 private:
  bool inplace_mask_;
};
TORCH_MODULE(RectMaskedConv);

class ExpandedTokenMixImpl : public torch::nn::Module {
 public:
  ExpandedTokenMixImpl(int64_t context_length, int64_t expansion, bool bias, bool inplace_mask);
  at::Tensor forward(const at::Tensor& x);        // [B, L, D] -> [B, L, D]
  RectMaskedConv conv0{nullptr}, conv2{nullptr};  // registered as "0" and "2"

 private:
  int64_t hidden_tokens_;
};
TORCH_MODULE(ExpandedTokenMix);

}  // namespace mixerlab
