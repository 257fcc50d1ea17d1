// Gradient helpers for the training loop.
#pragma once
#include <vector>

#include <ATen/ATen.h>

namespace mixerlab {

// Drops gradients instead of zero-filling them, so the next backward writes fresh gradient tensors
// (no memset, no accumulate-add). Same numbers as zero_grad().
void clearGradients(const std::vector<at::Tensor>& parameters);

}  // namespace mixerlab
