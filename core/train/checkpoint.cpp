// Atomic checkpoints and their loading (see checkpoint.h).
#include "core/train/checkpoint.h"

#include <algorithm>
#include <mutex>
#include <regex>
#include <sstream>

#include <torch/torch.h>

#include "core/models/model_registry.h"
#include "core/models/safetensors.h"
#include "core/runs/run_directory.h"
#include "core/util/atomic_file.h"
#include "core/util/crash_point.h"
#include "core/util/error.h"
#include "core/util/hashing.h"
#include "core/util/json_numbers.h"

namespace mixerlab {
namespace fs = std::filesystem;

nlohmann::json TrainerState::toJson() const {
  nlohmann::json j = {{"step", step},
                      {"tokens", tokens},
                      {"wall_s", wall_s},
                      {"data_position", {{"epoch", data_position.epoch}, {"index", data_position.index}}},
                      {"pending_loss_sum", pending_loss_sum},
                      {"pending_loss_steps", pending_loss_steps}};
  if (best_eval_loss) j["best_eval_loss"] = *best_eval_loss;
  if (loss_scaler) j["loss_scaler"] = loss_scaler->toJson();
  return j;
}

TrainerState TrainerState::fromJson(const nlohmann::json& j) {
  const std::string source = "trainer state";
  TrainerState s;
  s.step = requireInt64(j, "step", source);
  s.tokens = requireInt64(j, "tokens", source);
  s.wall_s = j.at("wall_s").get<double>();
  s.data_position.epoch = requireInt64(j.at("data_position"), "epoch", source + " data_position");
  s.data_position.index = requireInt64(j.at("data_position"), "index", source + " data_position");
  if (j.contains("best_eval_loss")) s.best_eval_loss = j.at("best_eval_loss").get<double>();
  s.pending_loss_sum = j.value("pending_loss_sum", 0.0);
  s.pending_loss_steps = j.contains("pending_loss_steps") ? requireInt64(j, "pending_loss_steps", source) : 0;
  if (j.contains("loss_scaler")) s.loss_scaler = LossScalerState::fromJson(j.at("loss_scaler"));
  return s;
}

namespace {
constexpr const char* kConfigFile = "config.json";
constexpr const char* kTokenizerFile = "tokenizer.model";
constexpr const char* kWeightsFile = "model.safetensors";
// Hidden prefixes of the folders a checkpoint is written in and removed from; listings skip them.
constexpr const char* kPartialPrefix = ".partial-";
constexpr const char* kPrunedPrefix = ".pruned-";

std::string stepFolderName(int64_t step) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "step-%08lld", static_cast<long long>(step));
  return buf;
}

bool isStepFolderName(const std::string& name) {
  static const std::regex pattern("step-[0-9]{8}");
  return std::regex_match(name, pattern);
}

// Every step-<N> folder, complete or not, oldest first.
std::vector<fs::path> stepFolders(const fs::path& dir) {
  std::vector<fs::path> found;
  if (!fs::is_directory(dir)) return found;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_directory() && isStepFolderName(entry.path().filename().string())) found.push_back(entry.path());
  }
  std::sort(found.begin(), found.end());
  return found;
}

std::vector<fs::path> completeCheckpoints(const fs::path& dir) {
  std::vector<fs::path> found = stepFolders(dir);
  found.erase(std::remove_if(found.begin(), found.end(), [](const fs::path& p) { return !isCompleteCheckpoint(p); }),
              found.end());
  return found;
}

// The step folder latest.json names, when it names one of this run's that exists (a hand-edited
// "../.." never leads outside the run).
std::optional<fs::path> folderNamedByLatestJson(const fs::path& checkpoints_dir) {
  try {
    const auto j = nlohmann::json::parse(readFile(checkpoints_dir / "latest.json"));
    const std::string name = j.at("checkpoint").get<std::string>();
    if (isStepFolderName(name) && fs::is_directory(checkpoints_dir / name)) return checkpoints_dir / name;
  } catch (const std::exception&) {
  }
  return std::nullopt;
}

