// Story generation from a trained checkpoint (docs/generation.md): the prompt is laid out in the model's window,
// a decoder turns it into next-token logits, sampling.h picks each token, and the loop stops at
// end-of-text, a stop string, max_new_tokens, the end of the context window or a cancel request.
// Shared by `mixerlab generate`, `mixerlab bench generate` and the GUI's side-by-side panel; this
// header is torch-free so Qt code can hold the types (the model lives behind Generator's pimpl).
#pragma once
#include <atomic>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "core/analysis/sampling_settings.h"

namespace mixerlab {

// Which decoder produces the logits. kFast is the family's incremental decoder (cached rows for
// mixers, KV cache for transformers, recurrent state for Mamba); kReference runs a full forward per
// token: the research's fixed-window method for models with position-specific token mixing
// (masked mixers, the Transfixer), a full recompute of the window for the others.
enum class DecoderChoice { kFast, kReference };

// Where the prompt sits in the context window of models whose token mixing is position-specific
// (masked mixers, Transfixer; ignored elsewhere). kWindowEnd is the research layout: pad tokens
// first, so the last new token lands at position T-1, as a left-padded story ends. kWindowStart puts
// the prompt at position 0. kAuto: kWindowEnd when the run trained on left-padded documents, else
// kWindowStart (packed or right-padded training sees text from position 0).
enum class PromptPlacement { kAuto, kWindowEnd, kWindowStart };

struct GenerationSettings {
  SamplingSettings sampling;
  int64_t max_new_tokens = 100;
  std::string stop_string;  // stop once the generated text contains it (the text is cut before it); empty: none
  bool stop_at_eos = true;  // stop when the model picks end-of-text
  DecoderChoice decoder = DecoderChoice::kFast;
  PromptPlacement placement = PromptPlacement::kAuto;
};

// Throws MixerLabError naming the bad setting.
void validateGeneration(const GenerationSettings& settings);

struct TokenAlternative {
  int id = 0;
  std::string text;  // the piece as the tokenizer spells it
  double prob = 0;
};

struct GeneratedToken {
  int id = 0;
  std::string text;                   // what this token adds to the decoded text
  double prob = 0;                    // model probability of the token (softmax of the penalised logits)
  std::vector<TokenAlternative> top;  // the 5 most likely tokens at this step
};

enum class FinishReason { kMaxNewTokens, kEndOfText, kStopString, kContextFull, kCancelled };
std::string finishReasonName(
    FinishReason reason);  // "max_new_tokens", "eos", "stop_string", "context_full", "cancelled"

struct GenerationResult {
  std::vector<int> prompt_ids;        // the prompt as the model saw it (after any truncation, without pads)
  int64_t prompt_dropped_tokens = 0;  // oldest prompt tokens dropped so the window had room
  std::string prompt_seen_text;       // prompt_ids decoded, when tokens were dropped (else empty)
  int64_t pad_tokens = 0;             // pad tokens placed before the prompt (kWindowEnd)
  std::vector<GeneratedToken> tokens;
  std::string text;  // the generated text, cut before the stop string when one ended it
  FinishReason finish = FinishReason::kMaxNewTokens;
  // The window it was trained with, the family's policy at its end (Generator::contextPolicy), and
  // how many generated tokens went past it (a sliding or recurrent model goes on where training
  // never reached, so a reader is told).
  int64_t context_length = 0;
  std::string context_policy;
  int64_t tokens_past_context = 0;
  std::string decoder;           // the decoder that ran, e.g. "cached-mixer", "fixed-window", "kv-cache"
  double prefill_ms = 0;         // time to the first token's logits
  double decode_ms = 0;          // time for the rest
  double tokens_per_s = 0;       // generated tokens per second of (prefill + decode)
  std::vector<int> ids() const;  // the generated ids
};

using TokenCallback = std::function<void(const GeneratedToken&)>;
using SampleTokenCallback = std::function<void(int sample, const GeneratedToken&)>;

// The text a new token adds to a streamed story. `stable` is the story's text so far (updated);
// `decoded_now` decodes the whole sequence with the new token. A byte-fallback token can end the
// sequence inside a multi-byte character, which the tokenizer renders as U+FFFD: that tail is held
// back (the token adds "") until a later token completes the character (a "?" glyph
// showed in the Generate tab). `fallback` (the token's piece) is returned when the new text does not
// extend the old.
std::string streamedTextDelta(std::string& stable, const std::string& decoded_now, const std::string& fallback);

// A checkpoint loaded for generation (CPU). Thread-compatible: one generate() at a time per object;
// separate objects may run on separate threads.
class Generator {
 public:
  // `checkpoint`: a checkpoint folder or a run folder (its latest). Throws MixerLabError when the
  // folder is no checkpoint or the model is not a next-token language model.
  // `device`: where the model runs (cpu, cuda, cuda:N or auto, as train --device); the sampling is
  // done on the CPU in fp64 either way, so the same seed picks the same tokens when the logits agree.
  explicit Generator(const std::filesystem::path& checkpoint, const std::string& device = "cpu");
  ~Generator();
  Generator(Generator&&) noexcept;
  Generator& operator=(Generator&&) noexcept;

