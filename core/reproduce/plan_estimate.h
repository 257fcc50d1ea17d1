// How long a reproduction plan takes on a given machine, before anything runs: a table of machines
// with the sustained training rate the suite's small models reach on each, and an estimate of every
// step's FLOPs and seconds from the models' analytic costs. `mixerlab reproduce --plan` prints it.
#pragma once
#include <string>
#include <vector>

#include "core/reproduce/reproduce_plan.h"
#include "core/train/hardware_report.h"

namespace mixerlab {

struct HardwareProfile {
  std::string key;          // "cpu-2", "rtx3060", "v100", "4xv100", "a100", "h100", "h200"
  std::string description;  // "2 CPU cores"
  double flops_per_s = 0;   // sustained training FLOP/s assumed for the suite's models
  std::string basis;        // where the rate comes from
};

// The named machines (GPUs; CPU profiles come from cpuProfile).
const std::vector<HardwareProfile>& hardwareProfiles();
// `cores` CPU cores at the per-core rate measured on this project's 2-core CI machine.
HardwareProfile cpuProfile(int cores);
// "cpu-N" or a key of hardwareProfiles(); throws MixerLabError listing the keys otherwise.
HardwareProfile hardwareProfile(const std::string& key);
// The profile of a machine as probed: its first GPU when the table knows it and this build can use
// it, else its CPU cores.
HardwareProfile profileOf(const HardwareReport& machine);

struct StepEstimate {
  std::string title;  // "train mixer-d128-seed1"
  double flops = 0;
  double seconds = 0;
  std::string bound;  // what ends it: "FLOP budget", "wall clock", "epochs", "work"
};

struct PlanEstimate {
  HardwareProfile hardware;
  std::vector<StepEstimate> steps;
  double total_s = 0;
  double train_flops = 0;
};

PlanEstimate estimatePlan(const ReproducePlan& plan, const HardwareProfile& hardware);
// The plan as text: scale, summary, data, every run with its label and budget, the analysis jobs and
// the estimated time of each step and of the whole on `estimate.hardware`.
std::string formatPlan(const ReproducePlan& plan, const PlanEstimate& estimate);

}  // namespace mixerlab
