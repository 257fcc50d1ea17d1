// Text scoring (see text_score.h).
#include "core/analysis/text_score.h"

#include <torch/torch.h>

#include "core/config/train_config.h"
#include "core/data/token_cache.h"
#include "core/data/tokenizer.h"
#include "core/train/checkpoint.h"
#include "core/train/device.h"
#include "core/util/error.h"

namespace mixerlab {
namespace fs = std::filesystem;

TextScore scoreText(const fs::path& checkpoint, const std::string& text) {
  const fs::path dir = resolveCheckpointDir(checkpoint);
  configureCpuThreads(0);
  auto model = loadModelFromCheckpoint(dir);
  model->eval();
  const Tokenizer tokenizer = Tokenizer::load(checkpointTokenizerFile(dir));
  // Encoded as the run's training data was (its newline mode).
  const nlohmann::json run = readCheckpointConfig(dir).value("run", nlohmann::json::object());
  const TrainConfig train = TrainConfig::fromJson(run.value("train", nlohmann::json::object()));
  const std::vector<int> ids = encodeDocument(tokenizer, text, parseNewlineMode(train.newline));
  const int64_t context = model->config().context_length;
  if (ids.empty()) throw MixerLabError("the text to score encodes to no tokens", "pass some text to score");
  if (static_cast<int64_t>(ids.size()) > context) {
    throw MixerLabError("the text to score has " + std::to_string(ids.size()) + " tokens but the model's context is " +
                            std::to_string(context),
                        "score a shorter text");
  }
  torch::NoGradGuard no_grad;
  auto input = torch::tensor(std::vector<int64_t>(ids.begin(), ids.end()), torch::kLong).unsqueeze(0);
  auto log_probs = torch::log_softmax(model->forward(input), -1)[0];  // [L, V]
  // Causal LMs score token t with the logits at t-1; bidirectional models and autoencoders with
  // the logits at t (predictionOffset 0), so every token gets a score.
  const int64_t offset = model->predictionOffset();
  TextScore score;
  score.checkpoint = dir;
  int64_t scored_tokens = 0;
  for (size_t t = 0; t < ids.size(); ++t) {
    TokenScore entry{static_cast<int64_t>(t), ids[t], tokenizer.piece(ids[t]), std::nullopt};
    const int64_t source = static_cast<int64_t>(t) - offset;
    if (source >= 0) {
      const double lp = log_probs[source][ids[t]].item<double>();
      entry.logprob = lp;
      score.total_logprob += lp;
      ++scored_tokens;
    }
    score.tokens.push_back(std::move(entry));
  }
  score.mean_nll = scored_tokens > 0 ? -score.total_logprob / static_cast<double>(scored_tokens) : 0.0;
  return score;
}

}  // namespace mixerlab
