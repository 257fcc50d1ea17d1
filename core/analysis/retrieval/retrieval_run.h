// A retrieval-model training (docs/retrieval.md) as a run directory, so the workbench lists it and plots its
// curves live like any training run: it holds the run lock, keeps status.json (running with the
// step, then finished, failed with the reason, or stopped), appends metrics.jsonl (x: pairs seen,
// y: train and held-out cross-entropy over the candidates), writes log.txt, retrieval_run.json
// (at start, then with every epoch's figures) and retrieval_model.safetensors. `mixerlab retrieval
// train` and the GUI's retrieval panel both run it.
#pragma once
#include <atomic>
#include <filesystem>
#include <functional>

#include "core/analysis/retrieval/retrieval_training.h"
#include "core/runs/retrieval_run_record.h"

namespace mixerlab {

struct RetrievalRunRequest {
  std::filesystem::path data_dir;  // from `retrieval build` (retrieval_dataset.h)
  std::filesystem::path run_dir;   // must not hold an earlier run
  RetrievalTrainSettings settings;
  std::function<void(const RetrievalEpoch&)> on_epoch;
  std::function<void(const std::string&)> on_log;
  const std::atomic<bool>* cancel = nullptr;  // stops after the current batch: status "stopped"
};

// Throws MixerLabError (after recording status "failed" with the reason) on bad data or settings,
// or when run_dir already holds a run.
RetrievalRunRecord runRetrievalTraining(const RetrievalRunRequest& request);

}  // namespace mixerlab
