// What a machine can train on (cores, memory, GPUs, NCCL), as a plain record with JSON, so a launch
// target can show it before anything is launched: `mixerlab probe --json` prints this machine's
// report, and the same command run over SSH gives a remote host's. GPU names and memory come from
// nvidia-smi when it is installed; whether this mixerlab build can use them comes from LibTorch.
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/runs/remote_run.h"

namespace mixerlab {

struct GpuDescription {
  int index = 0;
  std::string name;       // "NVIDIA H100 80GB HBM3"
  double memory_gib = 0;  // total device memory
};

struct HardwareReport {
  std::string host;                  // the machine's host name
  int cpu_cores = 0;                 // online logical cores
  double memory_gib = 0;             // physical memory
  std::vector<GpuDescription> gpus;  // what nvidia-smi lists (may exceed what this build can use)
  int usable_gpus = 0;               // GPUs LibTorch sees (0 in a CPU-only build)
  bool nccl_built_in = false;        // this build can join NCCL process groups
  std::string mixerlab_version;
};

// This machine, now (runs nvidia-smi when it is on PATH; never throws for a missing GPU tool).
HardwareReport probeThisMachine();

// nvidia-smi --query-gpu=index,name,memory.total --format=csv,noheader,nounits output -> GPUs.
// Lines that do not parse are skipped.
std::vector<GpuDescription> parseNvidiaSmiGpus(const std::string& csv);

nlohmann::json hardwareReportToJson(const HardwareReport& report);
// Throws MixerLabError naming the field when `j` is not a hardware report.
HardwareReport hardwareReportFromJson(const nlohmann::json& j);

// One line for a tooltip: "gpu-node: 4x Tesla V100-SXM2-32GB (32 GiB each), NCCL, 40 cores,
// 376 GiB memory". Says when GPUs are present but this build cannot use them.
std::string describeHardware(const HardwareReport& report);

// The report of a remote host: runs `<program> probe --json` in its folder over SSH (BatchMode, every
// word quoted). Throws MixerLabError with ssh's own words when the host cannot be reached or the
// remote program does not answer with a report.
HardwareReport probeRemoteMachine(const RemoteHost& host);

// The marker line `probe --json` prints before its JSON, so ssh banners or warnings mixed into the
// output are never parsed as the report.
inline constexpr const char* kHardwareReportMarker = "@@mixerlab-hardware@@";

}  // namespace mixerlab