  const std::filesystem::path& checkpoint() const;  // the resolved checkpoint folder
  std::string architecture() const;
  int64_t contextLength() const;
  // What the family does at the end of its context window, in words (also in docs/generation.md).
  std::string contextPolicy() const;
  std::string fastDecoderName() const;
  std::string device() const;  // where the model runs, in words ("cpu", "cuda:0 (NVIDIA H200)")

  std::vector<int> encode(const std::string& text) const;  // as the run's training data was encoded
  std::string decode(const std::vector<int>& ids) const;

  // Streams each token to `on_token` (on the calling thread) as soon as it is chosen; `cancel`, when
  // set, is polled before every token and ends the run with kCancelled.
  GenerationResult generate(const std::string& prompt, const GenerationSettings& settings,
                            const TokenCallback& on_token = {}, const std::atomic<bool>* cancel = nullptr);
  GenerationResult generateFromIds(const std::vector<int>& prompt_ids, const GenerationSettings& settings,
                                   const TokenCallback& on_token = {}, const std::atomic<bool>* cancel = nullptr);
  // `samples` stories from one prompt, decoded as one batch (on a GPU, about the time of one). Sample
  // i samples with seed settings.sampling.seed + i, so it is the story generate() gives with that
  // seed; each stops on its own (eos, stop string), the batch when all have stopped, max_new_tokens
  // is reached, the window is full or `cancel` is set. Timings are the batch's: every result holds
  // the same prefill_ms and decode_ms, and tokens_per_s is its own tokens over that time.
  // `on_token` gets each sample's tokens as they are chosen, with the sample's index.
  std::vector<GenerationResult> generateSamples(const std::string& prompt, const GenerationSettings& settings,
                                                int samples, const SampleTokenCallback& on_token = {},
                                                const std::atomic<bool>* cancel = nullptr);
  std::vector<GenerationResult> generateSamplesFromIds(const std::vector<int>& prompt_ids,
                                                       const GenerationSettings& settings, int samples,
                                                       const SampleTokenCallback& on_token = {},
                                                       const std::atomic<bool>* cancel = nullptr);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// A prompt taken from a run's eval split with the text that really followed it.
struct EvalPrompt {
  std::string prompt;
  std::string continuation;
};

// The first `count` eval documents of the checkpoint's run (with at least two words), each cut
// after `prompt_words` words, or in half when it has fewer than twice that. Throws MixerLabError when the corpus is
// missing.
std::vector<EvalPrompt> evalSplitPrompts(const std::filesystem::path& checkpoint, int64_t count, int64_t prompt_words);
// The two halves of evalSplitPrompts, for a caller that reads the documents elsewhere (the GUI, off
// its thread): how many eval documents to read for `count` prompts, and the prompts cut from them.
size_t evalPromptSourceDocuments(int64_t count);
std::vector<EvalPrompt> evalPromptsFromDocuments(const std::vector<std::string>& documents, int64_t count,
                                                 int64_t prompt_words);

}  // namespace mixerlab
