// Mixed-precision training: which dtype the forward runs in (train.precision) and a scope that
// switches LibTorch's autocast on for it. Weights, optimizer state and the loss stay fp32; only the
// ops autocast lists (matrix products, convolutions) run in bf16 or fp16. fp16 needs loss scaling
// (loss_scaler.h); bf16 has fp32's exponent range and does not.
#pragma once
#include <string>

#include <ATen/core/Tensor.h>
#include <c10/core/Device.h>
#include <c10/core/ScalarType.h>

namespace mixerlab {

enum class Precision { Fp32, Bf16, Fp16 };

// "fp32" | "bf16" | "fp16"; throws MixerLabError naming the field for anything else.
Precision parsePrecision(const std::string& name);
// train.precision for a run on `device`: parsePrecision's names, and "fp16_on_cuda" (the research's
// fp16 AMP where it ran, on GPUs, and fp32 elsewhere, so one preset trains on a GPU and on a laptop).
Precision resolvePrecision(const std::string& name, const c10::Device& device);
std::string precisionName(Precision precision);
// The autocast dtype (kFloat for fp32, which leaves autocast off).
c10::ScalarType precisionDtype(Precision precision);

// Throws MixerLabError (with the fix) when `precision` cannot run on `device`: fp16 on the CPU
// (LibTorch's CPU autocast is bf16 only in 1.13 and fp16 CPU matrix products are slow where they
// exist; fp16 is the V100 setting).
void checkPrecisionSupported(Precision precision, const c10::Device& device);

// Autocast on for `device`'s type with `precision`'s dtype while the scope lives (nothing for fp32).
// Restores the previous autocast state on exit and clears autocast's weight-cast cache when the
// outermost scope ends (the casts of this step's weights must not outlive the optimizer step).
class AutocastScope {
 public:
  AutocastScope(const c10::Device& device, Precision precision);
  ~AutocastScope();
  AutocastScope(const AutocastScope&) = delete;
  AutocastScope& operator=(const AutocastScope&) = delete;

 private:
  bool active_ = false;
  c10::DeviceType device_type_ = c10::DeviceType::CPU;
  bool previous_enabled_ = false;
  c10::ScalarType previous_dtype_ = c10::ScalarType::Float;
};

// `t` in fp32 when it is bf16 or fp16, else unchanged (fp32 and fp64 pass through without a copy).
at::Tensor atLeastFp32(const at::Tensor& t);

// True while autocast is on for `device_type` (for tests and the models' fp32 islands).
bool autocastEnabled(c10::DeviceType device_type);

}  // namespace mixerlab
