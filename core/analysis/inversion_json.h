// JSON of representation-inversion results, shared by `mixerlab invert --json` and the GUI's saved
// inspections so that both write the same field names: one object per (layer, input) result, the
// settings, and the layer x step grid of an inversion over training. Torch-free header.
#pragma once
#include <cstddef>
#include <string>

#include <nlohmann/json.hpp>

#include "core/analysis/inversion.h"
#include "core/analysis/inversion_over_training.h"

namespace mixerlab {

// The command line's spellings: "standard" / "paper", "all" / "last", "input" / "research".
std::string inversionInitName(InversionInit init);
std::string inversionObjectiveName(InversionObjective objective);
std::string inversionScaleName(InversionScale scale);  // "research", "embedding"
std::string inversionReferenceName(InversionReference reference);

// Scores (hamming_top<k>, hamming_top_k, hamming_exact, counted_positions, epsilon_l1, target_l1,
// final_loss, loss_curve) and tokens (original_tokens, original_ids, reference_ids,
// recovered_tokens, recovered_ids, candidates, reference_rank, counted), plus model, text, layer,
// top_k, cancelled, elapsed_ms and device.
nlohmann::json inversionResultJson(const InversionResult& result, int64_t top_k);

// iterations, learning_rate, init, objective, reference, reference_noise, seed, pad_to_context.
nlohmann::json inversionSettingsJson(const InversionSettings& settings);

// layers, columns ({step, checkpoint}, "untrained" for the untrained column), hamming_top_k and
// hamming_exact ([layer][column]) and the number of inputs.
nlohmann::json overTrainingJson(const InversionOverTraining& grid, size_t inputs);

}  // namespace mixerlab
