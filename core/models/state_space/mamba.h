// Mamba-style selective state-space language model (S6 blocks, no attention). Block: pre-norm
// residual x + MambaMixer(RMSNorm(x)). Mixer: in_proj D -> 2E (u and gate z), causal depthwise
// conv over time on u + SiLU, x_proj E -> dt_rank + 2N (dt_low, B, C per token), dt =
// softplus(dt_proj(dt_low)), A = -exp(A_log), selective scan (kernels/selective_scan.h) with D skip,
// y * SiLU(z), out_proj E -> D. Submodule names follow Hugging Face's MambaForCausalLM
// (backbone.embeddings, backbone.layers.N.{norm,mixer.*}, backbone.norm_f, lm_head).
#pragma once
#include <string>

#include <torch/nn/modules/container/modulelist.h>
#include <torch/nn/modules/conv.h>
#include <torch/nn/modules/embedding.h>
#include <torch/nn/modules/linear.h>

#include "core/models/language_model.h"
#include "core/models/transformers/llama_transformer.h"  // RMSNorm
#include "core/util/field_set.h"
#include "core/util/json_fields.h"
#include "kernels/selective_scan.h"

namespace mixerlab {

// The family's `options` (see docs in mamba_family.cpp and the final report).
struct MambaOptions {
  int64_t d_state = 16;        // N: state size per channel
  int64_t d_conv = 4;          // causal depthwise conv kernel over time
  int64_t expand = 2;          // E = expand * D
  int64_t dt_rank = 0;         // 0: ceil(D / 16)
  std::string scan = "fused";  // see kernels/selective_scan.h; the fused kernel is CPU-only for now
  int64_t chunk_size = 64;     // positions per chunk for scan = "chunked"
};
// The option fields (the one declaration behind parser, schema, form and docs).
const FieldSet<MambaOptions>& mambaOptionFields();
// Reads (and range-checks) every option key through `fields`.
MambaOptions readMambaOptions(JsonFields& fields);
// The options of a config, with dt_rank resolved (> 0). Throws on invalid options.
MambaOptions mambaOptions(const ModelConfig& config);

// Where a mixer's recurrence stands after some positions: all a token-by-token decoder needs to go on.
struct MambaRecurrentState {
  at::Tensor conv_inputs;  // [B, E, d_conv]: u_in of the last d_conv positions (zeros before the start)
  at::Tensor ssm;          // [B, E, N]: the scan's state h after the last position
};

class MambaMixerImpl : public torch::nn::Module {
 public:
  MambaMixerImpl(const ModelConfig& config, const MambaOptions& options);
  at::Tensor forward(const at::Tensor& x);  // [B, L, D] -> [B, L, D]
  // The same forward, also returning where the recurrence stands after position L-1 (a decoder's
  // prefill: the prompt in one parallel pass instead of L recurrent steps). Records no gradient
  // through the scan (kernels/selective_scan_state.h).
  at::Tensor forward(const at::Tensor& x, MambaRecurrentState& state);

  torch::nn::Linear in_proj{nullptr}, x_proj{nullptr}, dt_proj{nullptr}, out_proj{nullptr};
  torch::nn::Conv1d conv1d{nullptr};
  at::Tensor A_log;  // [E, N]
  at::Tensor D;      // [E]

 private:
  at::Tensor forwardInto(const at::Tensor& x, MambaRecurrentState* state);
  int64_t inner_, state_, dt_rank_, chunk_size_;
  kernels::ScanMode scan_;
};
TORCH_MODULE(MambaMixer);

class MambaBlockImpl : public torch::nn::Module {
 public:
  MambaBlockImpl(const ModelConfig& config, const MambaOptions& options);
  at::Tensor forward(const at::Tensor& x);
  RMSNorm norm{nullptr};
  MambaMixer mixer{nullptr};
};
TORCH_MODULE(MambaBlock);

// The "backbone" submodule of MambaForCausalLM.
class MambaBackboneImpl : public torch::nn::Module {
 public:
  MambaBackboneImpl(const ModelConfig& config, const MambaOptions& options);
  torch::nn::Embedding embeddings{nullptr};
  torch::nn::ModuleList layers{nullptr};
  RMSNorm norm_f{nullptr};
};
TORCH_MODULE(MambaBackbone);

class MambaModel : public LanguageModel {
 public:
  explicit MambaModel(const ModelConfig& config);
  at::Tensor forward(const at::Tensor& input_ids) override;
  at::Tensor hiddenStates(const at::Tensor& input_ids) override;  // after the last block, before norm_f
  int64_t representationLayers() const override;
  at::Tensor tokenEmbeddingMatrix() override;
  at::Tensor layerOutput(const at::Tensor& embeds, int64_t layer) override;
  std::map<std::string, at::Tensor> moduleTensors() override;

  MambaBackbone backbone{nullptr};
  torch::nn::Linear lm_head{nullptr};  // null when tie_weights
};

}  // namespace mixerlab
