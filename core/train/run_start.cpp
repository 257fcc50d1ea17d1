// Run start policy, device set-up and run.json (see run_start.h).
#include "core/train/run_start.h"

#include <torch/torch.h>

#include "core/models/model_registry.h"
#include "core/models/transformers/causal_attention.h"
#include "core/runs/metrics_log.h"
#include "core/runs/run_info.h"
#include "core/train/device.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace mixerlab {
namespace fs = std::filesystem;

namespace {

// Refuses to resume a run whose stored model differs from the one requested now.
void checkResumableConfig(const RunPaths& paths, const RunConfig& run) {
  if (!paths.hasRunInfo()) return;
  const nlohmann::json stored_model = readRunInfo(paths.root).run.model.toJson();
  if (stored_model != run.model.toJson()) {
    throw MixerLabError("cannot resume " + paths.root.string() + ": its model config differs from run \"" + run.name +
                            "\" in the project (stored: " + stored_model.dump() + ")",
                        "restore the project's model settings or start a new run with another --run-id");
  }
}

// Refuses to fork from a checkpoint whose model differs from the run's model config.
void checkForkableConfig(const fs::path& checkpoint_dir, const RunConfig& run) {
  // Compared in parsed form, as resume does, so a checkpoint written before a newer model key
  // existed still matches a config that leaves that key at its default.
  const nlohmann::json stored_model = ModelConfig::fromJson(readCheckpointConfig(checkpoint_dir).at("model")).toJson();
  if (stored_model != run.model.toJson()) {
    throw MixerLabError("cannot fork run \"" + run.name + "\" from " + checkpoint_dir.string() +
                            ": the checkpoint's model config " + stored_model.dump() +
                            " differs from the run's model config " + run.model.toJson().dump(),
                        "fork with a run whose model settings match the checkpoint; only training settings may differ");
  }
}

// The parent's metrics up to `last_step` become the start of the fork's metrics log.
void copyParentMetrics(const fs::path& checkpoint_dir, const fs::path& metrics_path, int64_t last_step) {
  const fs::path parent_metrics = RunPaths::ofCheckpoint(checkpoint_dir).metrics();
  std::string text;
  if (fs::exists(parent_metrics)) {
    for (const auto& record : readMetrics(parent_metrics)) {
      if (record.step <= last_step) text += record.toJsonLine() + "\n";
    }
  }
  writeFileAtomic(metrics_path, text);
}

TrainerState restoreFrom(const fs::path& checkpoint, LanguageModel& model, torch::optim::Optimizer& optimizer) {
  requireTrainableCheckpoint(checkpoint);  // names every missing file at once
  TrainerState state = readTrainerState(checkpoint);
  loadModelWeights(model, checkpoint);
  for (const auto& p : model.parameters()) {
    if (!torch::isfinite(p).all().item<bool>()) {
      throw MixerLabError(checkpoint.string() +
                              ": the model's weights are not finite (it was written after the run "
                              "diverged)",
                          "resume from an earlier checkpoint");
    }
  }
  loadOptimizerState(optimizer, checkpoint);
  restoreRngState(checkpoint);
  return state;
}

// The newest checkpoint that loads, trying latest.json's first and then every older one: a damaged,
// edited or incomplete latest checkpoint (a torn disk, a bad copy, a kill while it was removed)
// costs the steps since the one before, not the run, and the log says which were skipped and why.
std::optional<std::pair<TrainerState, fs::path>> restoreNewestIntact(const RunPaths& paths, LanguageModel& model,
                                                                     torch::optim::Optimizer& optimizer, RunLog& log) {
  std::string failures, skipped;
  for (const fs::path& checkpoint : resumeCandidates(paths.checkpoints())) {
    try {
      TrainerState state = restoreFrom(checkpoint, model, optimizer);
      if (!failures.empty()) {
        log.warn("resuming from the newest intact checkpoint, " + checkpoint.filename().string() + skipped);
      }
      log.info("resumed from " + checkpoint.string() + " at step " + std::to_string(state.step));
      return std::make_pair(state, checkpoint);
    } catch (const std::exception& e) {
      log.warn("cannot resume from " + checkpoint.string() + ": " + e.what());
      failures += " " + checkpoint.filename().string() + " (" + e.what() + ")";
      skipped += "; skipped " + checkpoint.filename().string() + " because " + e.what();
    }
  }
  if (!failures.empty()) {
    throw MixerLabError("no checkpoint of " + paths.root.string() + " could be loaded:" + failures,
                        "restore a checkpoint folder from a backup, or start the run again under another --run-id");
  }
  return std::nullopt;
}

// The checkpoint's tokenizer is the run's: a project whose tokenizer now differs (its corpus or
// tokenizer settings changed since the run started) would train the weights on other token ids.
void requireCheckpointTokenizer(const fs::path& checkpoint, const std::string& tokenizer_bytes,
                                const std::string& run_name, bool fork) {
  if (tokenizer_bytes.empty() || !checkpointHasTokenizer(checkpoint)) return;
  const fs::path stored = checkpointTokenizerFile(checkpoint);
  if (readFile(stored) == tokenizer_bytes) return;
  throw MixerLabError(
      "cannot " + std::string(fork ? "fork" : "resume") + " run \"" + run_name + "\" from " + checkpoint.string() +
          ": the project's tokenizer is not the one the checkpoint was trained with (the corpus or the tokenizer "
          "settings changed since then), and training on would feed its weights other token ids",
      "restore the corpus and tokenizer settings the run started with; or keep the run's tokenizer: copy " +
          stored.string() + " next to the project file and set tokenizer.file to it; or start a new run (--run-id)");
}

}  // namespace

