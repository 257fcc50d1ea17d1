// Bidirectional transformer (see bidirectional_transformer.h).
#include "core/models/transformers/bidirectional_transformer.h"

#include "core/models/research_names.h"

#include <torch/torch.h>

namespace mixerlab {
namespace F = torch::nn::functional;

LlamaLayerStackImpl::LlamaLayerStackImpl(const ModelConfig& c) {
  layers = register_module("layers", torch::nn::ModuleList());
  for (int64_t i = 0; i < c.n_layers; ++i) layers->push_back(LlamaDecoderLayer(c));
}

at::Tensor LlamaLayerStackImpl::forward(const at::Tensor& x, RotaryTables& rotary) {
  auto h = x;
  for (const auto& layer : *layers) h = layer->as<LlamaDecoderLayer>()->forward(h, rotary);  // causal
  return h;
}

BidirectionalTransformer::BidirectionalTransformer(const ModelConfig& c)
    : LanguageModel(c), rotary_(c.d_model / c.n_heads, c.rope_theta) {
  // The research model's own nn.Embedding / nn.Linear keep PyTorch default init (N(0,1), U(+-1/sqrt(D)));
  // the Llama layers have HF's N(0, 0.02).
  wte = register_module("wte", torch::nn::Embedding(c.vocab_size, c.d_model));
  forward_model = register_module("forward_model", LlamaLayerStack(c));
  reverse_model = register_module("reverse_model", LlamaLayerStack(c));
  lm_head =
      register_module("lm_head", torch::nn::Linear(torch::nn::LinearOptions(c.d_model, c.vocab_size).bias(false)));
}

at::Tensor BidirectionalTransformer::hiddenStates(const at::Tensor& input_ids) {
  auto e = wte->forward(input_ids);
  const int64_t length = e.size(1);
  auto f = forward_model->forward(e, rotary_);                      // F[t] saw tokens <= t
  auto r = reverse_model->forward(e.flip({1}), rotary_).flip({1});  // R[t] saw tokens >= t
  auto zero = torch::zeros_like(e.narrow(1, 0, 1));
  auto f_shifted = torch::cat({zero, f.narrow(1, 0, length - 1)}, 1);  // F~[t] = F[t-1], F~[0] = 0
  auto r_shifted = torch::cat({r.narrow(1, 1, length - 1), zero}, 1);  // R~[t] = R[t+1], R~[L-1] = 0
  return f_shifted + r_shifted;
}

at::Tensor BidirectionalTransformer::forward(const at::Tensor& input_ids) {
  return lm_head->forward(hiddenStates(input_ids));
}

at::Tensor BidirectionalTransformer::loss(const at::Tensor& logits, const at::Tensor& labels) const {
  return F::cross_entropy(logits.reshape({-1, logits.size(2)}), labels.reshape({-1}),
                          F::CrossEntropyFuncOptions().ignore_index(-100));
}

int64_t BidirectionalTransformer::targetCount(const at::Tensor& labels) const {
  return labels.ne(-100).sum().item<int64_t>();
}

std::string BidirectionalTransformer::fileTensorName(const std::string& name) const {
  return replacePrefix(replacePrefix(name, "forward_model.layers.", wrappedLlamaLayers("forward_model")),
                       "reverse_model.layers.", wrappedLlamaLayers("reverse_model"));
}

bool BidirectionalTransformer::ignoresFileTensor(const std::string& name) const {
  return isUnusedWrappedLlamaTensor(name, {"forward_model", "reverse_model"});
}

}  // namespace mixerlab
