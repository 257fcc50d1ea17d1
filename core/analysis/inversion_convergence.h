// Whether a representation inversion had settled when it stopped (a 200-step
// inversion that was still descending gave no hint, and its Hamming distance read as a finding).
#pragma once
#include <vector>

namespace mixerlab {

// True when the descent was still improving at its end: over the last fifth of its steps (at least
// one) the summed L1 fell by more than `tolerance` of its value there. More iterations would then
// likely recover more tokens, so the Hamming distance overstates what the layer lost.
bool inversionStillImproving(const std::vector<double>& loss_curve, double final_loss, double tolerance = 0.01);

}  // namespace mixerlab