// Renames a step folder to a hidden name and deletes it there, so it disappears whole: a kill
// while the files are deleted leaves a .pruned-* folder, which listings skip and the next start
// removes, never a step folder with some of its files. Throws MixerLabError when the rename fails
// (the folder then stays whole); a failed deletion leaves the hidden folder for the next start.
void discardStepFolder(const fs::path& folder) {
  std::error_code link_error;
  if (fs::is_symlink(fs::symlink_status(folder, link_error))) {  // the link goes, never what it points to
    fs::remove(folder, link_error);
    return;
  }
  if (!fs::exists(folder)) return;
  const fs::path hidden = folder.parent_path() / (kPrunedPrefix + folder.filename().string());
  std::error_code ignored;
  fs::remove_all(hidden, ignored);  // left by an earlier removal that did not finish
  renameAtomic(folder, hidden);
  crashPoint("prune-renamed");
  // File by file, so a crash-safety test can kill the process half-way (crashPoint "prune-file").
  std::vector<fs::path> files;
  for (fs::directory_iterator it(hidden, ignored), end; !ignored && it != end; it.increment(ignored)) {
    files.push_back(it->path());
  }
  for (const fs::path& file : files) {
    fs::remove_all(file, ignored);
    crashPoint("prune-file");
  }
  fs::remove_all(hidden, ignored);
}

// Keeps the newest keep_last complete checkpoints (and `written`), and removes every step folder
// older than the oldest kept one, incomplete ones included.
void pruneCheckpoints(const fs::path& checkpoints_dir, const fs::path& written, int64_t keep_last) {
  const std::vector<fs::path> complete = completeCheckpoints(checkpoints_dir);
  const size_t keep = static_cast<size_t>(std::max<int64_t>(keep_last, 1));
  if (complete.size() <= keep) return;
  const fs::path oldest_kept = complete[complete.size() - keep];
  for (const fs::path& folder : stepFolders(checkpoints_dir)) {
    if (folder >= oldest_kept || folder == written) continue;
    try {
      discardStepFolder(folder);
    } catch (const std::exception&) {
      // The folder stays whole and is pruned with the next checkpoint; this one is written already.
    }
  }
}
}  // namespace

std::vector<fs::path> listCheckpoints(const fs::path& checkpoints_dir) { return completeCheckpoints(checkpoints_dir); }

std::vector<fs::path> resumeCandidates(const fs::path& checkpoints_dir) {
  std::vector<fs::path> candidates = stepFolders(checkpoints_dir);
  std::reverse(candidates.begin(), candidates.end());
  if (const auto named = folderNamedByLatestJson(checkpoints_dir)) {
    candidates.erase(std::remove(candidates.begin(), candidates.end(), *named), candidates.end());
    candidates.insert(candidates.begin(), *named);
  }
  return candidates;
}

std::vector<fs::path> removePartialCheckpoints(const fs::path& checkpoints_dir) {
  std::vector<fs::path> removed;
  if (!fs::exists(checkpoints_dir)) return removed;
  for (const auto& entry : fs::directory_iterator(checkpoints_dir)) {
    const std::string name = entry.path().filename().string();
    if (name.rfind(kPartialPrefix, 0) == 0 || name.rfind(kPrunedPrefix, 0) == 0) removed.push_back(entry.path());
  }
  for (const fs::path& p : removed) fs::remove_all(p);
  return removed;
}

