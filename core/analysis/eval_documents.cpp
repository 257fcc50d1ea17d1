// Eval-split documents (see eval_documents.h).
#include "core/analysis/eval_documents.h"

#include "core/analysis/checkpoint_eval.h"
#include "core/data/batching.h"
#include "core/data/corpus_reader.h"
#include "core/train/checkpoint.h"

namespace mixerlab {

std::vector<std::string> evalSplitDocuments(const ProjectConfig& project, size_t count) {
  std::vector<std::string> documents;
  if (!project.corpus.eval_path.empty()) {
    documents = readCorpus(project.corpus.eval_path, project.corpus.format);
  } else {
    auto all = readCorpus(project.corpus.train_path, project.corpus.format);
    for (size_t i : splitDocuments(all.size(), project.corpus.eval_fraction, project.corpus.split_seed).second) {
      if (documents.size() >= count) break;
      documents.push_back(std::move(all[i]));
    }
  }
  if (documents.size() > count) documents.resize(count);
  return documents;
}

std::vector<std::string> checkpointEvalDocuments(const std::filesystem::path& checkpoint, size_t count) {
  const std::filesystem::path dir = resolveCheckpointDir(checkpoint);
  return evalSplitDocuments(checkpointProject(dir, readCheckpointConfig(dir)), count);
}

}  // namespace mixerlab
