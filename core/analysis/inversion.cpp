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

// Step n of N: eta_0 (N-n)/N + (eta_0/10) n/N, with eta_0 = learning_rate (times s when scale-aware).
double stepSize(const InversionSettings& s, double learning_rate, int64_t n) {
  const double N = static_cast<double>(s.iterations), k = static_cast<double>(n);
  return learning_rate * (N - k) / N + (learning_rate / 10.0) * (k / N);
}

// Layer numbers as requested (0 = the embedding, k = block k, -1 = the last) resolved to 0..depth.
std::vector<int64_t> resolveLayers(const AnalysisModel& m, const std::vector<int64_t>& requested) {
  LanguageModel& model = *m.model;
  const int64_t depth = model.representationLayers();
  if (depth == 0) model.layerOutput(at::Tensor(), 0);  // throws the family's explanation
  std::vector<int64_t> layers;
  for (int64_t layer : requested) {
    const int64_t resolved = layer < 0 ? depth + 1 + layer : layer;
    if (resolved < 0 || resolved > depth) {
      throw MixerLabError(
          "layer " + std::to_string(layer) + " does not exist: " + m.label + " has layers 0.." + std::to_string(depth),
          "use 0 for the embedding, 1.." + std::to_string(depth) + " for block outputs, -1 for the last");
    }
    layers.push_back(resolved);
  }
  return layers;
}

// The input texts as one batch of token ids, padded on the run's side.
struct EncodedInputs {
  at::Tensor ids;                                      // [B, L]
  int64_t length = 0;                                  // L: the context, or the longest input
  std::vector<std::pair<int64_t, int64_t>> text_span;  // [first, end) of each input's real tokens
};

EncodedInputs encodeInputs(const AnalysisModel& m, const std::vector<std::string>& texts, bool pad_to_context) {
  const int64_t context = m.model->config().context_length;
  std::vector<std::vector<int>> encoded;
  int64_t longest = 1;
  for (const auto& text : texts) {
    encoded.push_back(m.encode(text));
    if (encoded.back().empty()) throw MixerLabError("an input text encodes to no tokens", "give some text to invert");
    longest = std::max<int64_t>(longest, static_cast<int64_t>(encoded.back().size()));
  }
  EncodedInputs inputs;
  inputs.length = pad_to_context ? context : std::min(longest, context);
  inputs.ids = paddedIds(m, encoded, inputs.length);
  for (const auto& e : encoded) {
    const int64_t n = std::min<int64_t>(static_cast<int64_t>(e.size()), inputs.length);
    inputs.text_span.push_back(m.train.padding_side != "right" ? std::make_pair(inputs.length - n, inputs.length)
                                                               : std::make_pair(int64_t{0}, n));
  }
  return inputs;
}

// N(0, 1) draws in fp32 from the settings' seed, made on the CPU (the same draws on every device).
class NormalDraws {
 public:
  NormalDraws(uint64_t seed, c10::Device device) : generator_(at::detail::createCPUGenerator(seed)), device_(device) {}
  at::Tensor operator()(at::IntArrayRef sizes) {
    return at::randn(sizes, generator_, torch::TensorOptions().dtype(torch::kFloat)).to(device_);
  }

 private:
  at::Generator generator_;
  c10::Device device_;
};

// What every layer's descent starts from and decodes with.
struct InversionBasis {
  at::Tensor pinv;           // [D, V]: the embedding matrix's pseudo-inverse, the decoder
  at::Tensor positions;      // learned position embeddings; undefined for a model without them
  at::Tensor true_embeds;    // [B, L, D]
  at::Tensor noisy_embeds;   // true_embeds + reference_noise * N(0, 1): the epsilon check
  at::Tensor reference_ids;  // [B, L] on the CPU: the token each position must recover
  double embedding_std = 0;  // s of the token embedding matrix
  double scale = 1;          // what z0 and eta are multiplied by: s when scale-aware, else 1
};

