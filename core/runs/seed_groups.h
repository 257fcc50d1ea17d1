// Runs that differ only in their seed belong together: a reader wants their mean and spread, not
// three unrelated curves. This file groups run configs by everything but the seed and summarises
// values and curves over a group. Torch-free (the report and the GUI share it).
#pragma once
#include <cstddef>
#include <string>
#include <utility>
#include <vector>

#include "core/config/project_config.h"

namespace mixerlab {

struct Spread {
  size_t count = 0;
  double mean = 0;
  double std = 0;  // sample standard deviation (n - 1); 0 for a single value
  double min = 0, max = 0;
};
Spread spreadOf(const std::vector<double>& values);

// "mixer-d256-seed2" -> "mixer-d256": a run name without a trailing "-seed<N>", "_seed<N>" or "-s<N>".
std::string withoutSeedSuffix(const std::string& name);

// What identifies the experiment: the run config without its name, train.seed and the settings of
// how it was executed (executionSettingKeys: device, threads), as canonical JSON text.
std::string seedGroupKey(const RunConfig& run);

struct SeedGroup {
  std::string label;            // the members' common name with a trailing "-seed<N>"/"-s<N>" removed
  std::vector<size_t> members;  // indices into the input, in input order
};
// Groups in order of first appearance.
std::vector<SeedGroup> groupBySeed(const std::vector<RunConfig>& runs);

// A group's curves (x ascending in each) summarised on the first member's x values inside the range
// every member covers: mean and min/max of the members' values (linear interpolation between points).
struct CurveBand {
  std::vector<double> x, mean, low, high;
};
using Curve = std::vector<std::pair<double, double>>;
CurveBand bandOf(const std::vector<Curve>& curves);

}  // namespace mixerlab
