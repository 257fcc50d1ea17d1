// JSON of inversion results (see inversion_json.h).
#include "core/analysis/inversion_json.h"

namespace mixerlab {

std::string inversionInitName(InversionInit init) { return init == InversionInit::kPaperNormal ? "paper" : "standard"; }

std::string inversionObjectiveName(InversionObjective objective) {
  return objective == InversionObjective::kLastPosition ? "last" : "all";
}

std::string inversionScaleName(InversionScale scale) {
  return scale == InversionScale::kEmbedding ? "embedding" : "research";
}

std::string inversionReferenceName(InversionReference reference) {
  return reference == InversionReference::kNoisyPseudoInverse ? "research" : "input";
}

nlohmann::json inversionResultJson(const InversionResult& r, int64_t top_k) {
  nlohmann::json original_tokens = nlohmann::json::array(), recovered_tokens = nlohmann::json::array(),
                 original_ids = nlohmann::json::array(), reference_ids = nlohmann::json::array(),
                 recovered_ids = nlohmann::json::array(), candidates = nlohmann::json::array(),
                 ranks = nlohmann::json::array(), counted = nlohmann::json::array();
  for (const auto& t : r.tokens) {
    original_tokens.push_back(t.original_text);
    original_ids.push_back(t.original_id);
    reference_ids.push_back(t.reference_id);
    recovered_tokens.push_back(t.candidate_texts[0]);
    recovered_ids.push_back(t.candidates[0]);
    candidates.push_back(t.candidates);
    ranks.push_back(t.reference_rank);
    counted.push_back(t.counted);
  }
  return {{"model", r.model_label},
          {"text", r.text},
          {"layer", r.layer},
          {"top_k", top_k},
          {"hamming_top" + std::to_string(top_k), r.hamming_top_k},
          {"hamming_top_k", r.hamming_top_k},
          {"hamming_exact", r.hamming_exact},
          {"counted_positions", r.counted_positions},
          {"epsilon_l1", r.epsilon_l1},
          {"target_l1", r.target_l1},
          {"final_loss", r.final_loss},
          {"embedding_std", r.embedding_std},
          {"start_std", r.start_std},
          {"learning_rate", r.learning_rate},
          {"loss_curve", r.loss_curve},
          {"original_tokens", original_tokens},
          {"original_ids", original_ids},
          {"reference_ids", reference_ids},
          {"recovered_tokens", recovered_tokens},
          {"recovered_ids", recovered_ids},
          {"candidates", candidates},
          {"reference_rank", ranks},
          {"counted", counted},
          {"cancelled", r.cancelled},
          {"elapsed_ms", r.elapsed_ms},
          {"device", r.device}};
}

nlohmann::json inversionSettingsJson(const InversionSettings& s) {
  return {{"iterations", s.iterations},
          {"learning_rate", s.learning_rate},
          {"init", inversionInitName(s.init)},
          {"objective", inversionObjectiveName(s.objective)},
          {"reference", inversionReferenceName(s.reference)},
          {"scale", inversionScaleName(s.scale)},
          {"reference_noise", s.reference_noise},
          {"seed", s.seed},
          {"pad_to_context", s.pad_to_context}};
}

nlohmann::json overTrainingJson(const InversionOverTraining& grid, size_t inputs) {
  nlohmann::json columns = nlohmann::json::array();
  for (size_t c = 0; c < grid.steps.size(); ++c) {
    columns.push_back({{"step", grid.steps[c]},
                       {"checkpoint", grid.checkpoints[c].empty() ? "untrained" : grid.checkpoints[c].string()}});
  }
  return {{"layers", grid.layers},
          {"columns", columns},
          {"hamming_top_k", grid.hamming_top_k},
          {"hamming_exact", grid.hamming_exact},
          {"inputs", inputs}};
}

}  // namespace mixerlab