InversionBasis embedInputs(LanguageModel& model, const EncodedInputs& inputs, const InversionSettings& settings,
                           NormalDraws& normal, c10::Device device) {
  torch::NoGradGuard no_grad;
  InversionBasis basis;
  const at::Tensor embedding_matrix = model.tokenEmbeddingMatrix().detach().to(torch::kCPU, torch::kFloat);
  basis.pinv = at::linalg_pinv(embedding_matrix).to(device);  // [D, V], computed on the CPU in fp32 as the research
  basis.embedding_std = embedding_matrix.std().item<double>();
  basis.scale = settings.scale == InversionScale::kEmbedding ? basis.embedding_std : 1.0;
  basis.positions = model.positionEmbeddings(inputs.length);
  if (basis.positions.defined()) basis.positions = basis.positions.detach();
  basis.true_embeds = model.inputEmbeddings(inputs.ids.to(device)).detach();
  basis.noisy_embeds = basis.true_embeds + settings.reference_noise * normal(basis.true_embeds.sizes());
  auto tokens_of = [&](const at::Tensor& z) { return basis.positions.defined() ? z - basis.positions : z; };
  basis.reference_ids = settings.reference == InversionReference::kInput
                            ? inputs.ids.clone()
                            : torch::matmul(tokens_of(basis.noisy_embeds), basis.pinv).argmax(-1).cpu();  // [B, L]
  return basis;
}

// One layer's output for the true embeddings (what the descent matches), with its scale.
struct LayerTarget {
  int64_t layer = 0;
  at::Tensor output;      // [B, L, D]
  at::Tensor epsilon_l1;  // [B] on the CPU: summed L1 between the outputs of the noisy and the true embeddings
  at::Tensor target_l1;   // [B] on the CPU: summed |output|
};

LayerTarget layerTarget(LanguageModel& model, const InversionBasis& basis, int64_t layer) {
  torch::NoGradGuard no_grad;
  LayerTarget target;
  target.layer = layer;
  target.output = model.layerOutput(basis.true_embeds, layer).detach();
  target.epsilon_l1 = (model.layerOutput(basis.noisy_embeds, layer) - target.output).abs().sum({1, 2}).cpu();
  target.target_l1 = target.output.abs().sum({1, 2}).cpu();
  return target;
}

// The start of the descent, z0 (see InversionInit), times the basis's scale.
at::Tensor initialEmbedding(const InversionSettings& settings, const InversionBasis& basis, NormalDraws& normal) {
  const auto draws = settings.init == InversionInit::kPaperNormal
                         ? 0.5 + (1.0 / 20.0) * normal(basis.true_embeds.sizes())
                         : normal(basis.true_embeds.sizes());
  return basis.scale * draws;
}

// What the descent minimises: the summed L1 distance between z's output and the target, per input [B].
at::Tensor inversionLoss(LanguageModel& model, const at::Tensor& z, const LayerTarget& target,
                         const InversionSettings& settings, int64_t length) {
  auto diff = (model.layerOutput(z, target.layer) - target.output).abs();
  if (settings.objective == InversionObjective::kLastPosition) diff = diff.select(1, length - 1).unsqueeze(1);
  return diff.sum({1, 2});
}

struct Descent {
  at::Tensor z;                             // the embedding reached
  std::vector<std::vector<double>> curves;  // per input: the loss before each step
  bool cancelled = false;
};

// Gradient descent on z with the decaying step, polling `cancel` before every step. `report` names
// the layer; its iteration and loss are filled in for each progress call.
Descent descend(LanguageModel& model, const LayerTarget& target, at::Tensor z, const InversionSettings& settings,
                double learning_rate, int64_t length, InversionProgress report, const InversionProgressFn& progress,
                const std::atomic<bool>* cancel) {
  const int64_t batch = z.size(0);
  Descent descent;
  descent.curves.resize(batch);
  for (int64_t n = 0; n < settings.iterations; ++n) {
    if (cancel != nullptr && cancel->load()) {
      descent.cancelled = true;
      break;
    }
    z.requires_grad_(true);
    const auto per_input = inversionLoss(model, z, target, settings, length);  // [B]
    const auto grad = torch::autograd::grad({per_input.sum()}, {z})[0];
    {
      torch::NoGradGuard no_grad;
      z = (z - stepSize(settings, learning_rate, n) * grad).detach();
    }
    const auto losses = per_input.detach().cpu();
    for (int64_t b = 0; b < batch; ++b) descent.curves[b].push_back(losses[b].item<double>());
    if (progress) {
      report.iteration = n + 1;
      report.loss = losses.sum().item<double>();
      progress(report);
    }
  }
  descent.z = z;
  return descent;
}