fs::path saveCheckpoint(const fs::path& checkpoints_dir, LanguageModel& model, torch::optim::Optimizer& optimizer,
                        const TrainerState& state, const nlohmann::json& checkpoint_config,
                        const std::string& tokenizer_bytes, int64_t keep_last) {
  for (const auto& p : model.parameters()) {
    if (!torch::isfinite(p).all().item<bool>()) {
      throw MixerLabError("not writing checkpoint " + stepFolderName(state.step) +
                              ": the model's weights are not finite (the run has diverged)",
                          "resume from the previous checkpoint with a lower train.learning_rate");
    }
  }
  fs::create_directories(checkpoints_dir);
  const std::string name = stepFolderName(state.step);
  const fs::path partial = checkpoints_dir / (kPartialPrefix + name);
  const fs::path final_dir = checkpoints_dir / name;
  fs::remove_all(partial);
  fs::create_directories(partial);
  try {
    saveSafetensors(partial / kWeightsFile, model.exportTensors(),
                    {{"format", "pt"}, {"arch", model.config().arch}, {"step", std::to_string(state.step)}});
    crashPoint("checkpoint-file");
    // Serialized in memory and written by writeFileAtomic (fsync, ENOSPC as an error): LibTorch's
    // file writer throws from a destructor when the disk fills, which aborts the process.
    std::ostringstream optimizer_bytes, rng_bytes;
    torch::serialize::OutputArchive archive;
    optimizer.save(archive);
    archive.save_to(optimizer_bytes);
    torch::save(at::detail::getDefaultCPUGenerator().get_state(), rng_bytes);
    const std::string optimizer_file = optimizer_bytes.str(), rng_file = rng_bytes.str();
    writeFileAtomic(partial / "optimizer.pt", optimizer_file);
    crashPoint("checkpoint-file");
    writeFileAtomic(partial / "rng.pt", rng_file);
    crashPoint("checkpoint-file");
    const std::string config_file = checkpoint_config.dump(2) + "\n";
    writeFileAtomic(partial / kConfigFile, config_file);
    crashPoint("checkpoint-file");
    if (!tokenizer_bytes.empty()) writeFileAtomic(partial / kTokenizerFile, tokenizer_bytes);
    nlohmann::json trainer_state = state.toJson();
    trainer_state[kCheckpointFormatKey] = kCheckpointFormatWithManifest;  // a missing manifest is then noticed
    const std::string state_file = trainer_state.dump(2) + "\n";
    writeFileAtomic(partial / kCheckpointStateFile, state_file);
    crashPoint("checkpoint-file");
    // Last: the manifest vouches for every file (LibTorch's archives and the JSON files have no
    // checksum of their own); the checksums of the bytes just written are not computed twice.
    writeCheckpointManifest(partial, {{"optimizer.pt", hashHex(optimizer_file)},
                                      {"rng.pt", hashHex(rng_file)},
                                      {kConfigFile, hashHex(config_file)},
                                      {kCheckpointStateFile, hashHex(state_file)}});
    syncDirectory(partial);
    crashPoint("checkpoint-file");  // the manifest is written: the folder is whole but still hidden
    discardStepFolder(final_dir);   // a resumed run may redo a step it had checkpointed
    renameAtomic(partial, final_dir);
    crashPoint("checkpoint-published");  // step-N is in place, latest.json still names the previous one
    writeFileAtomic(checkpoints_dir / "latest.json",
                    nlohmann::json{{"checkpoint", name}, {"step", state.step}}.dump() + "\n");
  } catch (const MixerLabError&) {
    fs::remove_all(partial);
    throw;
  } catch (const fs::filesystem_error& e) {
    fs::remove_all(partial);
    throw MixerLabError("cannot write checkpoint " + final_dir.string() + ": " + e.what(),
                        writeErrorFix(e.code().value()) + "; the previous checkpoint is intact");
  } catch (const std::exception& e) {
    fs::remove_all(partial);
    throw MixerLabError("cannot write checkpoint " + final_dir.string() + ": " + e.what(),
                        "free disk space; the previous checkpoint is intact");
  }
  pruneCheckpoints(checkpoints_dir, final_dir, keep_last);
  return final_dir;
}

