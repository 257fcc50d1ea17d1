// ModelConfig's field declarations (see model_fields.h).
#include "core/models/model_fields.h"

#include "core/models/model_registry.h"

namespace mixerlab {

const FieldSet<ModelConfig>& modelFields() {
  static const auto fields = [] {
    std::vector<std::string> arch_names;
    for (const auto& a : architectures()) arch_names.push_back(a.name);
    return FieldSet<ModelConfig>()
        .group("Architecture")
        .choice("arch", &ModelConfig::arch, arch_names, "Architecture", "the model family (docs/architectures.md)")
        .integer("vocab_size", &ModelConfig::vocab_size, 2, 1 << 24, "Vocabulary",
                 "must equal the tokenizer's vocabulary size when given; omit it to follow the tokenizer")
        .derivedDefault("the tokenizer's")
        .integer("d_model", &ModelConfig::d_model, 1, 1 << 20, "d_model (D)", "hidden size D")
        .integer("n_layers", &ModelConfig::n_layers, 1, 4096, "Layers (N)", "blocks N (per stack for autoencoders)")
        .integer("context_length", &ModelConfig::context_length, 2, 1 << 20, "Context length (T)",
                 "tokens per sequence; the mixer's token-mixing weights are [T, T, k]")
        .unit("tokens")
        .integer("n_heads", &ModelConfig::n_heads, 1, 4096, "Attention heads",
                 "attention heads; must divide d_model (with an even head dimension for rotary positions)")
        .familySpecific()
        .integer("ff_mult", &ModelConfig::ff_mult, 1, 64, "Feed-forward multiplier",
                 "feed-forward width = ff_mult x D (mixer GELU MLP; Llama SwiGLU intermediate)")
        .familySpecific()
        .integer("kernel_size", &ModelConfig::kernel_size, 1, 64, "Mixing kernel size (k)",
                 "token-mixing conv kernel k ('same' padding along D, per-tap causal mask)")
        .familySpecific()
        .boolean("tie_weights", &ModelConfig::tie_weights, "Tie embedding and head",
                 "share the embedding with the LM head")
        // gpt always ties, the autoencoders never do, transfixer and bidirectional_transformer reject it.
        .familySpecific()
        .number("rope_theta", &ModelConfig::rope_theta, 1.0, 1e9, "RoPE base", "rotary position base")
        .familySpecific()
        .number("norm_eps", &ModelConfig::norm_eps, -1.0, 1.0, "Norm epsilon",
                "< 0: the family's default (LayerNorm 1e-5, RMSNorm 1e-6)")
        .group("Objective")
        .enumChoice("objective", &ModelConfig::objective, modelObjectiveNames(), "Objective",
                    "next_token; multi_token (mtp_tokens passes, loss summed); one_step_completion (masked_mixer and "
                    "llama: predict the second half from the first)")
        .familySpecific()
        .integer("mtp_tokens", &ModelConfig::mtp_tokens, 2, 16, "Multi-token passes", "passes for multi_token")
        .familySpecific()
        .group("Attention")
        .enumChoice("attention", &ModelConfig::attention, attentionImplNames(), "Attention implementation",
                    "sdpa: the fused kernel (no [B,H,T,T] scores stored; LibTorch 1.13 computes eager instead); "
                    "eager: scores materialised and soft-maxed in fp32, as Hugging Face's eager attention and the "
                    "research's 32-head Llamas")
        .familySpecific();
  }();
  return fields;
}

}  // namespace mixerlab
