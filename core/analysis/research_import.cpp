// Research checkpoint import (see research_import.h).
#include "core/analysis/research_import.h"

#include <torch/torch.h>

#include "core/config/project_config.h"
#include "core/data/tokenizer.h"
#include "core/models/model_registry.h"
#include "core/models/safetensors.h"
#include "core/runs/run_directory.h"
#include "core/runs/run_info.h"
#include "core/runs/run_status.h"
#include "core/train/checkpoint.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/folder_name.h"

namespace mixerlab {
namespace fs = std::filesystem;

namespace {

// The model section of the config file; `wrapped` tells whether the file held it under "model".
nlohmann::json readModelConfigJson(const fs::path& path, bool& wrapped) {
  if (!fs::exists(path)) throw MixerLabError("model config " + path.string() + " does not exist", "check the path");
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(readFile(path));
  } catch (const nlohmann::json::exception& e) {
    throw MixerLabError(path.string() + ": malformed JSON: " + e.what(), "fix the file");
  }
  wrapped = j.is_object() && j.contains("model");
  if (wrapped) j = j.at("model");  // a run or checkpoint config
  if (!j.is_object() || !j.contains("arch")) {
    throw MixerLabError(path.string() + ": expected a model config object with \"arch\"",
                        "write the model section of a MixerLab run, e.g. {\"arch\": \"masked_mixer\", \"d_model\": "
                        "1024, \"n_layers\": 8, \"context_length\": 512, \"vocab_size\": 4096}");
  }
  const nlohmann::json& arch = j.at("arch");
  bool known = false;
  for (const auto& a : architectures()) known = known || (arch.is_string() && arch.get<std::string>() == a.name);
  if (!known) {
    throw MixerLabError(path.string() + ": \"arch\" is " + arch.dump() + ", not an architecture MixerLab knows",
                        "use one of: " + architectureNames());
  }
  return j;
}

// The import validates the model config by parsing a one-run project it makes up; errors of that
// parse name the project's file and field ("<run>/project.json: runs[0].model.d_model: ..."), which
// the user never wrote. They are reworded to name the model config file and its own field.
ProjectConfig parseImportProject(const nlohmann::json& document, const fs::path& project_file,
                                 const fs::path& model_config, bool model_is_wrapped) {
  try {
    return parseProject(document, project_file, CorpusFiles::MayBeMissing);
  } catch (const MixerLabError& e) {
    const std::string prefix = project_file.string() + ": runs[0].model.";
    if (e.problem().rfind(prefix, 0) != 0) throw;
    const std::string field = e.problem().substr(prefix.size());
    throw MixerLabError(model_config.string() + ": " + (model_is_wrapped ? "model." : "") + field, e.fix());
  }
}

// saveCheckpoint refuses non-finite weights as a diverged training run; for an import the fault is
// in the file, so the file's tensor is named before anything is written.
void requireFiniteTensors(const SafetensorsFile& file, const LanguageModel& model, const fs::path& source) {
  for (const auto& [name, tensor] : file.tensors) {
    if (!at::isFloatingType(tensor.scalar_type()) || model.ignoresFileTensor(name)) continue;
    const at::Tensor values = tensor.to(at::kFloat);
    const int64_t nan = values.isnan().sum().item<int64_t>();
    const int64_t inf = values.isinf().sum().item<int64_t>();
    if (nan + inf > 0) {
      throw MixerLabError(source.string() + ": tensor \"" + name + "\" has " + std::to_string(nan) + " NaN and " +
                              std::to_string(inf) + " infinite values (of " + std::to_string(values.numel()) +
                              "); nothing was imported",
                          "export the weights again from a checkpoint whose values are all finite");
    }
  }
}

}  // namespace

