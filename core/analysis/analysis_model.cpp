// Loading models for analysis (see analysis_model.h).
#include "core/analysis/analysis_model.h"

#include <torch/torch.h>

#include "core/config/project_config.h"
#include "core/data/token_cache.h"
#include "core/models/model_registry.h"
#include "core/runs/run_directory.h"
#include "core/train/checkpoint.h"
#include "core/train/device.h"
#include "core/train/project_data.h"
#include "core/util/error.h"

namespace mixerlab {
namespace fs = std::filesystem;

std::string ModelSource::label() const {
  if (!run_name.empty()) return "untrained " + run_name + " (" + path.stem().string() + ")";
  const std::string where = RunPaths::holdsCheckpoint(path)
                                ? RunPaths::ofCheckpoint(path).root.filename().string() + "/" + path.filename().string()
                                : path.filename().string();
  return untrained ? "untrained " + where : where;
}

int AnalysisModel::padId() const { return train.pad_token == "pad" ? tokenizer->padId() : tokenizer->eosId(); }

std::vector<int> AnalysisModel::encode(const std::string& text) const {
  return encodeDocument(*tokenizer, text, parseNewlineMode(train.newline));
}

namespace {
LanguageModelPtr freshModel(const ModelConfig& config, uint64_t seed) {
  torch::manual_seed(seed);
  auto model = buildModel(config);
  return model;
}
}  // namespace

AnalysisModel loadAnalysisModel(const ModelSource& source) {
  configureCpuThreads(0);
  AnalysisModel m;
  m.label = source.label();
  if (!source.run_name.empty()) {
    const ProjectConfig project = loadProject(source.path);
    const RunConfig& run = project.run(source.run_name);
    m.train = run.train;
    const fs::path tokenizer_path = ensureProjectTokenizer(project, {});
    m.tokenizer = std::make_unique<Tokenizer>(Tokenizer::load(tokenizer_path));
    m.model = freshModel(run.model, source.seed != 0 ? source.seed : run.train.seed);
  } else {
    // Config, tokenizer and weights from one checkpoint, read again from the newest when a live
    // run's trainer prunes it meanwhile.
    readResolvedCheckpoint(source.path, [&](const fs::path& dir) {
      const nlohmann::json config = readCheckpointConfig(dir);
      m.train =
          TrainConfig::fromJson(config.value("run", nlohmann::json::object()).value("train", nlohmann::json::object()));
      m.tokenizer = std::make_unique<Tokenizer>(Tokenizer::load(checkpointTokenizerFile(dir)));
      if (source.untrained) {
        m.model = freshModel(ModelConfig::fromJson(config.at("model")), source.seed != 0 ? source.seed : m.train.seed);
      } else {
        m.model = loadModelFromCheckpoint(dir);
      }
      return 0;
    });
  }
  m.model->eval();
  return m;
}

}  // namespace mixerlab
