// Run time estimates from this machine's measured speed (see run_time_estimate.h).
#include "app/gui/launch/run_time_estimate.h"

#include <algorithm>
#include <vector>

#include "app/gui/runs/run_list_model.h"
#include "core/config/project_config.h"
#include "core/models/model_registry.h"

namespace mixerlab::gui {

MachineSpeed measuredMachineSpeed(const RunListModel& runs) {
  std::vector<double> rates;
  for (const QString& run : runs.runNames()) {
    const widgets::LossSeries* series = runs.series(run);
    const QModelIndex speed_cell = runs.index(runs.rowOf(run), RunListModel::TokensPerS);
    const double tokens_per_s = runs.data(speed_cell, RunListModel::SortRole).toDouble();
    if (!series || series->train.isEmpty() || tokens_per_s <= 0) continue;
    const widgets::LossPoint& last = series->train.back();
    if (last.tokens <= 0 || last.flops <= 0) continue;
    rates.push_back(tokens_per_s * last.flops / last.tokens);
  }
  MachineSpeed speed;
  speed.runs_measured = static_cast<int>(rates.size());
  if (!rates.empty()) {
    std::nth_element(rates.begin(), rates.begin() + rates.size() / 2, rates.end());
    speed.training_flops_per_s = rates[rates.size() / 2];
  }
  return speed;
}

double estimatedRemainingSeconds(const ProjectConfig& project, const RunListModel& runs, const QString& run,
                                 const MachineSpeed& speed, bool from_scratch) {
  // Progress of its own: extrapolate its elapsed time (what the runs table's ETA does).
  const int row = runs.rowOf(run);
  if (row >= 0 && !from_scratch) {
    const double fraction = runs.data(runs.index(row, RunListModel::Progress), RunListModel::SortRole).toDouble();
    const double elapsed_s = runs.data(runs.index(row, RunListModel::Elapsed), RunListModel::SortRole).toDouble();
    if (fraction >= 1) return 0;
    if (fraction > 0 && elapsed_s > 0) return elapsed_s * (1 - fraction) / fraction;
  }
  const auto it = std::find_if(project.runs.begin(), project.runs.end(),
                               [&](const RunConfig& r) { return r.name == run.toStdString(); });
  if (it == project.runs.end()) return -1;
  const TrainConfig& train = it->train;
  const double tokens_per_step =
      static_cast<double>(train.batch_size * train.grad_accum_steps * it->model.context_length);
  double tokens = 0;
  if (train.max_steps > 0) tokens = train.max_steps * tokens_per_step;
  if (train.max_tokens > 0) tokens = tokens > 0 ? std::min<double>(tokens, train.max_tokens) : train.max_tokens;
  double seconds = -1;
  if (tokens > 0 && speed.training_flops_per_s > 0) {
    const double flops_per_token = estimateCost(it->model, train.batch_size).training_flops_per_token;
    seconds = tokens * flops_per_token / speed.training_flops_per_s;
  }
  if (train.max_wall_s > 0) seconds = seconds < 0 ? train.max_wall_s : std::min(seconds, train.max_wall_s);
  return seconds;
}

}  // namespace mixerlab::gui
