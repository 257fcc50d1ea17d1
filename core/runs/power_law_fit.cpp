// Least-squares fit of loss = a * C^-b + c (see power_law_fit.h). Compute is scaled by its geometric
// mean C0 while fitting (x = C / C0, loss = a' x^-b + c), which keeps the normal equations well
// conditioned; a = a' C0^b afterwards.
#include "core/runs/power_law_fit.h"

#include <array>
#include <cmath>
#include <limits>

namespace mixerlab {
namespace {

struct LinearPart {
  double a = 0, c = 0, rss = std::numeric_limits<double>::infinity();
};

// For a fixed exponent the model is linear in (a', c): ordinary least squares in closed form.
LinearPart fitForExponent(const std::vector<double>& x, const std::vector<double>& y, double b) {
  const double n = static_cast<double>(x.size());
  double su = 0, sy = 0, suu = 0, suy = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double u = std::pow(x[i], -b);
    su += u;
    sy += y[i];
    suu += u * u;
    suy += u * y[i];
  }
  LinearPart part;
  const double det = n * suu - su * su;
  if (!(std::abs(det) > 1e-300)) return part;
  part.a = (n * suy - su * sy) / det;
  part.c = (sy - part.a * su) / n;
  part.rss = 0;
  for (size_t i = 0; i < x.size(); ++i) {
    const double r = y[i] - (part.a * std::pow(x[i], -b) + part.c);
    part.rss += r * r;
  }
  return part;
}

using Matrix3 = std::array<std::array<double, 3>, 3>;

bool invert3(const Matrix3& m, Matrix3& inv) {
  const double det = m[0][0] * (m[1][1] * m[2][2] - m[1][2] * m[2][1]) -
                     m[0][1] * (m[1][0] * m[2][2] - m[1][2] * m[2][0]) +
                     m[0][2] * (m[1][0] * m[2][1] - m[1][1] * m[2][0]);
  if (!(std::abs(det) > 1e-300)) return false;
  for (int r = 0; r < 3; ++r) {
    for (int c = 0; c < 3; ++c) {
      // inverse = adjugate / det: the cofactor of (c, r)
      const int r1 = (c + 1) % 3, r2 = (c + 2) % 3, c1 = (r + 1) % 3, c2 = (r + 2) % 3;
      inv[r][c] = (m[r1][c1] * m[r2][c2] - m[r1][c2] * m[r2][c1]) / det;
    }
  }
  return true;
}

}  // namespace

double PowerLawFit::predict(double flops) const { return a * std::pow(flops, -b) + c; }

PowerLawFit fitPowerLaw(const std::vector<ComputePoint>& points) {
  PowerLawFit fit;
  std::vector<double> x, y;
  double log_sum = 0;
  for (const auto& p : points) {
    if (!(p.flops > 0) || !std::isfinite(p.loss)) continue;
    x.push_back(p.flops);
    y.push_back(p.loss);
    log_sum += std::log(p.flops);
  }
  fit.points = x.size();
  if (x.size() < kPowerLawMinPoints) {
    // Three points fit a*C^-b + c exactly (rmse 0): such a "fit" has no standard errors and says
    // nothing about how well a power law describes the runs.
    fit.problem = "a power law (3 parameters) needs at least " + std::to_string(kPowerLawMinPoints) +
                  " frontier points with positive compute, one more than its parameters so its errors can be "
                  "estimated; got " +
                  std::to_string(x.size());
    return fit;
  }
  const double c0 = std::exp(log_sum / static_cast<double>(x.size()));
  bool distinct = false;
  for (auto& v : x) {
    v /= c0;
    distinct = distinct || std::abs(v - x.front()) > 1e-12 * std::abs(x.front());
  }
  if (!distinct) {
    fit.problem = "every point has the same compute";
    return fit;
  }
  // Scan the exponent, then refine the best cell by golden-section search.
  constexpr double kStep = 0.01, kMaxExponent = 4.0;
  double best_b = kStep;
  double best_rss = std::numeric_limits<double>::infinity();
  for (double b = kStep; b <= kMaxExponent + 1e-12; b += kStep) {
    const double rss = fitForExponent(x, y, b).rss;
    if (rss < best_rss) {
      best_rss = rss;
      best_b = b;
    }
  }
  double lo = std::max(1e-6, best_b - kStep), hi = best_b + kStep;
  const double golden = (std::sqrt(5.0) - 1) / 2;
  for (int i = 0; i < 80; ++i) {
    const double m1 = hi - golden * (hi - lo), m2 = lo + golden * (hi - lo);
    if (fitForExponent(x, y, m1).rss < fitForExponent(x, y, m2).rss) {
      hi = m2;
    } else {
      lo = m1;
    }
  }
  const double b = (lo + hi) / 2;
  const LinearPart part = fitForExponent(x, y, b);
  if (!(part.a > 0)) {
    fit.problem = "the loss does not fall with compute (no positive power-law term fits)";
    return fit;
  }
  fit.ok = true;
  fit.b = b;
  fit.c = part.c;
  fit.a = part.a * std::pow(c0, b);
  fit.rmse = std::sqrt(part.rss / static_cast<double>(x.size()));
  const double nan = std::numeric_limits<double>::quiet_NaN();
  fit.a_std = fit.b_std = fit.c_std = nan;
  if (x.size() <= 3) return fit;
  // Covariance of (a', b, c): s^2 (J^T J)^-1 with J_i = d loss_i / d(a', b, c).
  Matrix3 jtj{};
  for (size_t i = 0; i < x.size(); ++i) {
    const double u = std::pow(x[i], -b);
    const std::array<double, 3> j{u, -part.a * std::log(x[i]) * u, 1.0};
    for (int r = 0; r < 3; ++r)
      for (int c = 0; c < 3; ++c) jtj[r][c] += j[r] * j[c];
  }
  Matrix3 inv{};
  if (!invert3(jtj, inv)) return fit;
  const double s2 = part.rss / static_cast<double>(x.size() - 3);
  fit.b_std = std::sqrt(std::max(0.0, s2 * inv[1][1]));
  fit.c_std = std::sqrt(std::max(0.0, s2 * inv[2][2]));
  // a = a' c0^b: gradient (c0^b, a' c0^b ln c0) over (a', b).
  const double g0 = std::pow(c0, b), g1 = part.a * g0 * std::log(c0);
  const double var_a = s2 * (g0 * g0 * inv[0][0] + 2 * g0 * g1 * inv[0][1] + g1 * g1 * inv[1][1]);
  fit.a_std = std::sqrt(std::max(0.0, var_a));
  return fit;
}

}  // namespace mixerlab
