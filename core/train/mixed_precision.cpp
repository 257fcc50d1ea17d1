// train.precision and the autocast scope (see mixed_precision.h). LibTorch 2.4 replaced the
// per-device autocast calls (set_cpu_enabled, set_autocast_gpu_dtype, ...) with ones taking a
// device type; both spellings live here only.
#include "core/train/mixed_precision.h"

#include <ATen/autocast_mode.h>
#include <torch/version.h>

#include "core/util/enum_names.h"
#include "core/util/error.h"

#if TORCH_VERSION_MAJOR > 2 || (TORCH_VERSION_MAJOR == 2 && TORCH_VERSION_MINOR >= 4)
#define MIXERLAB_AUTOCAST_BY_DEVICE_TYPE 1
#endif

namespace mixerlab {
namespace {

bool isEnabled(c10::DeviceType type) {
#ifdef MIXERLAB_AUTOCAST_BY_DEVICE_TYPE
  return at::autocast::is_autocast_enabled(type);
#else
  return type == c10::DeviceType::CPU ? at::autocast::is_cpu_enabled() : at::autocast::is_enabled();
#endif
}

void setEnabled(c10::DeviceType type, bool enabled) {
#ifdef MIXERLAB_AUTOCAST_BY_DEVICE_TYPE
  at::autocast::set_autocast_enabled(type, enabled);
#else
  if (type == c10::DeviceType::CPU) {
    at::autocast::set_cpu_enabled(enabled);
  } else {
    at::autocast::set_enabled(enabled);
  }
#endif
}

c10::ScalarType dtypeOf(c10::DeviceType type) {
#ifdef MIXERLAB_AUTOCAST_BY_DEVICE_TYPE
  return at::autocast::get_autocast_dtype(type);
#else
  return type == c10::DeviceType::CPU ? at::autocast::get_autocast_cpu_dtype() : at::autocast::get_autocast_gpu_dtype();
#endif
}

void setDtype(c10::DeviceType type, c10::ScalarType dtype) {
#ifdef MIXERLAB_AUTOCAST_BY_DEVICE_TYPE
  at::autocast::set_autocast_dtype(type, dtype);
#else
  if (type == c10::DeviceType::CPU) {
    at::autocast::set_autocast_cpu_dtype(dtype);
  } else {
    at::autocast::set_autocast_gpu_dtype(dtype);
  }
#endif
}

constexpr EnumName<Precision> kPrecisionNames[] = {
    {Precision::Fp32, "fp32"}, {Precision::Bf16, "bf16"}, {Precision::Fp16, "fp16"}};

}  // namespace

Precision parsePrecision(const std::string& name) {
  if (const auto precision = enumFromName(kPrecisionNames, name)) return *precision;
  throw MixerLabError("unknown train.precision \"" + name + "\"", "use fp32, bf16, fp16 or fp16_on_cuda");
}

Precision resolvePrecision(const std::string& name, const c10::Device& device) {
  if (name == "fp16_on_cuda") return device.is_cuda() ? Precision::Fp16 : Precision::Fp32;
  return parsePrecision(name);
}

std::string precisionName(Precision precision) { return enumName(kPrecisionNames, precision, "fp32"); }

c10::ScalarType precisionDtype(Precision precision) {
  switch (precision) {
    case Precision::Bf16:
      return c10::ScalarType::BFloat16;
    case Precision::Fp16:
      return c10::ScalarType::Half;
    case Precision::Fp32:
      break;
  }
  return c10::ScalarType::Float;
}

void checkPrecisionSupported(Precision precision, const c10::Device& device) {
  if (precision == Precision::Fp16 && device.is_cpu()) {
    throw MixerLabError("train.precision \"fp16\" needs a CUDA device; this run trains on the CPU",
                        "use \"bf16\" or \"fp32\" on the CPU (fp16 with loss scaling is the setting for GPUs "
                        "without bf16, such as the V100)");
  }
  if (precision != Precision::Fp32 && !device.is_cpu() && !device.is_cuda()) {
    throw MixerLabError(
        "train.precision \"" + precisionName(precision) + "\" is supported on CPU and CUDA only, not " + device.str(),
        "use \"fp32\"");
  }
}

AutocastScope::AutocastScope(const c10::Device& device, Precision precision) {
  if (precision == Precision::Fp32) return;
  device_type_ = device.type();
  previous_enabled_ = isEnabled(device_type_);
  previous_dtype_ = dtypeOf(device_type_);
  setDtype(device_type_, precisionDtype(precision));
  setEnabled(device_type_, true);
  at::autocast::increment_nesting();
  active_ = true;
}

AutocastScope::~AutocastScope() {
  if (!active_) return;
  if (at::autocast::decrement_nesting() == 0) at::autocast::clear_cache();
  setEnabled(device_type_, previous_enabled_);
  setDtype(device_type_, previous_dtype_);
}

at::Tensor atLeastFp32(const at::Tensor& t) {
  const auto type = t.scalar_type();
  return type == c10::ScalarType::Half || type == c10::ScalarType::BFloat16 ? t.to(c10::ScalarType::Float) : t;
}

bool autocastEnabled(c10::DeviceType device_type) { return isEnabled(device_type); }

}  // namespace mixerlab
