// Per-token log-probabilities of a text under a checkpoint, reusable by the CLI (`mixerlab score`)
// and the GUI. Causal models score token t with the logits at t-1 (the first token gets none);
// bidirectional models and autoencoders score every token with the logits at t.
#pragma once
#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace mixerlab {

struct TokenScore {
  int64_t position = 0;
  int id = 0;
  std::string piece;              // the token's text as the tokenizer spells it
  std::optional<double> logprob;  // natural log; none when nothing precedes the token
};

struct TextScore {
  std::filesystem::path checkpoint;  // the resolved checkpoint folder
  std::vector<TokenScore> tokens;
  double total_logprob = 0;  // over the scored tokens
  double mean_nll = 0;       // -total_logprob / scored tokens (0 when none is scored)
};

// `checkpoint`: a checkpoint folder or a run folder. Throws MixerLabError when the text encodes to
// no tokens or to more than the model's context. Runs on the CPU.
TextScore scoreText(const std::filesystem::path& checkpoint, const std::string& text);

}  // namespace mixerlab
