// Last-layer text embeddings and their disk cache (see text_embeddings.h).
#include "core/analysis/retrieval/text_embeddings.h"

#include <unistd.h>

#include <torch/torch.h>

#include "core/models/model_registry.h"
#include "core/models/safetensors.h"
#include "core/train/checkpoint.h"
#include "core/util/error.h"
#include "core/util/hashing.h"

namespace mixerlab {
namespace fs = std::filesystem;

at::Tensor embedTexts(AnalysisModel& m, const std::vector<std::string>& texts, const EmbeddingSettings& settings,
                      const std::function<void(size_t, size_t)>& progress, const std::atomic<bool>* cancel) {
  LanguageModel& model = *m.model;
  const int64_t context = model.config().context_length;
  const int64_t from_end =
      settings.from_end >= 0 ? settings.from_end : findArchitecture(model.config().arch).embedding_position_from_end;
  if (from_end >= context)
    throw MixerLabError("embedding position " + std::to_string(from_end) + " from the end does not fit the context");
  const bool left = m.train.padding_side != "right";
  torch::NoGradGuard no_grad;
  const c10::Device device = model.parameters().empty() ? c10::Device(c10::kCPU) : model.parameters().front().device();
  std::vector<at::Tensor> parts;
  const size_t batch = static_cast<size_t>(std::max<int64_t>(1, settings.batch_size));
  for (size_t first = 0; first < texts.size(); first += batch) {
    if (cancel != nullptr && cancel->load()) throw MixerLabError("embedding cancelled");
    const size_t count = std::min(batch, texts.size() - first);
    auto ids = torch::full({static_cast<int64_t>(count), context}, m.padId(), torch::kLong);
    std::vector<int64_t> positions;
    for (size_t b = 0; b < count; ++b) {
      std::vector<int> encoded = m.encode(texts[first + b]);
      if (static_cast<int64_t>(encoded.size()) > context) encoded.resize(static_cast<size_t>(context));
      const int64_t n = static_cast<int64_t>(encoded.size());
      const int64_t offset = left ? context - n : 0;
      for (int64_t t = 0; t < n; ++t) ids[static_cast<int64_t>(b)][offset + t] = encoded[static_cast<size_t>(t)];
      // Left padding: the research's fixed index T-1-from_end. Right: back from the last real token.
      positions.push_back(std::max<int64_t>(0, (left ? context - 1 : n - 1) - from_end));
    }
    const auto hidden =
        (settings.after_final_norm ? model.finalNormStates(ids.to(device)) : model.embeddingStates(ids.to(device)))
            .cpu();  // [B, T, D]
    const auto index = torch::tensor(positions, torch::kLong).view({-1, 1, 1}).expand({-1, 1, hidden.size(2)});
    parts.push_back(hidden.gather(1, index).squeeze(1).to(torch::kFloat).contiguous());
    if (progress) progress(first + count, texts.size());
  }
  if (parts.empty()) throw MixerLabError("no texts to embed");
  return torch::cat(parts, 0);
}

std::string modelKey(const ModelSource& source) {
  if (!source.run_name.empty() || source.untrained) {
    const fs::path config =
        source.run_name.empty() ? checkpointConfigFile(resolveCheckpointDir(source.path)) : source.path;
    return hashHex(hashFileHex(config) + "|" + source.run_name + "|untrained|" + std::to_string(source.seed));
  }
  return hashFileHex(resolveCheckpointDir(source.path) / "model.safetensors");
}

at::Tensor cachedEmbeddings(AnalysisModel& m, const std::string& model_key, const std::vector<std::string>& texts,
                            const EmbeddingSettings& settings, const fs::path& cache_dir, bool* reused,
                            const std::function<void(size_t, size_t)>& progress, const std::atomic<bool>* cancel) {
  std::string text_bytes;
  for (const auto& t : texts) text_bytes += std::to_string(t.size()) + ":" + t;
  const std::string key =
      hashHex(model_key + "|" + hashHex(text_bytes) + "|" + std::to_string(settings.from_end) + "|states-v" +
              std::to_string(kEmbeddingStatesVersion) + (settings.after_final_norm ? "|after-final-norm" : ""));
  const fs::path file = cache_dir / ("embeddings-" + key.substr(0, 24) + ".safetensors");
  if (fs::exists(file)) {
    if (reused) *reused = true;
    return loadSafetensors(file).tensors.at("embeddings");
  }
  if (reused) *reused = false;
  const at::Tensor embeddings = embedTexts(m, texts, settings, progress, cancel);
  fs::create_directories(cache_dir);
  const fs::path partial = file.string() + ".tmp-" + std::to_string(::getpid());
  saveSafetensors(partial, {{"embeddings", embeddings}},
                  {{"model_key", model_key}, {"count", std::to_string(texts.size())}});
  fs::rename(partial, file);
  return embeddings;
}

}  // namespace mixerlab
