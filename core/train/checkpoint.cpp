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
constexpr const char* kChecksumsKey = "file_fnv1a64";

// The bytes of a checkpoint file, checked against the checksum trainer_state.json recorded for it
// (checkpoints written before checksums were recorded are read unchecked).
std::string readCheckedFile(const fs::path& dir, const std::string& name) {
  const fs::path path = dir / name;
  std::string bytes = readFile(path);
  nlohmann::json state;
  try {
    state = nlohmann::json::parse(readFile(dir / "trainer_state.json"));
  } catch (const std::exception&) {
    return bytes;  // readTrainerState reports a malformed state file
  }
  if (state.contains(kChecksumsKey) && state[kChecksumsKey].contains(name)) {
    const std::string stored = state[kChecksumsKey][name].get<std::string>();
    const std::string computed = hashHex(bytes);
    if (stored != computed) {
      throw MixerLabError(path.string() + ": does not match the checksum in trainer_state.json (stored " + stored +
                              ", computed " + computed + "): the file is damaged",
                          "use an earlier checkpoint (train --resume falls back to the newest intact one)");
    }
  }
  return bytes;
}

std::string stepFolderName(int64_t step) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "step-%08lld", static_cast<long long>(step));
  return buf;
}

bool isStepFolderName(const std::string& name) {
  static const std::regex pattern("step-[0-9]{8}");
  return std::regex_match(name, pattern);
}

std::vector<fs::path> completeCheckpoints(const fs::path& dir) {
  std::vector<fs::path> found;
  if (!fs::is_directory(dir)) return found;
  for (const auto& entry : fs::directory_iterator(dir)) {
    if (entry.is_directory() && isStepFolderName(entry.path().filename().string()) &&
        fs::exists(entry.path() / "trainer_state.json")) {
      found.push_back(entry.path());
    }
  }
  std::sort(found.begin(), found.end());
  return found;
}
}  // namespace

std::vector<fs::path> listCheckpoints(const fs::path& checkpoints_dir) { return completeCheckpoints(checkpoints_dir); }

std::vector<fs::path> removePartialCheckpoints(const fs::path& checkpoints_dir) {
  std::vector<fs::path> removed;
  if (!fs::exists(checkpoints_dir)) return removed;
  for (const auto& entry : fs::directory_iterator(checkpoints_dir)) {
    if (entry.path().filename().string().rfind(".partial-", 0) == 0) removed.push_back(entry.path());
  }
  for (const fs::path& p : removed) fs::remove_all(p);
  return removed;
}

