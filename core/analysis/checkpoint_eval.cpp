// Checkpoint evaluation (see checkpoint_eval.h).
#include "core/analysis/checkpoint_eval.h"

#include <cmath>

#include <torch/torch.h>

#include "core/train/checkpoint.h"
#include "core/train/device.h"
#include "core/train/evaluator.h"
#include "core/train/run_data.h"

#include "core/util/error.h"

namespace mixerlab {
namespace fs = std::filesystem;

ProjectConfig checkpointProject(const fs::path& dir, const nlohmann::json& config) {
  fs::path source = checkpointConfigFile(dir);
  if (config.contains("project_file") &&
      fs::exists(fs::path(config.at("project_file").get<std::string>()).parent_path())) {
    source = config.at("project_file").get<std::string>();
  }
  return projectFromCheckpointConfig(config, source);
}

namespace {
CheckpointEval evaluateCheckpointFolder(const fs::path& dir, int64_t max_batches,
                                        const std::function<void(const std::string&)>& log) {
  ProjectConfig project = checkpointProject(dir, readCheckpointConfig(dir));
  // The checkpoint's tokenizer, not the one the project would train now from a corpus that may
  // have changed since (the token shards are keyed by the tokenizer's bytes, so an unchanged
  // tokenizer reuses the project's).
  if (checkpointHasTokenizer(dir)) project.tokenizer.file = checkpointTokenizerFile(dir).string();
  configureCpuThreads(0);
  auto model = loadModelFromCheckpoint(dir);
  const RunConfig& run = project.runs.front();
  RunData data = prepareRunData(project, run, [&](const std::string& line) {
    if (log) log(line);
  });
  const auto batches = makeEvalBatches(*data.eval_examples, run.train.batch_size, max_batches);
  CheckpointEval result;
  result.checkpoint = dir;
  result.eval_weighting = run.train.eval_weighting;
  result.eval_loss = evaluateLoss(*model, batches, c10::Device(c10::kCPU), parseEvalWeighting(result.eval_weighting));
  if (!std::isfinite(result.eval_loss)) {
    throw MixerLabError("the eval loss of " + dir.string() + " is " + std::to_string(result.eval_loss) +
                            ": its weights give non-finite logits (a diverged run?)",
                        "evaluate an earlier checkpoint of the run");
  }
  result.step = readTrainerState(dir).step;
  result.eval_batches = static_cast<int64_t>(batches.size());
  return result;
}
}  // namespace

CheckpointEval evaluateCheckpoint(const fs::path& checkpoint, int64_t max_batches,
                                  const std::function<void(const std::string&)>& log) {
  return readResolvedCheckpoint(checkpoint,
                                [&](const fs::path& dir) { return evaluateCheckpointFolder(dir, max_batches, log); });
}

}  // namespace mixerlab
