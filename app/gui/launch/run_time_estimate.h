// How long a run will take on this machine, for the queue panel's ETA column. The machine's speed
// is measured, not guessed: each run that has trained here reports tokens/s, and its curve gives
// its training FLOPs per token, so tokens/s x FLOPs/token is this machine's training FLOP/s (the
// median over runs). A run's time is then its budget in tokens x its own FLOPs per token (the
// core's analytic cost) / that rate; a run with progress of its own extrapolates from its elapsed
// time instead. Budgets in wall-clock seconds are their own estimate.
#pragma once
#include <QString>

namespace mixerlab {
struct ProjectConfig;
}

namespace mixerlab::gui {

class RunListModel;

struct MachineSpeed {
  double training_flops_per_s = 0;  // 0: no run has trained here yet
  int runs_measured = 0;
};

MachineSpeed measuredMachineSpeed(const RunListModel& runs);

// Seconds `run` still needs (its whole budget when it has not started, or when `from_scratch`: a
// fresh run id of that project run, whose row's progress is another training's); < 0 when unknown.
double estimatedRemainingSeconds(const ProjectConfig& project, const RunListModel& runs, const QString& run,
                                 const MachineSpeed& speed, bool from_scratch = false);

}  // namespace mixerlab::gui
