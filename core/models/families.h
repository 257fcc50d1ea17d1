// Registry entries of the model families (one *_family.cpp each).
#pragma once
#include <functional>

#include "core/models/model_registry.h"
#include "core/util/field_set.h"
#include "core/util/json_fields.h"

namespace mixerlab {

ArchitectureInfo maskedMixerFamily();
ArchitectureInfo llamaFamily();
ArchitectureInfo bidirectionalMixerFamily();
ArchitectureInfo mixerAutoencoderFamily();
ArchitectureInfo transformerAutoencoderFamily();
ArchitectureInfo mambaFamily();
ArchitectureInfo gptFamily();
ArchitectureInfo transfixerFamily();
ArchitectureInfo bidirectionalTransformerFamily();

// Checks shared by all families (positive sizes, vocabulary, context).
void validateCommonSizes(const ModelConfig& c, std::vector<std::string>& problems);
// n_heads must divide d_model; with rotary positions the head dimension must also be even.
void validateAttentionHeads(const ModelConfig& c, bool rotary, std::vector<std::string>& problems);
// A family without a tied head refuses tie_weights; `untied_head` says whose head is untied and how.
void refuseTiedHead(const ModelConfig& c, const std::string& untied_head, std::vector<std::string>& problems);

// Validates a family's `options` object: `read` reads every known key through JsonFields (which
// also rejects unknown keys afterwards); the first error becomes "options.<key>: <problem>".
void validateOptions(const ModelConfig& c, std::vector<std::string>& problems,
                     const std::function<void(JsonFields&)>& read);
// The same for a family whose options are exactly `fields`, with no checks across keys.
template <typename Options>
void validateOptionFields(const ModelConfig& c, std::vector<std::string>& problems, const FieldSet<Options>& fields) {
  validateOptions(c, problems, [&fields](JsonFields& f) {
    Options o;
    fields.readInto(f, o);
  });
}

// One Llama layer named `name` (q, k, v, o; SwiGLU of ff_mult*D; two RMSNorms) over `tokens` tokens:
// 8*D^2 + 4*T*D + 6*ff_mult*D^2 FLOPs/token. The llama, transfixer and bidirectional transformer
// families build on it.
LayerCost llamaLayerCost(const ModelConfig& c, const std::string& name, double tokens);

// Adds the embedding, head and totals to a cost whose per-block layers are filled in.
void finishCost(const ModelConfig& c, ModelCost& cost, int64_t head_parameters, const std::string& formula);

}  // namespace mixerlab