ResearchImportResult importResearchCheckpoint(const ResearchImportRequest& req) {
  fs::path run_dir = fs::absolute(req.out_dir).lexically_normal();
  if (!run_dir.has_filename()) run_dir = run_dir.parent_path();  // "runs/x/"
  // The folder's name becomes the run's name: checked before the file system sees it (a 300-character
  // name made fs::exists throw a raw "File name too long"; "-rf" reads as an option in a shell).
  requireFolderName(run_dir.filename().string(), "--out folder name");
  if (fs::exists(run_dir) && !fs::is_empty(run_dir)) {
    throw MixerLabError("output folder " + req.out_dir.string() + " exists and is not empty",
                        "choose a new folder for the imported run");
  }
  const Tokenizer tokenizer = Tokenizer::load(req.tokenizer);
  bool model_is_wrapped = false;
  const nlohmann::json model_json = readModelConfigJson(req.model_config, model_is_wrapped);

  if (model_json.contains("vocab_size") && model_json.at("vocab_size") != tokenizer.vocabSize()) {
    throw MixerLabError("tokenizer " + req.tokenizer.string() + " has " + std::to_string(tokenizer.vocabSize()) +
                            " tokens but " + req.model_config.string() + " says vocab_size " +
                            model_json.at("vocab_size").dump(),
                        "use the tokenizer the checkpoint was trained with, or fix vocab_size");
  }

  // Eval and forks tokenize with the checkpoint's own tokenizer, kept beside the checkpoints.
  const fs::path tokenizer_file = run_dir / (tokenizer.isHuggingFaceJson() ? "tokenizer.json" : "tokenizer.model");
  // The project format needs a corpus; without --corpus, eval finds an empty one and says so.
  const fs::path corpus = req.corpus.empty() ? run_dir / "no-eval-corpus.txt" : fs::absolute(req.corpus);
  // A one-run project parsed by the normal parser, so the model config is validated exactly as a
  // project's would be (errors name the field and the expected value). Its files are written below.
  const nlohmann::json document = {
      {"name", "imported"},
      {"description", "imported from " + fs::absolute(req.safetensors).string()},
      {"corpus", {{"train", corpus.string()}}},
      {"tokenizer", {{"vocab_size", tokenizer.vocabSize()}, {"file", tokenizer_file.string()}}},
      // The run was trained elsewhere; its train section is a placeholder a fork replaces.
      {"runs", nlohmann::json::array(
                   {{{"name", run_dir.filename().string()}, {"model", model_json}, {"train", {{"max_steps", 1}}}}})}};
  const ProjectConfig project =
      parseImportProject(document, run_dir / "project.json", req.model_config, model_is_wrapped);
  const RunConfig& run = project.runs.front();
  const ModelConfig& model_config = run.model;

  // Everything that can fail on the inputs happens before anything is written.
  auto model = buildModel(model_config);
  SafetensorsFile file = loadSafetensors(req.safetensors);
  ResearchImportResult result;
  for (const auto& [name, tensor] : file.tensors) {
    (model->ignoresFileTensor(name) ? result.tensors_skipped : result.tensors_loaded) += 1;
  }
  requireFiniteTensors(file, *model, req.safetensors);
  loadModelTensors(*model, std::move(file), req.safetensors.string());

  const bool created = !fs::exists(run_dir);
  fs::create_directories(run_dir);
  try {
    fs::copy_file(req.tokenizer, tokenizer_file);
    if (req.corpus.empty()) writeFileAtomic(corpus, "");
    RunInfo info = runInfoFor(project, run);
    info.parameters = model->parameterCount();
    info.environment = {{"device", "cpu"}, {"imported_from", fs::absolute(req.safetensors).string()}};
    writeRunInfo(run_dir, info);
    torch::optim::AdamW optimizer(model->parameters(), torch::optim::AdamWOptions(run.train.learning_rate));
    TrainerState state;  // step 0: a fork or resume starts its schedule here
    result.checkpoint = saveCheckpoint(RunPaths{run_dir}.checkpoints(), *model, optimizer, state, info.configJson(),
                                       req.tokenizer.empty() ? std::string() : readFile(req.tokenizer),
                                       /*keep_last=*/1);
    RunStatus status;
    status.state = RunState::Finished;
    status.reason = "imported from " + req.safetensors.filename().string();
    writeRunStatus(run_dir, status);
    result.run_dir = run_dir;
    result.parameters = model->parameterCount();
  } catch (...) {
    if (created) fs::remove_all(run_dir);
    throw;
  }
  return result;
}

}  // namespace mixerlab
