// The generation loop (see generation.h): lay the prompt out in the window, prefill, then choose,
// stream and append one token at a time until a stop condition. The decoders live in decoders/.
#include "core/analysis/generation.h"

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
  validateGeneration(settings);
  Impl& g = *impl_;
  const int64_t context = contextLength();
  const int64_t max_new = settings.max_new_tokens;
  GenerationResult result;

  // Window layout. Position-specific models keep the newest prompt tokens that leave room for
  // max_new_tokens (at least one); sliding models keep the last T; recurrent models keep all.
  std::vector<int> prompt = prompt_ids;
  int64_t keep = static_cast<int64_t>(prompt.size());
  if (g.positional()) {
    keep = std::min(keep, std::max<int64_t>(1, context - max_new));
  } else if (::mixerlab::contextPolicy(*g.base) == ContextPolicy::kSlideWindow) {
    keep = std::min(keep, context);
  }
  result.prompt_dropped_tokens = static_cast<int64_t>(prompt.size()) - keep;
  prompt.erase(prompt.begin(), prompt.begin() + result.prompt_dropped_tokens);
  result.prompt_ids = prompt;
  if (result.prompt_dropped_tokens > 0) result.prompt_seen_text = decode(prompt);
  std::vector<int64_t> window;
  if (prompt.empty()) {
    result.pad_tokens = 1;  // an empty prompt starts a new document: the model sees one separator
  } else if (g.positional() && g.windowEnd(settings.placement)) {
    result.pad_tokens = std::max<int64_t>(0, context - static_cast<int64_t>(prompt.size()) - max_new);
  }
  window.assign(result.pad_tokens, g.loaded.padId());
  window.insert(window.end(), prompt.begin(), prompt.end());

  torch::NoGradGuard no_grad;
  auto decoder = makeTokenDecoder(*g.loaded.model, settings.decoder, g.loaded.padId());
  result.decoder = decoder->name();
  std::mt19937_64 rng(settings.sampling.seed);
  std::vector<int64_t> previous(prompt.begin(), prompt.end());  // for the repetition penalty
  std::vector<int> sequence = prompt;                           // prompt + generated, for text deltas
  std::string decoded = g.loaded.tokenizer->decode(sequence);

  using Clock = std::chrono::steady_clock;
  const auto start = Clock::now();
  at::Tensor logits = decoder->prefill(window);
  const auto prefilled = Clock::now();
  int64_t position = static_cast<int64_t>(window.size());  // where the next token goes
  result.finish = FinishReason::kMaxNewTokens;
  for (int64_t step = 0; step < max_new; ++step) {
    if (cancel != nullptr && cancel->load()) {
      result.finish = FinishReason::kCancelled;
      break;
    }
    const TokenChoice choice = chooseToken(logits, previous, settings.sampling, rng);
    GeneratedToken token;
    token.id = choice.id;
    token.prob = choice.prob;
    for (const auto& [id, prob] : choice.top) token.top.push_back({id, g.loaded.tokenizer->piece(id), prob});
    sequence.push_back(choice.id);
    token.text = streamedTextDelta(decoded, g.loaded.tokenizer->decode(sequence), g.loaded.tokenizer->piece(choice.id));
    previous.push_back(choice.id);
    ++position;
    result.text += token.text;
    result.tokens.push_back(token);
    if (on_token) on_token(token);

    if (settings.stop_at_eos && choice.id == g.loaded.tokenizer->eosId()) {
      result.finish = FinishReason::kEndOfText;
      break;
    }
    if (!settings.stop_string.empty()) {
      const size_t at = result.text.find(settings.stop_string);
      if (at != std::string::npos) {
        result.text.resize(at);
        result.finish = FinishReason::kStopString;
        break;
      }
    }
    if (step + 1 == max_new) break;
    if (g.positional() && position >= context) {
      result.finish = FinishReason::kContextFull;
      break;
    }
    logits = decoder->append(choice.id);
  }
  const auto done = Clock::now();
  result.prefill_ms = std::chrono::duration<double, std::milli>(prefilled - start).count();
  result.decode_ms = std::chrono::duration<double, std::milli>(done - prefilled).count();
  const double total_s = (result.prefill_ms + result.decode_ms) / 1000.0;
  result.tokens_per_s = total_s > 0 ? static_cast<double>(result.tokens.size()) / total_s : 0.0;
  return result;
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
