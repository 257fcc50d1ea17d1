// Gradient helpers (see gradients.h).
#include "core/train/gradients.h"

namespace mixerlab {

void clearGradients(const std::vector<at::Tensor>& parameters) {
  for (auto p : parameters) {
    if (p.grad().defined()) p.mutable_grad() = at::Tensor();
  }
}

}  // namespace mixerlab
