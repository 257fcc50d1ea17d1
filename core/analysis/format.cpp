// The shared number formatter (see format.h).
#include "core/analysis/format.h"

#include <cmath>
#include <cstdio>
#include <vector>

namespace mixerlab {
namespace {

// Three significant digits in fixed notation, stepping through `units` by `step`.
std::string scaled(double value, const std::vector<std::string>& units, double step) {
  size_t i = 0;
  while (std::fabs(value) >= 1000.0 && i + 1 < units.size()) {
    value /= step;
    ++i;
  }
  const double a = std::fabs(value);
  const int decimals = i == 0 && std::floor(value) == value ? 0 : a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", decimals, value);
  std::string out = buf;
  if (!units[i].empty()) out += " " + units[i];
  return out;
}

}  // namespace

std::string formatCount(double count) {
  const long long n = std::llround(count);
  std::string digits = std::to_string(n < 0 ? -n : n);
  std::string out;
  for (size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return n < 0 ? "-" + out : out;
}

std::string formatFlops(double flops) {
  return scaled(flops, {"FLOP", "KFLOP", "MFLOP", "GFLOP", "TFLOP", "PFLOP", "EFLOP"}, 1000.0);
}

std::string formatBytes(double bytes) { return scaled(bytes, {"B", "KiB", "MiB", "GiB", "TiB", "PiB"}, 1024.0); }

std::string formatMetric(double value, const std::string& unit) {
  std::vector<std::string> units;
  for (const char* prefix : {"", "K", "M", "G", "T", "P"}) units.push_back(prefix + unit);
  return scaled(value, units, 1000.0);
}

std::string formatDuration(double seconds) {
  const long s = static_cast<long>(seconds < 0 ? 0 : seconds + 0.5);
  char buf[32];
  if (s >= 3600) {
    std::snprintf(buf, sizeof buf, "%ld:%02ld:%02ld", s / 3600, (s / 60) % 60, s % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%ld:%02ld", s / 60, s % 60);
  }
  return buf;
}

std::string formatLoss(double loss) {
  if (!std::isfinite(loss)) return "n/a";
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.4f", loss);
  return buf;
}

}  // namespace mixerlab
