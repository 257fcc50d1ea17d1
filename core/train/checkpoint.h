// Checkpoints: checkpoints/step-<N>/ holds model.safetensors (research tensor names), optimizer.pt,
// trainer_state.json (step, tokens, wall time, data position), rng.pt, config.json, a copy of the
// tokenizer and manifest.json, so a checkpoint folder is self-contained for eval/score/export. The
// manifest, written last, records the size and checksum of every other file, and each file is
// checked against it when read (checkpoint_manifest.h); trainer_state.json's step must also match the
// folder's name. So a damaged or edited checkpoint fails to load, naming the file, instead of
// loading wrong. A checkpoint is written to a hidden .partial folder and renamed into place, then
// checkpoints/latest.json is updated atomically; an old checkpoint is renamed to a hidden .pruned
// folder before it is deleted. So step folders appear whole or not at all, and a crash at any point
// leaves the previous checkpoint intact.
#pragma once
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/data/batching.h"
#include "core/models/language_model.h"
#include "core/models/safetensors.h"
#include "core/train/checkpoint_manifest.h"
#include "core/train/loss_scaler.h"

namespace torch::optim {
class Optimizer;
}

namespace mixerlab {

struct TrainerState {
  int64_t step = 0;            // optimizer steps completed
  int64_t tokens = 0;          // training tokens consumed
  double wall_s = 0;           // training wall-clock so far
  DataPosition data_position;  // where the next batch comes from
  std::optional<double> best_eval_loss;
  // Train-loss average in progress (steps since the last metrics record), so a resumed run logs
  // exactly the records an uninterrupted run would.
  double pending_loss_sum = 0;
  int64_t pending_loss_steps = 0;
  std::optional<LossScalerState> loss_scaler;  // dynamic loss scaling's scale and counters, when on
  nlohmann::json toJson() const;
  static TrainerState fromJson(const nlohmann::json& j);
};

// checkpoint_config: {"model": ModelConfig, "run": RunConfig, "project": ProjectConfig} (resolved).
// tokenizer_bytes: the run's tokenizer file as the run read it at its start (written as
// tokenizer.model; empty: none), so a cache folder deleted or rebuilt meanwhile changes nothing.
std::filesystem::path saveCheckpoint(const std::filesystem::path& checkpoints_dir, LanguageModel& model,
                                     torch::optim::Optimizer& optimizer, const TrainerState& state,
                                     const nlohmann::json& checkpoint_config, const std::string& tokenizer_bytes,
                                     int64_t keep_last);

// Every complete step-<N> folder under checkpoints_dir (isCompleteCheckpoint: no file missing),
// oldest first.
std::vector<std::filesystem::path> listCheckpoints(const std::filesystem::path& checkpoints_dir);

// Every step-<N> folder, complete or not, in the order a resume tries them: the one latest.json
// names first, then the others newest first (so an incomplete one is reported, not passed over).
std::vector<std::filesystem::path> resumeCandidates(const std::filesystem::path& checkpoints_dir);

// Removes the hidden folders a killed or failed checkpoint write (.partial-*) or removal
// (.pruned-*) left behind (they can hold most of a full disk); returns what it removed. Call only
// while holding the run's lock.
std::vector<std::filesystem::path> removePartialCheckpoints(const std::filesystem::path& checkpoints_dir);

// The folder named by checkpoints/latest.json (only a complete step-<N> folder inside
// checkpoints_dir), falling back to the highest complete step-<N>.
std::optional<std::filesystem::path> latestCheckpoint(const std::filesystem::path& checkpoints_dir);

// Accepts a checkpoint folder, a run folder (uses its latest checkpoint) or a checkpoints/ folder.
// A checkpoint folder that lacks a file is refused as incomplete, naming the file
// (requireCompleteCheckpoint).
std::filesystem::path resolveCheckpointDir(const std::filesystem::path& path);

// Runs read(dir) on the checkpoint `path` resolves to. A live run's trainer prunes old checkpoints
// (renaming the folder away, then deleting it), so a read that fails because its folder vanished
// meanwhile is not damage: a run or checkpoints/ folder is resolved again to its newest checkpoint
// and read again (up to kLiveReadAttempts times); a step-N folder named by the caller gets a message
// saying it was pruned. A failure with the folder still in place is rethrown as it is.
inline constexpr int kLiveReadAttempts = 4;
[[noreturn]] void throwPrunedWhileRead(const std::filesystem::path& dir, const std::exception& cause);
template <class Read>
auto readResolvedCheckpoint(const std::filesystem::path& path, Read read) -> decltype(read(std::filesystem::path{})) {
  for (int attempt = 1;; ++attempt) {
    const std::filesystem::path dir = resolveCheckpointDir(path);
    try {
      return read(dir);
    } catch (const std::exception& e) {
      std::error_code ignored;
      if (std::filesystem::exists(dir, ignored)) throw;  // still there: a real fault of the folder
      if (dir == path || attempt == kLiveReadAttempts) throwPrunedWhileRead(dir, e);
    }
  }
}

// MixerLabError naming the missing files unless the folder is complete and has what training starts
// from (weights, optimizer and trainer state), in folders of the older format too. Resume and fork
// check this before they read anything.
void requireTrainableCheckpoint(const std::filesystem::path& checkpoint_dir);

nlohmann::json readCheckpointConfig(const std::filesystem::path& checkpoint_dir);
// The files of a checkpoint folder that readers open themselves (this module owns the names).
std::filesystem::path checkpointConfigFile(const std::filesystem::path& checkpoint_dir);  // config.json
// tokenizer.model, checked against the checkpoint's manifest first (MixerLabError when it is missing
// or damaged), since its readers open it by path.
std::filesystem::path checkpointTokenizerFile(const std::filesystem::path& checkpoint_dir);
// Whether the checkpoint holds a tokenizer.model (imported and some early checkpoints do not).
bool checkpointHasTokenizer(const std::filesystem::path& checkpoint_dir);
// trainer_state.json, checked against the manifest; a step-<N> folder's state must say step N.
TrainerState readTrainerState(const std::filesystem::path& checkpoint_dir);
// trainer_state.json's text (`source` names it in errors); MixerLabError when malformed.
TrainerState parseTrainerState(const std::string& text, const std::string& source);
void loadModelWeights(LanguageModel& model, const std::filesystem::path& checkpoint_dir);
// Loads exported tensors (exportTensors() / a research safetensors file) into a model: drops the
// tied head's lm_head.weight copy, checks names and shapes, re-applies masks.
void loadModelTensors(LanguageModel& model, SafetensorsFile file, const std::string& source_name);
void loadOptimizerState(torch::optim::Optimizer& optimizer, const std::filesystem::path& checkpoint_dir);
void restoreRngState(const std::filesystem::path& checkpoint_dir);
// Builds the model described by the checkpoint's config.json and loads its weights (CPU).
LanguageModelPtr loadModelFromCheckpoint(const std::filesystem::path& checkpoint_dir);

}  // namespace mixerlab