std::optional<fs::path> latestCheckpoint(const fs::path& checkpoints_dir) {
  if (const auto named = folderNamedByLatestJson(checkpoints_dir); named && isCompleteCheckpoint(*named)) return named;
  auto all = completeCheckpoints(checkpoints_dir);
  if (all.empty()) return std::nullopt;
  return all.back();
}

fs::path resolveCheckpointDir(const fs::path& path) {
  const std::string fix = "pass a run folder (runs/<run-id>), its checkpoints/ folder or a checkpoints/step-N folder";
  if (!fs::exists(path)) throw MixerLabError("no such checkpoint or run folder: " + path.string(), fix);
  if (!fs::is_directory(path)) {
    throw MixerLabError(path.string() + " is a file, not a checkpoint folder",
                        fix + (path.has_parent_path() ? " (perhaps " + path.parent_path().string() + ")" : ""));
  }
  // A checkpoint folder, even one that lost its trainer_state.json, is refused when incomplete
  // rather than searched for checkpoints inside it.
  const std::string name = (path.filename().empty() ? path.parent_path() : path).filename().string();
  if (fs::exists(path / kCheckpointStateFile) || fs::exists(path / kCheckpointManifestFile) ||
      (isStepFolderName(name) && !fs::exists(RunPaths{path}.checkpoints()))) {
    requireCompleteCheckpoint(path);
    return path;
  }
  for (const fs::path& candidate : {RunPaths{path}.checkpoints(), path}) {
    if (auto latest = latestCheckpoint(candidate)) return *latest;
  }
  throw MixerLabError("no checkpoint found at " + path.string(),
                      "pass a run folder (runs/<run-id>), its checkpoints/ folder or a checkpoints/step-N folder");
}

void throwPrunedWhileRead(const fs::path& dir, const std::exception& cause) {
  throw MixerLabError("checkpoint " + dir.string() +
                          " was removed while it was read (the run's trainer keeps only its newest checkpoints; " +
                          cause.what() + ")",
                      "pass the run folder to read its newest checkpoint, or raise train.keep_checkpoints");
}

void requireTrainableCheckpoint(const fs::path& checkpoint_dir) {
  requireCompleteCheckpoint(checkpoint_dir, {kConfigFile, kWeightsFile, "optimizer.pt", kCheckpointStateFile});
}

fs::path checkpointConfigFile(const fs::path& checkpoint_dir) { return checkpoint_dir / kConfigFile; }

fs::path checkpointTokenizerFile(const fs::path& checkpoint_dir) {
  readCheckpointFile(checkpoint_dir, kTokenizerFile);  // throws when missing or damaged
  return checkpoint_dir / kTokenizerFile;
}

bool checkpointHasTokenizer(const fs::path& checkpoint_dir) {
  std::error_code ignored;
  return fs::is_regular_file(checkpoint_dir / kTokenizerFile, ignored);
}

nlohmann::json readCheckpointConfig(const fs::path& dir) {
  try {
    return nlohmann::json::parse(readCheckpointFile(dir, kConfigFile));
  } catch (const nlohmann::json::exception& e) {
    throw MixerLabError(checkpointConfigFile(dir).string() + ": malformed: " + e.what(), "use another checkpoint");
  }
}

TrainerState readTrainerState(const fs::path& dir) {
  const fs::path path = dir / kCheckpointStateFile;
  TrainerState state = parseTrainerState(readCheckpointFile(dir, kCheckpointStateFile), path.string());
  // The step must be the folder's: a state copied or renamed into another step folder would resume
  // the wrong weights' schedule and data position.
  const std::string folder = (dir.filename().empty() ? dir.parent_path() : dir).filename().string();
  if (isStepFolderName(folder) && state.step != std::stoll(folder.substr(5))) {
    throw MixerLabError(path.string() + " says step " + std::to_string(state.step) + " but its folder is " + folder +
                            ": the file was edited or the folder renamed",
                        "use another checkpoint (train --resume falls back to the newest intact one by itself)");
  }
  return state;
}

