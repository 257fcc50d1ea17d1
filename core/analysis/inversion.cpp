// Representation inversion (see inversion.h): tokenise and pad, compute the targets, descend on the
// input embedding with the decaying step, decode with the pseudo-inverse, score.
#include "core/analysis/inversion.h"

#include <chrono>

#include <ATen/CPUGeneratorImpl.h>
#include <torch/torch.h>

#include "core/analysis/analysis_model.h"
#include "core/train/device.h"
#include "core/util/error.h"

namespace mixerlab {
namespace {

// Parameters stop requiring gradients while the descent runs (only z is differentiated), and get
// their flags back afterwards.
class FrozenParameters {
 public:
  explicit FrozenParameters(torch::nn::Module& module) {
    for (auto& p : module.parameters()) {
      flags_.push_back({p, p.requires_grad()});
      p.requires_grad_(false);
    }
  }
  ~FrozenParameters() {
    for (auto& [p, flag] : flags_) p.requires_grad_(flag);
  }

 private:
  std::vector<std::pair<at::Tensor, bool>> flags_;
};

// Token ids [B, L], truncated to the context and padded on the run's side with its pad token.
at::Tensor paddedIds(const AnalysisModel& m, const std::vector<std::vector<int>>& encoded, int64_t length) {
  auto ids = torch::full({static_cast<int64_t>(encoded.size()), length}, m.padId(), torch::kLong);
  const bool left = m.train.padding_side != "right";
  for (size_t b = 0; b < encoded.size(); ++b) {
    const int64_t n = std::min<int64_t>(static_cast<int64_t>(encoded[b].size()), length);
    const int64_t offset = left ? length - n : 0;
    for (int64_t t = 0; t < n; ++t) ids[static_cast<int64_t>(b)][offset + t] = encoded[b][t];
  }
  return ids;
}

double stepSize(const InversionSettings& s, int64_t n) {
  const double N = static_cast<double>(s.iterations), k = static_cast<double>(n);
  return s.learning_rate * (N - k) / N + (s.learning_rate / 10.0) * (k / N);
}

}  // namespace

void validateInversion(const InversionSettings& s) {
  if (s.layers.empty()) throw MixerLabError("no layer to invert", "give at least one layer (0 = embedding, -1 = last)");
  if (s.iterations < 1) throw MixerLabError("iterations must be >= 1, got " + std::to_string(s.iterations));
  if (!(s.learning_rate > 0)) throw MixerLabError("learning_rate must be > 0, got " + std::to_string(s.learning_rate));
  if (!(s.reference_noise >= 0)) throw MixerLabError("reference_noise must be >= 0");
  if (s.top_k < 1) throw MixerLabError("top_k must be >= 1, got " + std::to_string(s.top_k));
}

std::vector<InversionResult> invertTexts(const ModelSource& source, const std::vector<std::string>& texts,
                                         const InversionSettings& settings, const InversionProgressFn& progress,
                                         const std::atomic<bool>* cancel) {
  validateInversion(settings);
  if (texts.empty()) throw MixerLabError("no input text to invert");
  AnalysisModel m = loadAnalysisModel(source);
  LanguageModel& model = *m.model;
  const int64_t depth = model.representationLayers();
  if (depth == 0) model.layerOutput(at::Tensor(), 0);  // throws the family's explanation
  std::vector<int64_t> layers;
  for (int64_t layer : settings.layers) {
    const int64_t resolved = layer < 0 ? depth + 1 + layer : layer;
    if (resolved < 0 || resolved > depth) {
      throw MixerLabError("layer " + std::to_string(layer) + " does not exist: " + m.label + " has layers 0.." +
                              std::to_string(depth),
                          "use 0 for the embedding, 1.." + std::to_string(depth) + " for block outputs, -1 for the last");
    }
    layers.push_back(resolved);
  }

  const c10::Device device = selectDevice(settings.device);
  model.to(device);
  FrozenParameters frozen(model);
  const int64_t context = model.config().context_length;
  std::vector<std::vector<int>> encoded;
  int64_t longest = 1;
  for (const auto& text : texts) {
    encoded.push_back(m.encode(text));
    if (encoded.back().empty()) throw MixerLabError("an input text encodes to no tokens", "give some text to invert");
    longest = std::max<int64_t>(longest, static_cast<int64_t>(encoded.back().size()));
  }
  const int64_t length = settings.pad_to_context ? context : std::min(longest, context);
  const at::Tensor ids = paddedIds(m, encoded, length);
  std::vector<std::pair<int64_t, int64_t>> text_span;  // [first, end) of each input's real tokens
  for (const auto& e : encoded) {
    const int64_t n = std::min<int64_t>(static_cast<int64_t>(e.size()), length);
    text_span.push_back(m.train.padding_side != "right" ? std::make_pair(length - n, length) : std::make_pair(int64_t{0}, n));
  }
  const int64_t batch = ids.size(0);

  auto generator = at::detail::createCPUGenerator(settings.seed);
  auto normal = [&](at::IntArrayRef sizes) {
    return at::randn(sizes, generator, torch::TensorOptions().dtype(torch::kFloat)).to(device);
  };

  at::Tensor embedding_matrix, pinv, positions, true_embeds, noisy_embeds, reference_ids;
  {
    torch::NoGradGuard no_grad;
    embedding_matrix = model.tokenEmbeddingMatrix().detach().to(torch::kCPU, torch::kFloat);
    pinv = at::linalg_pinv(embedding_matrix).to(device);  // [D, V], computed on the CPU in fp32 as the research
    positions = model.positionEmbeddings(length);
    if (positions.defined()) positions = positions.detach();
    true_embeds = model.inputEmbeddings(ids.to(device)).detach();
    noisy_embeds = true_embeds + settings.reference_noise * normal(true_embeds.sizes());
    auto tokens_of = [&](const at::Tensor& z) { return positions.defined() ? z - positions : z; };
    reference_ids = settings.reference == InversionReference::kInput
                        ? ids.clone()
                        : torch::matmul(tokens_of(noisy_embeds), pinv).argmax(-1).cpu();  // [B, L]
  }

  std::vector<InversionResult> results;
  const bool last_only = settings.objective == InversionObjective::kLastPosition;
  bool cancelled = false;
  for (size_t li = 0; li < layers.size() && !cancelled; ++li) {
    const int64_t layer = layers[li];
    const auto start = std::chrono::steady_clock::now();
    at::Tensor target, epsilon, target_l1;
    {
      torch::NoGradGuard no_grad;
      target = model.layerOutput(true_embeds, layer).detach();
      epsilon = (model.layerOutput(noisy_embeds, layer) - target).abs().sum({1, 2}).cpu();
      target_l1 = target.abs().sum({1, 2}).cpu();
    }
    at::Tensor z = settings.init == InversionInit::kPaperNormal ? 0.5 + (1.0 / 20.0) * normal(true_embeds.sizes())
                                                               : normal(true_embeds.sizes());
    std::vector<std::vector<double>> curves(batch);
    for (int64_t n = 0; n < settings.iterations; ++n) {
      if (cancel != nullptr && cancel->load()) {
        cancelled = true;
        break;
      }
      z.requires_grad_(true);
      auto diff = (model.layerOutput(z, layer) - target).abs();
      if (last_only) diff = diff.select(1, length - 1).unsqueeze(1);
      const auto per_input = diff.sum({1, 2});  // [B]
      const auto grad = torch::autograd::grad({per_input.sum()}, {z})[0];
      {
        torch::NoGradGuard no_grad;
        z = (z - stepSize(settings, n) * grad).detach();
      }
      const auto losses = per_input.detach().cpu();
      for (int64_t b = 0; b < batch; ++b) curves[b].push_back(losses[b].item<double>());
      if (progress) progress({layer, static_cast<int64_t>(li), static_cast<int64_t>(layers.size()), n + 1,
                              settings.iterations, losses.sum().item<double>()});
    }

    torch::NoGradGuard no_grad;
    auto final_losses = (model.layerOutput(z, layer) - target).abs();
    if (last_only) final_losses = final_losses.select(1, length - 1).unsqueeze(1);
    final_losses = final_losses.sum({1, 2}).cpu();
    const auto scores = torch::matmul(positions.defined() ? z - positions : z, pinv).cpu();  // [B, L, V]
    const auto top = std::get<1>(scores.topk(settings.top_k, -1));                          // [B, L, k]
    const auto reference_scores = scores.gather(-1, reference_ids.unsqueeze(-1));          // [B, L, 1]
    const auto ranks = (scores > reference_scores).sum(-1) + 1;                             // [B, L]
    const double elapsed_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    const int pad = m.padId();
    for (int64_t b = 0; b < batch; ++b) {
      InversionResult r;
      r.model_label = m.label;
      r.text = texts[b];
      r.layer = layer;
      r.epsilon_l1 = epsilon[b].item<double>();
      r.target_l1 = target_l1[b].item<double>();
      r.final_loss = final_losses[b].item<double>();
      r.loss_curve = std::move(curves[b]);
      r.cancelled = cancelled;
      r.elapsed_ms = elapsed_ms;
      r.device = describeDevice(device);
      int64_t exact = 0, matched = 0;
      for (int64_t t = 0; t < length; ++t) {
        InvertedToken tok;
        tok.original_id = static_cast<int>(ids[b][t].item<int64_t>());
        tok.original_text = m.tokenizer->piece(tok.original_id);
        tok.reference_id = static_cast<int>(reference_ids[b][t].item<int64_t>());
        for (int64_t k = 0; k < settings.top_k; ++k) {
          const int id = static_cast<int>(top[b][t][k].item<int64_t>());
          tok.candidates.push_back(id);
          tok.candidate_texts.push_back(m.tokenizer->piece(id));
        }
        tok.reference_rank = ranks[b][t].item<int64_t>();
        tok.counted = settings.reference == InversionReference::kInput
                          ? t >= text_span[b].first && t < text_span[b].second
                          : tok.reference_id != pad;
        tok.exact = tok.candidates[0] == tok.reference_id;
        tok.top_k_match = std::find(tok.candidates.begin(), tok.candidates.end(), tok.reference_id) != tok.candidates.end();
        if (tok.counted) {
          ++r.counted_positions;
          exact += tok.exact ? 1 : 0;
          matched += tok.top_k_match ? 1 : 0;
        }
        r.tokens.push_back(std::move(tok));
      }
      const double c = static_cast<double>(r.counted_positions);
      r.hamming_top_k = c > 0 ? (c - static_cast<double>(matched)) / c : 0.0;
      r.hamming_exact = c > 0 ? (c - static_cast<double>(exact)) / c : 0.0;
      results.push_back(std::move(r));
    }
  }
  model.to(torch::kCPU);
  return results;
}

}  // namespace mixerlab
