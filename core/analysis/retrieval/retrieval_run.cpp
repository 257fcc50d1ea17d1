// Retrieval training as a run directory (see retrieval_run.h).
#include "core/analysis/retrieval/retrieval_run.h"

#include <chrono>
#include <map>

#include <torch/torch.h>

#include "core/analysis/retrieval/retrieval_dataset.h"
#include "core/models/safetensors.h"
#include "core/runs/metrics_log.h"
#include "core/runs/run_directory.h"
#include "core/runs/run_lock.h"
#include "core/runs/run_log.h"
#include "core/runs/run_status.h"
#include "core/util/error.h"

namespace mixerlab {
namespace fs = std::filesystem;

namespace {
nlohmann::json epochJson(const RetrievalEpoch& e) {
  return {{"epoch", e.epoch},         {"step", e.step},      {"train_loss", e.train_loss},
          {"eval_loss", e.eval_loss}, {"top1", e.eval_top1}, {"top5", e.eval_top5}};
}

void refuseEarlierRun(const RunPaths& paths) {
  for (const fs::path& existing : {paths.metrics(), retrievalRunFile(paths.root), paths.runJson()}) {
    if (fs::exists(existing)) {
      throw MixerLabError(
          "run folder " + paths.root.string() + " already holds a run (" + existing.filename().string() + ")",
          "choose another --out folder; a retrieval run is not resumed");
    }
  }
}
}  // namespace

RetrievalRunRecord runRetrievalTraining(const RetrievalRunRequest& req) {
  const RunPaths paths{req.run_dir};
  const RunLock lock(paths.root);  // also creates the folder
  refuseEarlierRun(paths);
  RunLog log(paths.log(), req.on_log);
  RunStatusRecorder status(paths.root);
  RetrievalRunRecord record;
  int64_t step = 0, pairs_seen = 0;
  try {
    status.set(RunState::Running, "", 0, 0);
    const RetrievalDataset d = loadRetrievalDataset(req.data_dir);
    const RetrievalTrainSettings& s = req.settings;
    record.data = fs::absolute(req.data_dir).string();
    record.embedding_model = d.model_label;
    record.context = s.context;
    record.layers = s.layers;
    record.width = d.query_train.size(1);
    record.batch_size = s.batch_size;
    record.epochs_planned = s.epochs;
    record.learning_rate = s.learning_rate;
    record.warmup_steps = s.warmup_steps;
    record.weight_decay = s.weight_decay;
    record.grad_clip_norm = s.grad_clip_norm;
    record.with_replacement = s.with_replacement;
    record.chance_top1 = 1.0 / static_cast<double>(s.context - 1);
    writeRetrievalRunRecord(paths.root, record);  // the run list can describe the run from now on
    const int64_t pairs_per_epoch = d.query_train.size(0);
    log.info("retrieval model: c=" + std::to_string(s.context) + ", " + std::to_string(s.layers) + " layers, " +
             std::to_string(pairs_per_epoch) + " train / " + std::to_string(d.query_test.size(0)) +
             " held-out pairs, width " + std::to_string(record.width) + ", embeddings of " + d.model_label);

    MetricsWriter metrics(paths.metrics());
    const auto start = std::chrono::steady_clock::now();
    RetrievalMixer model(nullptr);
    const RetrievalTrainResult result = trainRetrievalModel(
        d.query_train, d.target_train, d.query_test, d.target_test, s,
        [&](const RetrievalEpoch& e) {
          step = e.step;
          pairs_seen = e.epoch * pairs_per_epoch;
          MetricsRecord rec;
          rec.step = e.step;
          rec.tokens = pairs_seen;  // pairs seen: the x axis of the workbench plot
          rec.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
          rec.train_loss = e.train_loss;
          rec.eval_loss = e.eval_loss;
          metrics.append(rec);
          record.epochs.push_back(epochJson(e));
          log.info("epoch " + std::to_string(e.epoch) + " step " + std::to_string(e.step) + ": train CE " +
                   std::to_string(e.train_loss) + ", held-out CE " + std::to_string(e.eval_loss) + ", top-1 " +
                   std::to_string(e.eval_top1) + ", top-5 " + std::to_string(e.eval_top5));
          status.set(RunState::Running, "", step, pairs_seen);
          if (req.on_epoch) req.on_epoch(e);
        },
        req.cancel, &model);
    std::map<std::string, at::Tensor> tensors;
    for (const auto& p : model->named_parameters()) tensors[p.key()] = p.value().detach().contiguous();
    saveSafetensors(paths.root / "retrieval_model.safetensors", tensors, {{"format", "pt"}});
    metrics.sync();
    writeRetrievalRunRecord(paths.root, record);
    if (result.cancelled) {
      status.set(RunState::Stopped, "stop requested", step, pairs_seen);
      log.info("stopped after epoch " + std::to_string(record.epochs.size()));
    } else {
      status.set(RunState::Finished, "", step, pairs_seen);
      log.info("finished: " + std::to_string(record.epochs.size()) + " epochs");
    }
    if (const auto best = result.best()) {  // the research's metric
      log.info("lowest held-out CE " + std::to_string(best->eval_loss) + " at epoch " + std::to_string(best->epoch) +
               " (top-1 " + std::to_string(best->eval_top1) + ")");
    }
    return record;
  } catch (const std::exception& e) {
    try {
      status.set(RunState::Failed, e.what(), step, pairs_seen);
      log.errorNotForwarded(e.what());
    } catch (...) {
    }
    throw;
  }
}

}  // namespace mixerlab