TrainerState parseTrainerState(const std::string& text, const std::string& source) {
  try {
    return TrainerState::fromJson(nlohmann::json::parse(text));
  } catch (const nlohmann::json::exception& e) {
    throw MixerLabError(source + ": malformed: " + e.what(), "use another checkpoint");
  } catch (const MixerLabError& e) {
    throw MixerLabError(source + ": malformed: " + e.problem(), "use another checkpoint");
  }
}

void loadModelTensors(LanguageModel& model, SafetensorsFile file, const std::string& source_name) {
  if (model.exportsTiedHead()) file.tensors.erase("lm_head.weight");  // exported copy of the shared matrix
  // Files carry the research's names (fileTensorName); the module wants its own paths. A tensor
  // stored under the module path itself (checkpoints written before a family's research names were
  // adopted) is accepted too, and tensors the model declares unused are skipped.
  std::map<std::string, std::string> module_name_of;
  for (const auto& item : model.named_parameters(true)) module_name_of[model.fileTensorName(item.key())] = item.key();
  for (const auto& item : model.named_buffers(true)) module_name_of[model.fileTensorName(item.key())] = item.key();
  std::map<std::string, at::Tensor> by_module_name;
  for (auto& [name, tensor] : file.tensors) {
    if (const auto it = module_name_of.find(name); it != module_name_of.end()) {
      by_module_name[it->second] = tensor;
    } else if (!model.ignoresFileTensor(name) && !by_module_name.count(name)) {
      by_module_name[name] = tensor;  // a module path, or an unexpected tensor loadIntoModule names
    }
  }
  file.tensors = std::move(by_module_name);
  loadIntoModule(model, file, source_name, /*allow_extra=*/false,
                 [&model](const std::string& module_name) { return model.fileTensorName(module_name); });
  model.afterLoad();
}

void loadModelWeights(LanguageModel& model, const fs::path& dir) {
  const fs::path path = dir / kWeightsFile;
  loadModelTensors(model, parseSafetensors(readCheckpointFile(dir, kWeightsFile), path.string()), path.string());
}

void loadOptimizerState(torch::optim::Optimizer& optimizer, const fs::path& dir) {
  const fs::path path = dir / "optimizer.pt";
  try {
    std::istringstream bytes(readCheckpointFile(dir, "optimizer.pt"));
    torch::serialize::InputArchive archive;
    archive.load_from(bytes);
    optimizer.load(archive);
  } catch (const c10::Error& e) {
    throw MixerLabError(path.string() + ": unreadable optimizer state (" + e.what_without_backtrace() + ")",
                        "the file is damaged; use an earlier checkpoint (train --resume falls back to one)");
  }
}

void restoreRngState(const fs::path& dir) {
  const fs::path path = dir / "rng.pt";
  if (!fs::exists(path) && !fs::exists(dir / kCheckpointManifestFile)) return;  // an older folder without one
  at::Tensor state;
  try {
    std::istringstream bytes(readCheckpointFile(dir, "rng.pt"));
    torch::load(state, bytes);
    at::Generator generator = at::detail::getDefaultCPUGenerator();  // a handle sharing the default generator
    std::lock_guard<std::mutex> lock(generator.mutex());
    generator.set_state(state);
  } catch (const c10::Error& e) {
    throw MixerLabError(path.string() + ": unreadable random-number state (" + e.what_without_backtrace() + ")",
                        "the file is damaged; use an earlier checkpoint (train --resume falls back to one)");
  }
}

LanguageModelPtr loadModelFromCheckpoint(const fs::path& dir) {
  auto config = readCheckpointConfig(dir);
  auto model = buildModel(ModelConfig::fromJson(config.at("model")));
  loadModelWeights(*model, dir);
  return model;
}

}  // namespace mixerlab
