// Eval-split documents (see eval_documents.h).
#include "core/analysis/eval_documents.h"

#include "core/analysis/checkpoint_eval.h"
#include "core/data/batching.h"
#include "core/data/document_stream.h"
#include "core/train/checkpoint.h"
#include "core/train/project_data.h"

namespace mixerlab {

std::vector<std::string> evalSplitDocuments(const ProjectConfig& project, size_t count) {
  // Streams the corpus and stops at `count` eval documents: the corpus may be far larger than memory.
  const bool separate = !project.corpus.eval_path.empty();
  const std::vector<SourceFile> sources = separate ? projectEvalSources(project) : projectTrainSources(project);
  std::vector<std::string> documents;
  std::string document;
  size_t index = 0;
  for (const SourceFile& source : sources) {
    DocumentStream stream(source, project.corpus.json_field);
    while (documents.size() < count && stream.next(document)) {
      const bool eval =
          separate || (project.corpus.eval_documents > 0
                           ? index < static_cast<size_t>(project.corpus.eval_documents)
                           : isEvalDocument(index, project.corpus.eval_fraction, project.corpus.split_seed));
      ++index;
      if (eval) documents.push_back(document);
      if (!separate && project.corpus.eval_documents > 0 &&
          index >= static_cast<size_t>(project.corpus.eval_documents)) {
        return documents;
      }
    }
    if (documents.size() >= count) break;
  }
  return documents;
}

std::vector<std::string> checkpointEvalDocuments(const std::filesystem::path& checkpoint, size_t count) {
  const std::filesystem::path dir = resolveCheckpointDir(checkpoint);
  return evalSplitDocuments(checkpointProject(dir, readCheckpointConfig(dir)), count);
}

}  // namespace mixerlab
