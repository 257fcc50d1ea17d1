// Grouping runs by everything but their seed, and a group's spread (see seed_groups.h).
#include "core/runs/seed_groups.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <regex>

namespace mixerlab {

Spread spreadOf(const std::vector<double>& values) {
  Spread s;
  s.count = values.size();
  if (values.empty()) return s;
  s.min = *std::min_element(values.begin(), values.end());
  s.max = *std::max_element(values.begin(), values.end());
  double sum = 0;
  for (double v : values) sum += v;
  s.mean = sum / static_cast<double>(values.size());
  if (values.size() > 1) {
    double squares = 0;
    for (double v : values) squares += (v - s.mean) * (v - s.mean);
    s.std = std::sqrt(squares / static_cast<double>(values.size() - 1));
  }
  return s;
}

std::string seedGroupKey(const RunConfig& run) {
  nlohmann::json j = run.toJson();
  j.erase("name");
  if (j.contains("train") && j["train"].is_object()) {
    j["train"].erase("seed");
    for (const std::string& key : executionSettingKeys()) j["train"].erase(key.substr(key.find('.') + 1));
  }
  return j.dump();  // nlohmann's objects are ordered by key: the text is canonical
}

std::string withoutSeedSuffix(const std::string& name) {
  static const std::regex suffix("(.*?)[-_](seed|s)[0-9]+$");
  std::smatch m;
  return std::regex_match(name, m, suffix) ? m[1].str() : name;
}

namespace {
double valueAt(const Curve& curve, double x) {
  auto it = std::lower_bound(curve.begin(), curve.end(), x,
                             [](const std::pair<double, double>& p, double v) { return p.first < v; });
  if (it == curve.end()) return curve.back().second;
  if (it->first == x || it == curve.begin()) return it->second;
  const auto& hi = *it;
  const auto& lo = *(it - 1);
  return lo.second + (hi.second - lo.second) * (x - lo.first) / (hi.first - lo.first);
}
}  // namespace

std::vector<SeedGroup> groupBySeed(const std::vector<RunConfig>& runs) {
  std::vector<SeedGroup> groups;
  std::map<std::string, size_t> by_key;
  for (size_t i = 0; i < runs.size(); ++i) {
    const std::string key = seedGroupKey(runs[i]);
    auto [it, added] = by_key.emplace(key, groups.size());
    if (added) groups.push_back({withoutSeedSuffix(runs[i].name), {}});
    groups[it->second].members.push_back(i);
  }
  return groups;
}

CurveBand bandOf(const std::vector<Curve>& curves) {
  CurveBand band;
  if (curves.empty() || curves.front().empty()) return band;
  double lo = -INFINITY, hi = INFINITY;
  for (const auto& c : curves) {
    if (c.empty()) return band;
    lo = std::max(lo, c.front().first);
    hi = std::min(hi, c.back().first);
  }
  for (const auto& [x, unused] : curves.front()) {
    if (x < lo || x > hi) continue;
    std::vector<double> values;
    for (const auto& c : curves) values.push_back(valueAt(c, x));
    const Spread s = spreadOf(values);
    band.x.push_back(x);
    band.mean.push_back(s.mean);
    band.low.push_back(s.min);
    band.high.push_back(s.max);
  }
  return band;
}

}  // namespace mixerlab