fs::path saveCheckpoint(const fs::path& checkpoints_dir, LanguageModel& model, torch::optim::Optimizer& optimizer,
                        const TrainerState& state, const nlohmann::json& checkpoint_config,
                        const fs::path& tokenizer_model, int64_t keep_last) {
  for (const auto& p : model.parameters()) {
    if (!torch::isfinite(p).all().item<bool>()) {
      throw MixerLabError("not writing checkpoint " + stepFolderName(state.step) +
                              ": the model's weights are not finite (the run has diverged)",
                          "resume from the previous checkpoint with a lower train.learning_rate");
    }
  }
  fs::create_directories(checkpoints_dir);
  const std::string name = stepFolderName(state.step);
  const fs::path partial = checkpoints_dir / (".partial-" + name);
  const fs::path final_dir = checkpoints_dir / name;
  fs::remove_all(partial);
  fs::create_directories(partial);
  try {
    saveSafetensors(partial / "model.safetensors", model.exportTensors(),
                    {{"format", "pt"}, {"arch", model.config().arch}, {"step", std::to_string(state.step)}});
    // Serialized in memory and written by writeFileAtomic (fsync, ENOSPC as an error): LibTorch's
    // file writer throws from a destructor when the disk fills, which aborts the process.
    std::ostringstream optimizer_bytes, rng_bytes;
    torch::serialize::OutputArchive archive;
    optimizer.save(archive);
    archive.save_to(optimizer_bytes);
    torch::save(at::detail::getDefaultCPUGenerator().get_state(), rng_bytes);
    const std::string optimizer_file = optimizer_bytes.str(), rng_file = rng_bytes.str();
    writeFileAtomic(partial / "optimizer.pt", optimizer_file);
    writeFileAtomic(partial / "rng.pt", rng_file);
    writeFileAtomic(checkpointConfigFile(partial), checkpoint_config.dump(2) + "\n");
    if (!tokenizer_model.empty()) fs::copy_file(tokenizer_model, checkpointTokenizerFile(partial));
    // LibTorch's archives are not checked when read: their checksums travel in trainer_state.json
    // (model.safetensors carries its own), written last, so a complete checkpoint vouches for them.
    nlohmann::json trainer_state = state.toJson();
    trainer_state[kChecksumsKey] = {{"optimizer.pt", hashHex(optimizer_file)}, {"rng.pt", hashHex(rng_file)}};
    writeFileAtomic(partial / "trainer_state.json", trainer_state.dump(2) + "\n");
    syncDirectory(partial);
    fs::remove_all(final_dir);  // a resumed run may redo a step it had checkpointed
    renameAtomic(partial, final_dir);
    writeFileAtomic(checkpoints_dir / "latest.json",
                    nlohmann::json{{"checkpoint", name}, {"step", state.step}}.dump() + "\n");
  } catch (const MixerLabError&) {
    fs::remove_all(partial);
    throw;
  } catch (const std::exception& e) {
    fs::remove_all(partial);
    throw MixerLabError("cannot write checkpoint " + final_dir.string() + ": " + e.what(),
                        "free disk space; the previous checkpoint is intact");
  }
  auto all = completeCheckpoints(checkpoints_dir);
  for (size_t i = 0; i + static_cast<size_t>(keep_last) < all.size(); ++i) {
    if (all[i] != final_dir) fs::remove_all(all[i]);
  }
  return final_dir;
}

std::optional<fs::path> latestCheckpoint(const fs::path& checkpoints_dir) {
  try {
    auto j = nlohmann::json::parse(readFile(checkpoints_dir / "latest.json"));
    const std::string name = j.at("checkpoint").get<std::string>();
    // Only a step folder of this run: a hand-edited "../.." never leads outside it.
    const fs::path dir = checkpoints_dir / name;
    if (isStepFolderName(name) && fs::exists(dir / "trainer_state.json")) return dir;
  } catch (const std::exception&) {
  }
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
  if (fs::exists(path / "trainer_state.json")) return path;
  for (const fs::path& candidate : {RunPaths{path}.checkpoints(), path}) {
    if (auto latest = latestCheckpoint(candidate)) return *latest;
  }
  throw MixerLabError("no checkpoint found at " + path.string(),
                      "pass a run folder (runs/<run-id>), its checkpoints/ folder or a checkpoints/step-N folder");
}

fs::path checkpointConfigFile(const fs::path& checkpoint_dir) { return checkpoint_dir / "config.json"; }
fs::path checkpointTokenizerFile(const fs::path& checkpoint_dir) { return checkpoint_dir / "tokenizer.model"; }

nlohmann::json readCheckpointConfig(const fs::path& dir) {
  try {
    return nlohmann::json::parse(readFile(checkpointConfigFile(dir)));
  } catch (const nlohmann::json::exception& e) {
    throw MixerLabError(checkpointConfigFile(dir).string() + ": malformed: " + e.what(), "use another checkpoint");
  }
}

TrainerState readTrainerState(const fs::path& dir) {
  return parseTrainerState(readFile(dir / "trainer_state.json"), (dir / "trainer_state.json").string());
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
  const fs::path path = dir / "model.safetensors";
  loadModelTensors(model, loadSafetensors(path), path.string());
}

void loadOptimizerState(torch::optim::Optimizer& optimizer, const fs::path& dir) {
  const fs::path path = dir / "optimizer.pt";
  try {
    std::istringstream bytes(readCheckedFile(dir, "optimizer.pt"));
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
  if (!fs::exists(path)) return;
  at::Tensor state;
  try {
    std::istringstream bytes(readCheckedFile(dir, "rng.pt"));
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