StartPlan planRunStart(const TrainRequest& req) {
  const RunPaths paths{req.run_dir};
  if (paths.hasRunInfo() && !req.resume) {
    throw MixerLabError("run directory " + paths.root.string() + " already exists",
                        "pass --resume to continue it, or choose another --run-id or --out");
  }
  if (req.resume) checkResumableConfig(paths, req.run);
  StartPlan plan;
  plan.kind = req.resume ? StartKind::Resume : StartKind::New;
  if (!req.fork_from.empty()) {
    if (req.resume) throw MixerLabError("--fork-from and --resume cannot be combined", "fork into a new --run-id");
    plan.kind = StartKind::Fork;
    plan.fork_checkpoint = resolveCheckpointDir(req.fork_from);
    requireTrainableCheckpoint(plan.fork_checkpoint);
    checkForkableConfig(plan.fork_checkpoint, req.run);
  }
  return plan;
}

TrainDevice setUpTrainDevice(const TrainConfig& train, RunLog& log) {
  TrainDevice d;
  d.threads = configureCpuThreads(train.threads, "train.threads");
  d.device = selectDevice(train.device);
  d.description = describeDevice(d.device);
  if (d.device.is_cpu() && isReferenceBlas(loadedBlasLibrary())) {
    log.warn("LibTorch is using the slow reference BLAS (" + loadedBlasLibrary() +
             "); install libopenblas0-pthread for ~20x faster CPU training");
  }
  return d;
}

TrainerState restoreRunStart(const StartPlan& plan, const RunPaths& paths, LanguageModel& model,
                             torch::optim::Optimizer& optimizer, const std::string& run_name,
                             const std::string& tokenizer_bytes, RunLog& log) {
  if (plan.kind == StartKind::Fork) {
    requireCheckpointTokenizer(plan.fork_checkpoint, tokenizer_bytes, run_name, true);
    TrainerState state = restoreFrom(plan.fork_checkpoint, model, optimizer);
    copyParentMetrics(plan.fork_checkpoint, paths.metrics(), state.step);
    log.info("forked from " + plan.fork_checkpoint.string() + " at step " + std::to_string(state.step));
    return state;
  }
  const auto restored =
      plan.kind == StartKind::Resume ? restoreNewestIntact(paths, model, optimizer, log) : std::nullopt;
  if (restored) requireCheckpointTokenizer(restored->second, tokenizer_bytes, run_name, false);
  const int64_t kept_step = restored ? restored->first.step : -1;
  if (plan.kind == StartKind::Resume && !restored) log.info("no checkpoint to resume from; starting from step 0");
  const int skipped = truncateMetricsAfterStep(paths.metrics(), kept_step);
  if (skipped > 0) {
    log.warn(std::to_string(skipped) + " unreadable line(s) of " + paths.metrics().string() +
             " were dropped (a torn write or a hand edit); the records around them are kept");
  }
  return restored ? restored->first : TrainerState{};
}

void recordRunStart(const TrainRequest& req, const StartPlan& plan, const RunPaths& paths, const TrainDevice& device,
                    const LanguageModel& model, const TrainerState& state) {
  RunInfo info = runInfoFor(*req.project, req.run);
  info.environment = environmentInfo(device.description);
  if (familyReadsModelKey(req.run.model.arch, "attention")) {  // what ran, beside what model.attention asked for
    info.environment["attention_ran"] = attentionImplName(attentionImplRun(req.run.model.attention));
  }
  info.threads = device.threads;
  info.parameters = model.parameterCount();
  info.training_flops_per_token = estimateCost(req.run.model, req.run.train.batch_size).training_flops_per_token;
  if (plan.kind == StartKind::Fork)
    info.forked_from = ForkOrigin{fs::absolute(plan.fork_checkpoint).string(), state.step};
  writeRunInfo(paths.root, info);
}

}  // namespace mixerlab
