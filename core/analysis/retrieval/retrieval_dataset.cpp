// Retrieval dataset folders (see retrieval_dataset.h).
#include "core/analysis/retrieval/retrieval_dataset.h"

#include <cmath>

#include <torch/torch.h>
#include <nlohmann/json.hpp>

#include "core/analysis/analysis_model.h"
#include "core/models/safetensors.h"
#include "core/train/device.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace mixerlab {
namespace fs = std::filesystem;

RetrievalDataset buildRetrievalDataset(const ModelSource& source, const std::vector<StoryPair>& pairs,
                                       double test_fraction, const EmbeddingSettings& embedding, const fs::path& dir,
                                       const std::function<void(size_t, size_t)>& progress,
                                       const std::atomic<bool>* cancel) {
  if (pairs.size() < 2)
    throw MixerLabError("a retrieval dataset needs at least 2 pairs, got " + std::to_string(pairs.size()));
  if (!(test_fraction > 0 && test_fraction < 1)) throw MixerLabError("test_fraction must lie in (0, 1)");
  RetrievalDataset d;
  d.dir = dir;
  d.source = source;
  d.pairs = pairs;
  d.embedding = embedding;
  const auto held_out = static_cast<int64_t>(std::ceil(test_fraction * static_cast<double>(pairs.size())));
  d.train_count =
      std::clamp<int64_t>(static_cast<int64_t>(pairs.size()) - held_out, 1, static_cast<int64_t>(pairs.size()) - 1);
  AnalysisModel m = loadAnalysisModel(source);
  m.model->to(selectDevice(embedding.device));
  d.model_label = m.label;
  d.model_key = modelKey(source);
  std::vector<std::string> summaries, stories;
  for (const auto& p : pairs) {
    summaries.push_back(p.summary);
    stories.push_back(p.story);
  }
  const size_t total = pairs.size() * 2;
  auto report = [&](size_t offset) {
    return [&, offset](size_t done, size_t) {
      if (progress) progress(offset + done, total);
    };
  };
  const at::Tensor queries =
      cachedEmbeddings(m, d.model_key, summaries, embedding, dir / "cache", nullptr, report(0), cancel);
  const at::Tensor targets =
      cachedEmbeddings(m, d.model_key, stories, embedding, dir / "cache", nullptr, report(pairs.size()), cancel);
  const int64_t n = d.train_count, rest = static_cast<int64_t>(pairs.size()) - n;
  d.query_train = queries.narrow(0, 0, n).contiguous();
  d.query_test = queries.narrow(0, n, rest).contiguous();
  d.target_train = targets.narrow(0, 0, n).contiguous();
  d.target_test = targets.narrow(0, n, rest).contiguous();

  fs::create_directories(dir);
  writeStoryPairs(dir / "pairs.jsonl", pairs);
  const fs::path partial = dir / "embeddings.safetensors.tmp-build";
  saveSafetensors(partial,
                  {{"query_train", d.query_train},
                   {"query_test", d.query_test},
                   {"target_train", d.target_train},
                   {"target_test", d.target_test}},
                  {{"model_key", d.model_key}});
  fs::rename(partial, dir / "embeddings.safetensors");
  const nlohmann::json meta = {{"model",
                                {{"path", fs::absolute(source.path).string()},
                                 {"run", source.run_name},
                                 {"untrained", source.untrained},
                                 {"seed", source.seed},
                                 {"label", d.model_label},
                                 {"key", d.model_key}}},
                               {"pairs", pairs.size()},
                               {"train", d.train_count},
                               {"test", rest},
                               {"width", queries.size(1)},
                               {"embedding_from_end", embedding.from_end},
                               {"embedding_after_final_norm", embedding.after_final_norm},
                               {"embedding_states", kEmbeddingStatesVersion}};
  writeFileAtomic(dir / "retrieval.json", meta.dump(2) + "\n");
  return d;
}

RetrievalDataset loadRetrievalDataset(const fs::path& dir) {
  for (const char* name : {"retrieval.json", "embeddings.safetensors", "pairs.jsonl"}) {
    if (!fs::exists(dir / name)) {
      throw MixerLabError(dir.string() + " has no " + name,
                          "build it with mixerlab retrieval build --out " + dir.string());
    }
  }
  nlohmann::json meta;
  try {
    meta = nlohmann::json::parse(readFile(dir / "retrieval.json"));
  } catch (const nlohmann::json::exception& e) {
    throw MixerLabError((dir / "retrieval.json").string() + " is not valid JSON: " + e.what());
  }
  RetrievalDataset d;
  d.dir = dir;
  const auto& model = meta.at("model");
  d.source = {model.at("path").get<std::string>(), model.at("run").get<std::string>(),
              model.at("untrained").get<bool>(), model.at("seed").get<uint64_t>()};
  d.model_label = model.at("label").get<std::string>();
  d.model_key = model.at("key").get<std::string>();
  d.train_count = meta.at("train").get<int64_t>();
  d.embedding.from_end = meta.at("embedding_from_end").get<int64_t>();
  d.embedding.after_final_norm = meta.value("embedding_after_final_norm", false);
  d.embedding_states = meta.value("embedding_states", 1);
  d.pairs = readStoryPairs(dir / "pairs.jsonl");
  auto file = loadSafetensors(dir / "embeddings.safetensors");
  d.query_train = file.tensors.at("query_train");
  d.query_test = file.tensors.at("query_test");
  d.target_train = file.tensors.at("target_train");
  d.target_test = file.tensors.at("target_test");
  return d;
}

}  // namespace mixerlab
