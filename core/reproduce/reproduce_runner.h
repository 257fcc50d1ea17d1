// Runs a reproduction plan into an output folder, step by step, and writes the report. Every step
// leaves its result on disk (a run directory, or results/<step>.json written atomically), so an
// interrupted reproduction started again with resume continues where it stopped: finished steps are
// skipped and a training run resumes from its last checkpoint. Layout of the folder:
//   plan.json        what runs (reproduce_plan.h)       project.json   the generated project
//   runs/<name>/     training and retrieval run dirs     results/       inversion and timing results
//   report.json, report.html, figures/*.svg             (reproduce_report.h)
// Opening project.json in the workbench shows every run of the reproduction.
#pragma once
#include <atomic>
#include <filesystem>
#include <functional>
#include <string>

#include "core/reproduce/reproduce_plan.h"

namespace mixerlab {

struct ReproduceProgress {
  int step = 0;  // 1-based
  int step_count = 0;
  std::string title;    // "train mixer-d256-seed1", "invert ...", "retrieval ...", "report"
  double fraction = 0;  // of this step, when known
};

struct ReproduceRequest {
  ReproduceScale scale = ReproduceScale::kTiny;
  std::filesystem::path projects_dir;  // holds demo/ and paper/
  std::filesystem::path out_dir;
  bool resume = false;  // continue the reproduction in out_dir (else out_dir must not hold one)
  std::function<void(const std::string&)> on_log;
  std::function<void(const ReproduceProgress&)> on_progress;
  const std::atomic<bool>* stop_requested = nullptr;  // finishes the current checkpoint, then stops
};

struct ReproduceOutcome {
  bool finished = false;  // false: stopped on request (resume continues)
  std::filesystem::path report_html, report_json;
  double wall_s = 0;  // of all sessions of this reproduction together
};

// Throws MixerLabError for a bad folder, a missing corpus or a failed run (naming it and the fix).
ReproduceOutcome runReproduction(const ReproduceRequest& request);

}  // namespace mixerlab
