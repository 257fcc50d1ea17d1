// The generation loop (see generation.h): lay the prompt out in the window, prefill, then choose,
// stream and append one token at a time until a stop condition. Several samples of one prompt run
// as one decoder batch, each with its own random stream; one story is a batch of one. The decoders
// live in decoders/.
#include "core/analysis/generation.h"

#include <algorithm>
#include <cctype>
#include <chrono>
#include <random>

#include <torch/torch.h>

#include "core/analysis/analysis_model.h"
#include "core/analysis/decoders/token_decoder.h"
#include "core/analysis/eval_documents.h"
#include "core/analysis/sampling.h"
#include "core/train/checkpoint.h"
#include "core/train/device.h"
#include "core/util/enum_names.h"
#include "core/util/error.h"

namespace mixerlab {
namespace fs = std::filesystem;

namespace {
constexpr EnumName<FinishReason> kFinishReasonNames[] = {{FinishReason::kMaxNewTokens, "max_new_tokens"},
                                                         {FinishReason::kEndOfText, "eos"},
                                                         {FinishReason::kStopString, "stop_string"},
                                                         {FinishReason::kContextFull, "context_full"},
                                                         {FinishReason::kCancelled, "cancelled"}};
}  // namespace

std::string finishReasonName(FinishReason reason) { return enumName(kFinishReasonNames, reason, "unknown"); }

void validateGeneration(const GenerationSettings& s) {
  validateSampling(s.sampling);
  if (s.max_new_tokens < 1) {
    throw MixerLabError("max_new_tokens must be >= 1, got " + std::to_string(s.max_new_tokens));
  }
}

std::string streamedTextDelta(std::string& stable, const std::string& decoded_now, const std::string& fallback) {
  static const std::string kReplacement = "\xEF\xBF\xBD";  // U+FFFD in UTF-8
  std::string now = decoded_now;
  while (now.size() > stable.size() && now.size() >= kReplacement.size() &&
         now.compare(now.size() - kReplacement.size(), kReplacement.size(), kReplacement) == 0) {
    now.resize(now.size() - kReplacement.size());  // an unfinished character: wait for its last bytes
  }
  std::string delta = now.compare(0, stable.size(), stable) == 0 ? now.substr(stable.size()) : fallback;
  stable = now;
  return delta;
}

std::vector<int> GenerationResult::ids() const {
  std::vector<int> out;
  for (const auto& t : tokens) out.push_back(t.id);
  return out;
}

struct Generator::Impl {
  fs::path dir;
  AnalysisModel loaded;           // model (eval mode), tokenizer, the run's train settings
  LanguageModel* base = nullptr;  // the next-token model generation runs
  c10::Device device = c10::kCPU;

