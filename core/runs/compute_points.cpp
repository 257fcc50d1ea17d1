// Loss-vs-compute points and their Pareto frontier (see compute_points.h).
#include "core/runs/compute_points.h"

#include <algorithm>
#include <cmath>

namespace mixerlab {

std::vector<ComputePoint> evalLossByCompute(const std::vector<MetricsRecord>& records, double flops_per_token,
                                            const std::string& run) {
  std::vector<ComputePoint> points;
  for (const auto& r : records) {
    if (!r.eval_loss) continue;
    points.push_back({static_cast<double>(r.tokens) * flops_per_token, *r.eval_loss, run});
  }
  return points;
}

std::vector<ComputePoint> paretoFrontier(std::vector<ComputePoint> points) {
  points.erase(std::remove_if(points.begin(), points.end(),
                              [](const ComputePoint& p) { return !(p.flops > 0) || !std::isfinite(p.loss); }),
               points.end());
  std::stable_sort(points.begin(), points.end(), [](const ComputePoint& a, const ComputePoint& b) {
    return a.flops != b.flops ? a.flops < b.flops : a.loss < b.loss;
  });
  std::vector<ComputePoint> frontier;
  for (const auto& p : points) {
    if (frontier.empty() || p.loss < frontier.back().loss) frontier.push_back(p);
  }
  return frontier;
}

}  // namespace mixerlab
