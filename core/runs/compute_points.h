// Loss against training compute across runs: the points a scaling comparison is made of, and their
// Pareto frontier (the lowest loss reached at or below each compute). Torch-free, so the report and
// the GUI's plot panel use the same definition.
#pragma once
#include <string>
#include <vector>

#include "core/runs/metrics_log.h"

namespace mixerlab {

struct ComputePoint {
  double flops = 0;  // training FLOPs spent so far (tokens x training FLOPs per token)
  double loss = 0;   // eval loss at that point
  std::string run;   // which run it came from (for the report's tables)
};

// The eval-loss records of a run as points: flops = tokens x flops_per_token.
std::vector<ComputePoint> evalLossByCompute(const std::vector<MetricsRecord>& records, double flops_per_token,
                                            const std::string& run);

// The points no other point beats: ascending compute, each with a loss strictly below every point at
// equal or lower compute. Points with non-positive compute or a non-finite loss are left out.
std::vector<ComputePoint> paretoFrontier(std::vector<ComputePoint> points);

}  // namespace mixerlab