  bool positional() const { return ::mixerlab::contextPolicy(*base) == ContextPolicy::kStopAtWindowEnd; }
  bool windowEnd(PromptPlacement p) const {
    if (p != PromptPlacement::kAuto) return p == PromptPlacement::kWindowEnd;
    return loaded.train.batch_mode == "padded" && loaded.train.padding_side == "left";
  }
};

Generator::Generator(const fs::path& checkpoint, const std::string& device) : impl_(std::make_unique<Impl>()) {
  impl_->device = selectDevice(device);
  impl_->dir = resolveCheckpointDir(checkpoint);
  impl_->loaded = loadAnalysisModel(ModelSource::checkpoint(impl_->dir));
  impl_->loaded.model->to(impl_->device);
  impl_->base = &nextTokenModel(*impl_->loaded.model);
}

Generator::~Generator() = default;
Generator::Generator(Generator&&) noexcept = default;
Generator& Generator::operator=(Generator&&) noexcept = default;

const fs::path& Generator::checkpoint() const { return impl_->dir; }
std::string Generator::architecture() const { return impl_->loaded.model->config().arch; }
int64_t Generator::contextLength() const { return impl_->loaded.model->config().context_length; }
std::string Generator::contextPolicy() const { return ::mixerlab::describeContextPolicy(*impl_->base); }
std::string Generator::fastDecoderName() const { return mixerlab::fastDecoderName(*impl_->base); }
std::string Generator::device() const { return describeDevice(impl_->device); }

std::vector<int> Generator::encode(const std::string& text) const { return impl_->loaded.encode(text); }

std::string Generator::decode(const std::vector<int>& ids) const { return impl_->loaded.tokenizer->decode(ids); }

GenerationResult Generator::generate(const std::string& prompt, const GenerationSettings& settings,
                                     const TokenCallback& on_token, const std::atomic<bool>* cancel) {
  return generateFromIds(encode(prompt), settings, on_token, cancel);
}

GenerationResult Generator::generateFromIds(const std::vector<int>& prompt_ids, const GenerationSettings& settings,
                                            const TokenCallback& on_token, const std::atomic<bool>* cancel) {
  SampleTokenCallback each;
  if (on_token) each = [&on_token](int, const GeneratedToken& token) { on_token(token); };
  return std::move(generateSamplesFromIds(prompt_ids, settings, 1, each, cancel).front());
}

std::vector<GenerationResult> Generator::generateSamples(const std::string& prompt, const GenerationSettings& settings,
                                                         int samples, const SampleTokenCallback& on_token,
                                                         const std::atomic<bool>* cancel) {
  return generateSamplesFromIds(encode(prompt), settings, samples, on_token, cancel);
}

namespace {

// One story of a batch being generated: its own random stream (seed + its index), repetition
// history, text so far and result. Its decoder row keeps stepping after it finishes (the batch
// moves in lockstep); what comes out of that row then is ignored.
struct StoryInProgress {
  GenerationResult result;
  std::mt19937_64 rng;
  std::vector<int64_t> previous;  // prompt + generated ids, for the repetition penalty
  std::vector<int> sequence;      // prompt + generated ids, for text deltas
  std::string decoded;
  bool finished = false;
};

}  // namespace

std::vector<GenerationResult> Generator::generateSamplesFromIds(const std::vector<int>& prompt_ids,
                                                                const GenerationSettings& settings, int samples,
                                                                const SampleTokenCallback& on_token,
                                                                const std::atomic<bool>* cancel) {
  validateGeneration(settings);
  if (samples < 1) throw MixerLabError("samples must be >= 1, got " + std::to_string(samples));
  Impl& g = *impl_;
  const int64_t context = contextLength();
  const int64_t max_new = settings.max_new_tokens;
  GenerationResult layout;

  // Window layout. Position-specific models keep the newest prompt tokens that leave room for
  // max_new_tokens (at least one); sliding models keep the last T; recurrent models keep all.
  std::vector<int> prompt = prompt_ids;
  int64_t keep = static_cast<int64_t>(prompt.size());
  if (g.positional()) {
    keep = std::min(keep, std::max<int64_t>(1, context - max_new));
  } else if (::mixerlab::contextPolicy(*g.base) == ContextPolicy::kSlideWindow) {
    keep = std::min(keep, context);
  }
  layout.prompt_dropped_tokens = static_cast<int64_t>(prompt.size()) - keep;
  prompt.erase(prompt.begin(), prompt.begin() + layout.prompt_dropped_tokens);
  layout.prompt_ids = prompt;
  if (layout.prompt_dropped_tokens > 0) layout.prompt_seen_text = decode(prompt);
  std::vector<int64_t> window;
  if (prompt.empty()) {
    layout.pad_tokens = 1;  // an empty prompt starts a new document: the model sees one separator
  } else if (g.positional() && g.windowEnd(settings.placement)) {
    layout.pad_tokens = std::max<int64_t>(0, context - static_cast<int64_t>(prompt.size()) - max_new);
  }
  window.assign(layout.pad_tokens, g.loaded.padId());
  window.insert(window.end(), prompt.begin(), prompt.end());

  torch::NoGradGuard no_grad;
  auto decoder = makeTokenDecoder(*g.loaded.model, settings.decoder, g.loaded.padId());
  layout.decoder = decoder->name();
  layout.finish = FinishReason::kMaxNewTokens;
  std::vector<StoryInProgress> stories(static_cast<size_t>(samples));
  for (size_t i = 0; i < stories.size(); ++i) {
    StoryInProgress& story = stories[i];
    story.result = layout;
    story.rng.seed(settings.sampling.seed + i);
    story.previous.assign(prompt.begin(), prompt.end());
    story.sequence = prompt;
    story.decoded = g.loaded.tokenizer->decode(story.sequence);
  }
  auto finish = [](StoryInProgress& story, FinishReason reason) {
    story.result.finish = reason;
    story.finished = true;
  };

  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  at::Tensor logits = decoder->prefillBatch(std::vector<std::vector<int64_t>>(stories.size(), window));  // [S, V]
  const auto prefilled = Clock::now();
  int64_t position = static_cast<int64_t>(window.size());  // where the next token goes
  std::vector<int64_t> next(stories.size());
  for (int64_t step = 0; step < max_new; ++step) {
    if (cancel != nullptr && cancel->load()) {
      for (auto& story : stories) {
        if (!story.finished) finish(story, FinishReason::kCancelled);
      }
      break;
    }
    ++position;
    for (size_t i = 0; i < stories.size(); ++i) {
      StoryInProgress& story = stories[i];
      if (story.finished) continue;  // its row goes on with its last token
      const TokenChoice choice =
          chooseToken(logits[static_cast<int64_t>(i)], story.previous, settings.sampling, story.rng);
      GeneratedToken token;
      token.id = choice.id;
      token.prob = choice.prob;
      for (const auto& [id, prob] : choice.top) token.top.push_back({id, g.loaded.tokenizer->piece(id), prob});
      story.sequence.push_back(choice.id);
      token.text = streamedTextDelta(story.decoded, g.loaded.tokenizer->decode(story.sequence),
                                     g.loaded.tokenizer->piece(choice.id));
      story.previous.push_back(choice.id);
      story.result.text += token.text;
      story.result.tokens.push_back(token);
      next[i] = choice.id;
      if (on_token) on_token(static_cast<int>(i), token);

      if (settings.stop_at_eos && choice.id == g.loaded.tokenizer->eosId()) {
        finish(story, FinishReason::kEndOfText);
      } else if (!settings.stop_string.empty()) {
        const size_t at = story.result.text.find(settings.stop_string);
        if (at != std::string::npos) {
          story.result.text.resize(at);
          finish(story, FinishReason::kStopString);
        }
      }
    }
    const bool all_finished =
        std::all_of(stories.begin(), stories.end(), [](const StoryInProgress& s) { return s.finished; });
    if (all_finished || step + 1 == max_new) break;
    if (g.positional() && position >= context) {
      for (auto& story : stories) {
        if (!story.finished) finish(story, FinishReason::kContextFull);
      }
      break;
    }
    logits = decoder->appendBatch(next);
  }
  const auto done = Clock::now();
  std::vector<GenerationResult> results;
  for (auto& story : stories) {
    GenerationResult& r = story.result;
    r.context_length = context;
    r.context_policy = contextPolicy();
    const int64_t used = r.pad_tokens + static_cast<int64_t>(r.prompt_ids.size() + r.tokens.size());
    r.tokens_past_context =
        std::min<int64_t>(static_cast<int64_t>(r.tokens.size()), std::max<int64_t>(0, used - context));
    r.prefill_ms = std::chrono::duration<double, std::milli>(prefilled - start).count();
    r.decode_ms = std::chrono::duration<double, std::milli>(done - prefilled).count();
    const double total_s = (r.prefill_ms + r.decode_ms) / 1000.0;
    r.tokens_per_s = total_s > 0 ? static_cast<double>(r.tokens.size()) / total_s : 0.0;
    results.push_back(std::move(r));
  }
  return results;
}

size_t evalPromptSourceDocuments(int64_t count) {
  // Documents with fewer than two words are skipped, so read a few more than asked for.
  return static_cast<size_t>(std::max<int64_t>(0, count)) * 2 + 8;
}

std::vector<EvalPrompt> evalSplitPrompts(const fs::path& checkpoint, int64_t count, int64_t prompt_words) {
  return evalPromptsFromDocuments(checkpointEvalDocuments(checkpoint, evalPromptSourceDocuments(count)), count,
                                  prompt_words);
}

std::vector<EvalPrompt> evalPromptsFromDocuments(const std::vector<std::string>& documents, int64_t count,
                                                 int64_t prompt_words) {
  std::vector<EvalPrompt> prompts;
  for (const std::string& doc : documents) {
    if (static_cast<int64_t>(prompts.size()) >= count) break;
    // Word boundaries: the start of each run of non-space characters.
    std::vector<size_t> starts;
    for (size_t i = 0; i < doc.size(); ++i) {
      if (!std::isspace(static_cast<unsigned char>(doc[i])) &&
          (i == 0 || std::isspace(static_cast<unsigned char>(doc[i - 1])))) {
        starts.push_back(i);
      }
    }
    if (starts.size() < 2) continue;
    const size_t cut_word =
        std::min<size_t>(static_cast<size_t>(std::max<int64_t>(1, prompt_words)), starts.size() / 2);
    size_t cut = starts[cut_word];
    while (cut > 0 && std::isspace(static_cast<unsigned char>(doc[cut - 1]))) --cut;  // prompt ends at a word
    prompts.push_back({doc.substr(0, cut), doc.substr(cut)});
  }
  return prompts;
}

}  // namespace mixerlab
