// A saturating power law of loss in compute, loss = a * C^-b + c, fitted by least squares, with the
// parameters' standard errors: how a family's loss falls with compute and where it levels off.
// Torch-free (the report and the GUI both fit).
#pragma once
#include <cstddef>
#include <string>
#include <vector>

#include "core/runs/compute_points.h"

namespace mixerlab {

struct PowerLawFit {
  bool ok = false;
  std::string problem;  // why there is no fit (too few points, no decrease, ...)
  double a = 0, b = 0, c = 0;
  // Standard errors from the fit's covariance (residual variance x (J^T J)^-1, the delta method for
  // a), with points - 3 residual degrees of freedom.
  double a_std = 0, b_std = 0, c_std = 0;
  double rmse = 0;  // root mean squared residual, in loss units
  size_t points = 0;
  double predict(double flops) const;
};

// More points than the law's 3 parameters: with exactly 3 the curve passes through every point.
inline constexpr size_t kPowerLawMinPoints = 4;

// Needs at least kPowerLawMinPoints points with positive compute and at least two distinct compute values. The
// exponent b is searched over (0, 4]: for each b the fit is linear in (a, c), so a scan plus a
// golden-section refinement finds the global least-squares b.
PowerLawFit fitPowerLaw(const std::vector<ComputePoint>& points);

}  // namespace mixerlab