// Decodes the embedding the descent reached and scores it against the reference tokens: one result
// per input. `start` is when the layer's inversion began (its elapsed_ms).
std::vector<InversionResult> decodeLayer(const AnalysisModel& m, const std::vector<std::string>& texts,
                                         const EncodedInputs& inputs, const InversionBasis& basis,
                                         const LayerTarget& target, Descent& descent, const InversionSettings& settings,
                                         c10::Device device, std::chrono::steady_clock::time_point start) {
  torch::NoGradGuard no_grad;
  const at::Tensor& z = descent.z;
  const auto final_losses = inversionLoss(*m.model, z, target, settings, inputs.length).cpu();
  const auto scores =
      torch::matmul(basis.positions.defined() ? z - basis.positions : z, basis.pinv).cpu();  // [B, L, V]
  const auto top = std::get<1>(scores.topk(settings.top_k, -1));                             // [B, L, k]
  const auto reference_scores = scores.gather(-1, basis.reference_ids.unsqueeze(-1));        // [B, L, 1]
  const auto ranks = (scores > reference_scores).sum(-1) + 1;                                // [B, L]
  const double elapsed_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  const int pad = m.padId();
  std::vector<InversionResult> results;
  for (int64_t b = 0; b < inputs.ids.size(0); ++b) {
    InversionResult r;
    r.model_label = m.label;
    r.text = texts[b];
    r.layer = target.layer;
    r.epsilon_l1 = target.epsilon_l1[b].item<double>();
    r.target_l1 = target.target_l1[b].item<double>();
    r.final_loss = final_losses[b].item<double>();
    r.embedding_std = basis.embedding_std;
    r.start_std = basis.scale;
    r.learning_rate = settings.learning_rate * basis.scale;
    r.loss_curve = std::move(descent.curves[b]);
    r.cancelled = descent.cancelled;
    r.elapsed_ms = elapsed_ms;
    r.device = describeDevice(device);
    int64_t exact = 0, matched = 0;
    for (int64_t t = 0; t < inputs.length; ++t) {
      InvertedToken tok;
      tok.original_id = static_cast<int>(inputs.ids[b][t].item<int64_t>());
      tok.original_text = m.tokenizer->piece(tok.original_id);
      tok.reference_id = static_cast<int>(basis.reference_ids[b][t].item<int64_t>());
      for (int64_t k = 0; k < settings.top_k; ++k) {
        const int id = static_cast<int>(top[b][t][k].item<int64_t>());
        tok.candidates.push_back(id);
        tok.candidate_texts.push_back(m.tokenizer->piece(id));
      }
      tok.reference_rank = ranks[b][t].item<int64_t>();
      tok.counted = settings.reference == InversionReference::kInput
                        ? t >= inputs.text_span[b].first && t < inputs.text_span[b].second
                        : tok.reference_id != pad;
      tok.exact = tok.candidates[0] == tok.reference_id;
      tok.top_k_match =
          std::find(tok.candidates.begin(), tok.candidates.end(), tok.reference_id) != tok.candidates.end();
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
  return results;
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
  return invertTexts(m, texts, settings, progress, cancel);
}

std::vector<InversionResult> invertTexts(AnalysisModel& m, const std::vector<std::string>& texts,
                                         const InversionSettings& settings, const InversionProgressFn& progress,
                                         const std::atomic<bool>* cancel) {
  validateInversion(settings);
  if (texts.empty()) throw MixerLabError("no input text to invert");
  LanguageModel& model = *m.model;
  const std::vector<int64_t> layers = resolveLayers(m, settings.layers);

  const c10::Device device = selectDevice(settings.device);
  model.to(device);
  FrozenParameters frozen(model);
  const EncodedInputs inputs = encodeInputs(m, texts, settings.pad_to_context);
  NormalDraws normal(settings.seed, device);
  const InversionBasis basis = embedInputs(model, inputs, settings, normal, device);

  std::vector<InversionResult> results;
  bool cancelled = false;
  for (size_t li = 0; li < layers.size() && !cancelled; ++li) {
    const auto start = std::chrono::steady_clock::now();
    const LayerTarget target = layerTarget(model, basis, layers[li]);
    InversionProgress report;  // the descent fills in the iteration and the loss
    report.layer = layers[li];
    report.layer_index = static_cast<int64_t>(li);
    report.layer_count = static_cast<int64_t>(layers.size());
    report.iterations = settings.iterations;
    Descent descent = descend(model, target, initialEmbedding(settings, basis, normal), settings,
                              settings.learning_rate * basis.scale, inputs.length, report, progress, cancel);
    cancelled = descent.cancelled;
    for (InversionResult& r : decodeLayer(m, texts, inputs, basis, target, descent, settings, device, start)) {
      results.push_back(std::move(r));
    }
  }
  model.to(torch::kCPU);
  return results;
}

}  // namespace mixerlab
