// The compute-path table and the process's active paths (see compute_paths.h).
#include "kernels/environment/compute_paths.h"

#include <mutex>
#include <stdexcept>

namespace mixerlab::kernels {
namespace {

// Names of an enum's values, in enumerator order.
template <typename Enum, size_t N>
std::string nameOf(Enum value, const std::array<const char*, N>& names) {
  return names.at(static_cast<size_t>(value));
}
template <typename Enum, size_t N>
std::optional<Enum> valueOf(const std::string& name, const std::array<const char*, N>& names) {
  for (size_t i = 0; i < N; ++i) {
    if (name == names[i]) return static_cast<Enum>(i);
  }
  return std::nullopt;
}

constexpr std::array<const char*, 3> kTokenMixNames{"auto", "gemm", "custom"};
constexpr std::array<const char*, 3> kMixerStackNames{"modules", "token_major", "fused"};
constexpr std::array<const char*, 2> kScanForwardNames{"thread", "lanes"};
constexpr std::array<const char*, 3> kRowSimdNames{"generic", "avx2", "avx512"};
constexpr std::array<const char*, 2> kDecodeStepNames{"fused", "aten"};
constexpr std::array<const char*, 3> kOptimizerNames{"auto", "foreach", "library"};
constexpr const char* kAutomatic = "auto";

std::string joinValues(const std::vector<std::string>& values) {
  std::string text;
  for (size_t i = 0; i < values.size(); ++i) {
    text += (i == 0 ? "" : i + 1 == values.size() ? " or " : ", ") + values[i];
  }
  return text;
}

std::string expectedText(const ComputePathSetting& setting) {
  std::string text = joinValues(setting.values);
  if (setting.variable == EnvironmentVariable::kRowSimd) {
    text += " (a set this CPU supports; auto: the widest here, " + rowSimdName(widestRowSimd()) + ")";
  }
  return text;
}

// A setting over an enum field whose names are `names` in enumerator order; its values are those
// names with the default's first.
template <typename Enum, size_t N>
ComputePathSetting enumSetting(const char* key, EnvironmentVariable variable, Enum ComputePaths::*field,
                               const std::array<const char*, N>& names) {
  std::vector<std::string> values{nameOf(ComputePaths{}.*field, names)};
  for (const char* name : names) {
    if (name != values.front()) values.emplace_back(name);
  }
  return {key, variable, std::move(values), [field, &names](const ComputePaths& p) { return nameOf(p.*field, names); },
          [field, &names](ComputePaths& p, const std::string& v) {
            const auto parsed = valueOf<Enum>(v, names);
            if (parsed) p.*field = *parsed;
            return parsed.has_value();
          }};
}

// A setting over an optional enum field: "auto" is nullopt; `accept` may refuse a parsed value.
template <typename Enum, size_t N>
ComputePathSetting automaticSetting(const char* key, EnvironmentVariable variable,
                                    std::optional<Enum> ComputePaths::*field, const std::array<const char*, N>& names,
                                    bool (*accept)(Enum)) {
  std::vector<std::string> values{kAutomatic};
  values.insert(values.end(), names.begin(), names.end());
  return {key, variable, std::move(values),
          [field, &names](const ComputePaths& p) {
            return p.*field ? nameOf(*(p.*field), names) : std::string(kAutomatic);
          },
          [field, &names, accept](ComputePaths& p, const std::string& v) {
            if (v == kAutomatic) {
              (p.*field).reset();
              return true;
            }
            const auto parsed = valueOf<Enum>(v, names);
            if (!parsed || !accept(*parsed)) return false;
            p.*field = parsed;
            return true;
          }};
}

bool anyStackPath(MixerStackPath) { return true; }

std::vector<ComputePathSetting> buildSettings() {
  return {
      enumSetting("token_mix", EnvironmentVariable::kTokenMix, &ComputePaths::token_mix, kTokenMixNames),
      automaticSetting("mixer_stack", EnvironmentVariable::kMixerStack, &ComputePaths::mixer_stack, kMixerStackNames,
                       anyStackPath),
      enumSetting("scan_forward", EnvironmentVariable::kScanForward, &ComputePaths::scan_forward, kScanForwardNames),
      automaticSetting("row_simd", EnvironmentVariable::kRowSimd, &ComputePaths::row_simd, kRowSimdNames,
                       rowSimdSupported),
      enumSetting("decode_step", EnvironmentVariable::kDecodeStep, &ComputePaths::decode_step, kDecodeStepNames),
      {"decode_graphs",
       EnvironmentVariable::kDecodeGraphs,
       {"off", "on"},
       [](const ComputePaths& p) { return std::string(p.decode_graphs ? "on" : "off"); },
       [](ComputePaths& p, const std::string& v) {
         if (v != "on" && v != "off") return false;
         p.decode_graphs = v == "on";
         return true;
       }},
      enumSetting("optimizer", EnvironmentVariable::kOptimizer, &ComputePaths::optimizer, kOptimizerNames),
  };
}

struct ActivePaths {
  std::mutex mutex;
  std::optional<ComputePaths> paths;
};
ActivePaths& activePaths() {
  static ActivePaths active;
  return active;
}

}  // namespace

// Through the table, so a new setting is compared without being listed here.
bool ComputePaths::operator==(const ComputePaths& other) const {
  return computePathValues(*this) == computePathValues(other);
}

const std::vector<ComputePathSetting>& computePathSettings() {
  static const std::vector<ComputePathSetting> settings = buildSettings();
  return settings;
}

ComputePaths computePathsFromEnvironment() {
  ComputePaths paths;
  for (const ComputePathSetting& setting : computePathSettings()) {
    const auto value = environmentValue(setting.variable);
    if (!value || setting.set(paths, *value)) continue;
    throw std::invalid_argument(std::string(environmentVariableName(setting.variable)) + "=\"" + *value +
                                "\": expected " + expectedText(setting) + " (unset it for " + setting.values[0] + ")");
  }
  return paths;
}

void applyComputePath(ComputePaths& paths, const std::string& key_equals_value) {
  const auto equals = key_equals_value.find('=');
  const std::string key = key_equals_value.substr(0, equals);
  std::string keys;
  for (const ComputePathSetting& setting : computePathSettings()) {
    keys += (keys.empty() ? "" : ", ") + std::string(setting.key);
    if (key != setting.key) continue;
    const std::string value = equals == std::string::npos ? "" : key_equals_value.substr(equals + 1);
    if (setting.set(paths, value)) return;
    throw std::invalid_argument("compute path " + key + "=\"" + value + "\": expected " + expectedText(setting));
  }
  throw std::invalid_argument("unknown compute path \"" + key_equals_value + "\": expected key=value with a key of " +
                              keys);
}

std::vector<std::pair<std::string, std::string>> computePathValues(const ComputePaths& paths) {
  std::vector<std::pair<std::string, std::string>> values;
  for (const ComputePathSetting& setting : computePathSettings()) values.emplace_back(setting.key, setting.get(paths));
  return values;
}

std::string describeComputePaths(const ComputePaths& paths) {
  std::string text;
  for (const auto& [key, value] : computePathValues(paths)) text += (text.empty() ? "" : " ") + key + "=" + value;
  return text;
}

ComputePaths activeComputePaths() {
  ActivePaths& active = activePaths();
  std::lock_guard<std::mutex> lock(active.mutex);
  if (!active.paths) active.paths = computePathsFromEnvironment();
  return *active.paths;
}

void setActiveComputePaths(const ComputePaths& paths) {
  ActivePaths& active = activePaths();
  std::lock_guard<std::mutex> lock(active.mutex);
  active.paths = paths;
}

ScopedComputePaths::ScopedComputePaths(const ComputePaths& paths) : previous_(activeComputePaths()) {
  setActiveComputePaths(paths);
}
ScopedComputePaths::~ScopedComputePaths() { setActiveComputePaths(previous_); }

std::string rowSimdName(RowSimd simd) { return nameOf(simd, kRowSimdNames); }
std::optional<RowSimd> parseRowSimd(const std::string& name) { return valueOf<RowSimd>(name, kRowSimdNames); }

bool rowSimdSupported(RowSimd simd) {
#if defined(__x86_64__)
  if (simd == RowSimd::kAvx512) return __builtin_cpu_supports("avx512f");
  if (simd == RowSimd::kAvx2) return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
#endif
  return simd == RowSimd::kGeneric;
}

RowSimd widestRowSimd() {
  if (rowSimdSupported(RowSimd::kAvx512)) return RowSimd::kAvx512;
  if (rowSimdSupported(RowSimd::kAvx2)) return RowSimd::kAvx2;
  return RowSimd::kGeneric;
}

std::string mixerStackPathName(MixerStackPath path) { return nameOf(path, kMixerStackNames); }
std::optional<MixerStackPath> parseMixerStackPath(const std::string& name) {
  return valueOf<MixerStackPath>(name, kMixerStackNames);
}
std::optional<ScanForwardKernel> parseScanForwardKernel(const std::string& name) {
  return valueOf<ScanForwardKernel>(name, kScanForwardNames);
}

}  // namespace mixerlab::kernels
