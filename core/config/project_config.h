// A MixerLab project file (JSON): a corpus, tokenizer settings and one or more runs, each an
// architecture + training config. Relative paths resolve against the project file's folder.
// Loading validates everything and reports the file, the field and the expected value.
#pragma once
#include <filesystem>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/config/train_config.h"
#include "core/data/corpus_reader.h"
#include "core/data/tokenizer.h"
#include "core/models/model_config.h"

namespace mixerlab {

struct CorpusConfig {
  std::filesystem::path train_path;  // absolute after loading
  std::filesystem::path eval_path;   // empty: split eval documents off the train corpus
  CorpusFormat format = CorpusFormat::Auto;
  double eval_fraction = 0.05;  // used when eval_path is empty
  uint64_t split_seed = 1234;
  int64_t max_examples = 0;         // train on the first N training documents only (0 = all)
  std::string json_field = "text";  // JSON Lines: the string field holding a document's text
  // > 0: the first N documents of the training corpus are the eval split (blog II's Fineweb convention);
  // eval_fraction is then unused.
  int64_t eval_documents = 0;
  int64_t memory_mb = 2048;  // data preparation's memory bound
};

struct RunConfig {
  std::string name;
  ModelConfig model;
  TrainConfig train;
  nlohmann::json toJson() const;
};

struct ProjectConfig {
  std::filesystem::path file;  // the project.json
  std::string name;
  std::string description;
  CorpusConfig corpus;
  TokenizerSettings tokenizer;
  std::vector<RunConfig> runs;

  std::filesystem::path directory() const { return file.parent_path(); }
  std::filesystem::path cacheDirectory() const { return directory() / "cache"; }
  std::filesystem::path defaultRunsDirectory() const { return directory() / "runs"; }
  // Throws MixerLabError listing the run names when `run_name` is unknown.
  const RunConfig& run(const std::string& run_name) const;
  nlohmann::json toJson() const;  // the resolved form (absolute paths, all defaults filled in)
};

// Whether loading checks that the corpus files exist: everything that reads data needs them; a
// cost preview (`mixerlab info`) of a project whose corpus is not downloaded yet does not.
enum class CorpusFiles { MustExist, MayBeMissing };

// Reads and validates a project file; throws MixerLabError naming file, field and expectation.
ProjectConfig loadProject(const std::filesystem::path& path, CorpusFiles corpus_files = CorpusFiles::MustExist);
// Parses and validates the text of a project file (malformed JSON is reported as file:line:column),
// for callers that keep the text too (the GUI's project document).
ProjectConfig parseProjectText(const std::string& text, const std::filesystem::path& path,
                               CorpusFiles corpus_files = CorpusFiles::MustExist);
// Validates an already-parsed document (used by tests and the GUI's editor).
ProjectConfig parseProject(const nlohmann::json& document, const std::filesystem::path& path,
                           CorpusFiles corpus_files = CorpusFiles::MustExist);
// Rebuilds the one-run project stored in a checkpoint's config.json ("project" + "run"); train keys
// the checkpoint predates take the values its run used (TrainConfig::completeStored).
ProjectConfig projectFromCheckpointConfig(const nlohmann::json& checkpoint_config, const std::filesystem::path& source);

}  // namespace mixerlab
