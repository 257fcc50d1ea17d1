// Mamba-style selective state-space model (see mamba.h). Written from the public description of
// Mamba / S6 (Gu & Dao 2023): input-dependent B, C and step size, diagonal S4D-real A, zero-order
// hold for A and the Euler form for B, gated output and a causal depthwise conv.
#include "core/models/state_space/mamba.h"

#include <algorithm>
#include <cmath>

#include <torch/torch.h>

#include "core/models/norm_eps.h"
#include "kernels/selective_scan_state.h"

namespace mixerlab {
namespace F = torch::nn::functional;

namespace {
constexpr double kMambaNormEps = 1e-5;

torch::nn::Linear mambaLinear(int64_t in, int64_t out, bool bias = false) {
  return torch::nn::Linear(torch::nn::LinearOptions(in, out).bias(bias));  // PyTorch default init
}
}  // namespace

const FieldSet<MambaOptions>& mambaOptionFields() {
  static const auto fields =
      FieldSet<MambaOptions>()
          .group("Selective SSM")
          .integer("d_state", &MambaOptions::d_state, 1, 1024, "State size (N)", "SSM state size per channel")
          .integer("d_conv", &MambaOptions::d_conv, 1, 64, "Conv kernel (time)",
                   "kernel of the causal depthwise conv over time")
          .integer("expand", &MambaOptions::expand, 1, 64, "Inner expansion", "inner width E = expand x D")
          .integer("dt_rank", &MambaOptions::dt_rank, 0, 1 << 20, "Step-size rank",
                   "rank of the step-size projection; 0 = ceil(D/16)")
          .choice("scan", &MambaOptions::scan, {"fused", "parallel", "chunked", "sequential"}, "Scan",
                  "fused (hand-written forward/backward loops, CPU; runs parallel on other devices), parallel "
                  "(log-depth odd/even scan), chunked (parallel within chunks, sequential carry) or sequential "
                  "(the reference loop); all four agree to 1e-5")
          .integer("chunk_size", &MambaOptions::chunk_size, 1, 1 << 20, "Scan chunk",
                   "chunk length of the chunked scan")
          .unit("positions");
  return fields;
}

MambaOptions readMambaOptions(JsonFields& f) {
  MambaOptions o;
  mambaOptionFields().readInto(f, o);
  return o;
}

MambaOptions mambaOptions(const ModelConfig& c) {
  MambaOptions o = mambaOptionFields().read(c.options, "", "options");
  if (o.dt_rank == 0) o.dt_rank = (c.d_model + 15) / 16;  // ceil(D / 16)
  return o;
}

MambaMixerImpl::MambaMixerImpl(const ModelConfig& c, const MambaOptions& o)
    : inner_(o.expand * c.d_model),
      state_(o.d_state),
      dt_rank_(o.dt_rank),
      chunk_size_(o.chunk_size),
      scan_(kernels::parseScanMode(o.scan)) {
  const int64_t E = inner_, N = state_, R = dt_rank_;
  in_proj = register_module("in_proj", mambaLinear(c.d_model, 2 * E));
  conv1d = register_module(
      "conv1d", torch::nn::Conv1d(torch::nn::Conv1dOptions(E, E, o.d_conv).groups(E).padding(o.d_conv - 1).bias(true)));
  x_proj = register_module("x_proj", mambaLinear(E, R + 2 * N));
  dt_proj = register_module("dt_proj", mambaLinear(R, E, /*bias=*/true));
  out_proj = register_module("out_proj", mambaLinear(E, c.d_model));
  A_log = register_parameter("A_log", torch::log(torch::arange(1, N + 1, torch::kFloat)).repeat({E, 1}));
  D = register_parameter("D", torch::ones({E}));

  torch::NoGradGuard no_grad;
  // dt_proj: weights U(+-R^-1/2); bias = softplus^-1(dt) with dt log-uniform in [1e-3, 1e-1], so the
  // initial step sizes span two decades.
  const double bound = 1.0 / std::sqrt(static_cast<double>(R));
  dt_proj->weight.uniform_(-bound, bound);
  const double lo = std::log(1e-3), hi = std::log(1e-1);
  auto dt = torch::exp(torch::rand({E}) * (hi - lo) + lo).clamp_min(1e-4);
  dt_proj->bias.copy_(dt + torch::log(-torch::expm1(-dt)));
  // Residual-branch output scaled by 1/sqrt(n_layers) (GPT-2 style pre-norm rescaling).
  out_proj->weight.div_(std::sqrt(static_cast<double>(c.n_layers)));
}

at::Tensor MambaMixerImpl::forward(const at::Tensor& x) { return forwardInto(x, nullptr); }

at::Tensor MambaMixerImpl::forward(const at::Tensor& x, MambaRecurrentState& state) { return forwardInto(x, &state); }

at::Tensor MambaMixerImpl::forwardInto(const at::Tensor& x, MambaRecurrentState* state) {
  const int64_t length = x.size(1);
  const at::Tensor projected = in_proj->forward(x);  // [B, L, 2E]
  const at::Tensor u_in = projected.narrow(-1, 0, inner_);
  const at::Tensor z = projected.narrow(-1, inner_, inner_);
  // Causal depthwise conv over time: padding d_conv-1 on both sides, keep the first L outputs, so
  // output t sees inputs t-d_conv+1 .. t only.
  const at::Tensor conv = conv1d->forward(u_in.transpose(1, 2)).narrow(2, 0, length).transpose(1, 2);
  const at::Tensor u = F::silu(conv);            // [B, L, E]
  const at::Tensor params = x_proj->forward(u);  // [B, L, R + 2N]
  const at::Tensor dt_low = params.narrow(-1, 0, dt_rank_);
  const at::Tensor B = params.narrow(-1, dt_rank_, state_);
  const at::Tensor C = params.narrow(-1, dt_rank_ + state_, state_);
  const at::Tensor delta = F::softplus(dt_proj->forward(dt_low));  // [B, L, E]
  const at::Tensor A = -torch::exp(A_log);                         // [E, N]
  // The scan runs in fp32 even under bf16/fp16 autocast: its running product of decays and its sum
  // over the whole sequence lose too much in 8 or 11 mantissa bits (the reference Mamba does the same).
  // In an fp32 or fp64 forward nothing is cast.
  const auto f32 = [](const at::Tensor& t) {
    return (t.scalar_type() == at::kHalf || t.scalar_type() == at::kBFloat16) ? t.to(torch::kFloat) : t;
  };
  if (state == nullptr) {
    const at::Tensor y =
        kernels::selectiveScan(f32(u), f32(delta), A, f32(B).contiguous(), f32(C).contiguous(), D, scan_, chunk_size_);
    return out_proj->forward(y * F::silu(z));
  }
  const int64_t width = conv1d->weight.size(2), kept = std::min(width, length);
  state->conv_inputs = at::zeros({x.size(0), inner_, width}, u_in.options());
  state->conv_inputs.narrow(2, width - kept, kept).copy_(u_in.narrow(1, length - kept, kept).transpose(1, 2));
  const auto scanned = kernels::selectiveScanWithFinalState(f32(u), f32(delta), A, f32(B).contiguous(),
                                                            f32(C).contiguous(), D, scan_, chunk_size_);
  state->ssm = scanned.final_state.to(u.scalar_type());
  return out_proj->forward(scanned.y * F::silu(z));
}

MambaBlockImpl::MambaBlockImpl(const ModelConfig& c, const MambaOptions& o) {
  norm = register_module("norm", RMSNorm(c.d_model, normEps(c, kMambaNormEps)));
  mixer = register_module("mixer", MambaMixer(c, o));
}

at::Tensor MambaBlockImpl::forward(const at::Tensor& x) { return x + mixer->forward(norm->forward(x)); }

MambaBackboneImpl::MambaBackboneImpl(const ModelConfig& c, const MambaOptions& o) {
  embeddings = register_module("embeddings", torch::nn::Embedding(c.vocab_size, c.d_model));
  {
    torch::NoGradGuard no_grad;
    embeddings->weight.normal_(0.0, 0.02);
  }
  layers = register_module("layers", torch::nn::ModuleList());
  for (int64_t i = 0; i < c.n_layers; ++i) layers->push_back(MambaBlock(c, o));
  norm_f = register_module("norm_f", RMSNorm(c.d_model, normEps(c, kMambaNormEps)));
}

MambaModel::MambaModel(const ModelConfig& c) : LanguageModel(c) {
  backbone = register_module("backbone", MambaBackbone(c, mambaOptions(c)));
  if (!c.tie_weights) {
    lm_head = register_module("lm_head", mambaLinear(c.d_model, c.vocab_size));
    torch::NoGradGuard no_grad;
    lm_head->weight.normal_(0.0, 0.02);
  }
}

at::Tensor MambaModel::hiddenStates(const at::Tensor& input_ids) {
  return layerOutput(backbone->embeddings->forward(input_ids), representationLayers());
}

int64_t MambaModel::representationLayers() const { return static_cast<int64_t>(backbone->layers->size()); }
at::Tensor MambaModel::tokenEmbeddingMatrix() { return backbone->embeddings->weight; }

at::Tensor MambaModel::layerOutput(const at::Tensor& embeds, int64_t layer) {
  auto x = embeds;
  for (int64_t i = 0; i < layer; ++i) x = backbone->layers[i]->as<MambaBlock>()->forward(x);
  return x;
}

at::Tensor MambaModel::forward(const at::Tensor& input_ids) {
  auto x = backbone->norm_f->forward(hiddenStates(input_ids));
  return lm_head ? lm_head->forward(x) : F::linear(x, backbone->embeddings->weight);
}

std::map<std::string, at::Tensor> MambaModel::moduleTensors() {
  auto out = LanguageModel::moduleTensors();
  if (!lm_head) out["lm_head.weight"] = backbone->embeddings->weight.detach();
  return out;
}

}  // namespace mixerlab
