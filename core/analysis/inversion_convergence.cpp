// See inversion_convergence.h.
#include "core/analysis/inversion_convergence.h"

#include <algorithm>

namespace mixerlab {

bool inversionStillImproving(const std::vector<double>& loss_curve, double final_loss, double tolerance) {
  if (loss_curve.empty()) return false;
  const size_t window = std::max<size_t>(1, loss_curve.size() / 5);
  const double before = loss_curve[loss_curve.size() - window];
  return before > 0 && (before - final_loss) / before > tolerance;
}

}  // namespace mixerlab
