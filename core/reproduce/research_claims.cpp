// The catalogue of the research's claims (see research_claims.h). Sources: the masked-mixer paper
// (arXiv 2409.01482v1) and its second blog post; docs/reproduce.md gives each claim's reading.
#include "core/reproduce/research_claims.h"

#include <cstdio>

#include "core/models/model_registry.h"
#include "core/util/error.h"

namespace mixerlab {

bool GroupSelector::matches(ResearchArm run_arm, int64_t run_heads, const std::string& run_attention) const {
  if (run_arm != arm) return false;
  if (n_heads > 0 && run_heads != n_heads) return false;
  return attention.empty() || run_attention == attention;
}

std::string GroupSelector::describe() const {
  std::string text = researchArmName(arm);
  if (n_heads > 0) text += " with " + std::to_string(n_heads) + " heads";
  if (!attention.empty()) text += std::string(n_heads > 0 ? "," : " with") + " " + attention + " attention";
  return text;
}

namespace {

GroupSelector side(ResearchArm arm, int64_t heads = 0, std::string attention = "") {
  return GroupSelector{arm, heads, std::move(attention)};
}

std::vector<ResearchClaim> buildClaims() {
  const std::string wall =
      "eval loss at equal wall clock on one machine (the paper's compute); equal training "
      "FLOPs and equal optimizer steps are reported beside it";
  std::vector<ResearchClaim> claims;
  claims.push_back(
      {"mixer_vs_llama_h32",
       ClaimKind::kLossOrder,
       "The masked mixer reaches a lower loss than Llama with its default 32 heads (eager attention)",
       "paper section 3.2, Tables S1 and S3 (12 h on an RTX 3060)",
       wall,
       {{side(ResearchArm::kMixer), side(ResearchArm::kTransformer, 32, "eager"), ExpectedOrder::kFirstLower}},
       kOrderingMinBudgetFlops});
  claims.push_back(
      {"mixer_vs_llama_h4",
       ClaimKind::kLossOrder,
       "The optimised 4-head Llama reaches a lower loss than the masked mixer (RTX 3060, and with "
       "FlashAttention 2), or about the same (4 V100 without it)",
       "paper section 3.3, Tables S4 to S7",
       wall,
       {{side(ResearchArm::kMixer), side(ResearchArm::kTransformer, 4), ExpectedOrder::kSecondLowerOrEqual}},
       kOrderingMinBudgetFlops});
  claims.push_back({"mixer_vs_gpt",
                    ClaimKind::kLossOrder,
                    "The masked mixer reaches a lower loss than the GPT-style transformer",
                    "paper Tables S5 and S6 (2.25 h on 4 V100)",
                    wall,
                    {{side(ResearchArm::kMixer), side(ResearchArm::kGpt), ExpectedOrder::kFirstLower}},
                    kOrderingMinBudgetFlops});
  claims.push_back(
      {"transfixer_vs_llama",
       ClaimKind::kLossOrder,
       "The Transfixer (attention, then a masked convolution) reaches a lower loss than the 4-head "
       "Llama, the best of every model compared",
       "paper Table S7 (2.25 h on 4 V100, FlashAttention 2)",
       wall,
       {{side(ResearchArm::kTransfixer, 4), side(ResearchArm::kTransformer, 4), ExpectedOrder::kFirstLower}},
       kOrderingMinBudgetFlops});
  claims.push_back({"inversion_by_layer",
                    ClaimKind::kInversion,
                    "A masked mixer's hidden states invert to its input at every layer; a transformer's deeper "
                    "layers do not",
                    "paper sections 2.1 and 2.3 and the inversion figures",
                    "normalised Hamming distance (top-5) of the inverted input at the deepest layer",
                    {},
                    0});
  claims.push_back({"retrieval_top1",
                    ClaimKind::kRetrieval,
                    "A retrieval model on masked-mixer embeddings ranks the true story first more often than one "
                    "on transformer embeddings",
                    "paper section 4, Tables S8 and S9",
                    "top-1 accuracy on held-out candidate sets at the epoch of lowest held-out cross-entropy",
                    {},
                    kOrderingMinBudgetFlops});
  claims.push_back(
      {"autoencoder_mixer_vs_transformer",
       ClaimKind::kLossOrder,
       "A mixer autoencoder reconstructs its input with a lower loss than a transformer autoencoder",
       "blog II (autoencoders, TinyStories, 2.25 h on 4 V100)",
       wall,
       {{side(ResearchArm::kMixerAutoencoder), side(ResearchArm::kTransformerAutoencoder), ExpectedOrder::kFirstLower}},
       kOrderingMinBudgetFlops});
  claims.push_back(
      {"bidirectional_gap",
       ClaimKind::kLossOrder,
       "A bidirectional model (each token predicted from both sides, never from itself) reaches a "
       "lower loss than the causal model of its family, without collapsing below 0.1 (the leak of "
       "combining the streams after every block)",
       "blog II (bidirectional mixers and transformers)",
       "eval loss at equal training FLOPs (the objective's gap, not a speed effect)",
       {{side(ResearchArm::kBidirectionalMixer), side(ResearchArm::kMixer), ExpectedOrder::kFirstLower},
        {side(ResearchArm::kBidirectionalTransformer), side(ResearchArm::kTransformer, 4), ExpectedOrder::kFirstLower}},
       kOrderingMinBudgetFlops,
       0.1,
       LossReading::kEqualFlops});
  claims.push_back({"infonce_top1",
                    ClaimKind::kInfoNce,
                    "InfoNCE fine-tuning makes a masked mixer a better retriever than a transformer",
                    "blog II (InfoNCE on Finemath summaries, top-1 among 32)",
                    "held-out top-1 of cosine retrieval after InfoNCE fine-tuning of each pretrained model",
                    {},
                    kOrderingMinBudgetFlops});
  return claims;
}

}  // namespace

const std::vector<ResearchClaim>& researchClaims() {
  static const std::vector<ResearchClaim> claims = buildClaims();
  return claims;
}

const ResearchClaim& researchClaim(const std::string& id) {
  for (const auto& c : researchClaims()) {
    if (c.id == id) return c;
  }
  throw MixerLabError("unknown claim \"" + id + "\"");
}

std::string modelLabel(const ModelConfig& model, const std::string& attention_ran) {
  std::string label = model.arch + " D=" + std::to_string(model.d_model) + " N=" + std::to_string(model.n_layers);
  if (familyReadsModelKey(model.arch, "n_heads")) label += " H=" + std::to_string(model.n_heads);
  if (familyReadsModelKey(model.arch, "attention")) {
    const std::string asked = attentionImplName(model.attention);
    label += " " + (attention_ran.empty() || attention_ran == asked ? asked : asked + " (ran " + attention_ran + ")");
  }
  if (model.options.is_object() && model.options.contains("embedding_init_std") &&
      model.options["embedding_init_std"].is_number()) {
    char std_text[32];
    std::snprintf(std_text, sizeof std_text, "%g", model.options["embedding_init_std"].get<double>());
    label += std::string(" emb N(0,") + std_text + ")";
  }
  return label;
}

}  // namespace mixerlab
