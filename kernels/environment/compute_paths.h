// ComputePaths: every choice between code paths that compute the same function, in one struct: the
// kernels' A/B switches, the masked mixer's block stack, the decoders' steps and the optimizer. A
// process parses it once from its environment (the MIXERLAB_* variables of the table below,
// documented in docs/compute-paths.md), the CLI may override entries with --compute-path, run.json
// and bench output record it, and the code that branches reads activeComputePaths(). Tests and
// benchmarks set the struct (ScopedComputePaths), never the variables. Torch-free.
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "kernels/environment/process_environment.h"

namespace mixerlab::kernels {

// The causal token mix: the custom op, or one GEMM on the masked weight (kAuto: the GEMM for
// half-precision products on a GPU, the custom op otherwise; masked_token_mix.h).
enum class TokenMixPath { kAuto, kGemm, kCustom };
// The flat masked mixer's block stack (core/models/mixers/mixer_stack_path.h).
enum class MixerStackPath { kModules, kTokenMajor, kFused };
// The CUDA selective scan's forward kernel (selective_scan.h); no effect off the GPU.
enum class ScanForwardKernel { kThreadPerChannel, kLanePerState };
// The instruction set of the decoders' one-row products (row_kernels.h).
enum class RowSimd { kGeneric, kAvx2, kAvx512 };
// The cached mixer's one-token step: the fused fp32 loops where they cover the model, or ATen ops.
enum class DecodeStepPath { kFused, kAten };
// The AdamW update: kAuto takes the fused kernel where LibTorch has one, the multi-tensor update
// otherwise; kForeach and kLibrary force the multi-tensor update or torch::optim::AdamW.
enum class OptimizerPath { kAuto, kForeach, kLibrary };

struct ComputePaths {
  TokenMixPath token_mix = TokenMixPath::kAuto;
  std::optional<MixerStackPath> mixer_stack;  // nullopt: chosen per device (preferredMixerStackPath)
  ScanForwardKernel scan_forward = ScanForwardKernel::kLanePerState;
  std::optional<RowSimd> row_simd;  // nullopt: the widest this CPU supports
  DecodeStepPath decode_step = DecodeStepPath::kFused;
  bool decode_graphs = false;
  OptimizerPath optimizer = OptimizerPath::kAuto;

  bool operator==(const ComputePaths& other) const;
  bool operator!=(const ComputePaths& other) const { return !(*this == other); }
};

// One entry of ComputePaths as text: its key (run.json, --compute-path), its variable, the values it
// takes (the default first), how to read and write it.
struct ComputePathSetting {
  const char* key;
  EnvironmentVariable variable;
  std::vector<std::string> values;
  std::function<std::string(const ComputePaths&)> get;
  std::function<bool(ComputePaths&, const std::string& value)> set;  // false: not one of `values` (or not on this CPU)
};
const std::vector<ComputePathSetting>& computePathSettings();

// The defaults with every variable of the table that is set; a value a setting does not take throws
// std::invalid_argument naming the variable, the value and the values it takes.
ComputePaths computePathsFromEnvironment();
// "key=value" over `paths` (the CLI's --compute-path); throws std::invalid_argument naming the
// keys or values it takes.
void applyComputePath(ComputePaths& paths, const std::string& key_equals_value);
// (key, value) for every setting, in table order: what run.json and bench output record.
std::vector<std::pair<std::string, std::string>> computePathValues(const ComputePaths& paths);
std::string describeComputePaths(const ComputePaths& paths);  // "token_mix=auto mixer_stack=auto ..."

// The process's paths: set by setActiveComputePaths, else parsed from the environment at the first
// call (which throws as computePathsFromEnvironment does).
ComputePaths activeComputePaths();
void setActiveComputePaths(const ComputePaths& paths);

// Sets the active paths for a scope and restores the earlier ones (tests, benchmark A/B cells).
class ScopedComputePaths {
 public:
  explicit ScopedComputePaths(const ComputePaths& paths);
  ~ScopedComputePaths();
  ScopedComputePaths(const ScopedComputePaths&) = delete;
  ScopedComputePaths& operator=(const ScopedComputePaths&) = delete;

 private:
  ComputePaths previous_;
};

std::string rowSimdName(RowSimd simd);
std::optional<RowSimd> parseRowSimd(const std::string& name);
bool rowSimdSupported(RowSimd simd);
RowSimd widestRowSimd();  // the widest this CPU supports
std::string mixerStackPathName(MixerStackPath path);
std::optional<MixerStackPath> parseMixerStackPath(const std::string& name);
std::optional<ScanForwardKernel> parseScanForwardKernel(const std::string& name);  // "thread" | "lanes"

}  // namespace mixerlab::kernels
