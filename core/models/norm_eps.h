// The epsilon of a model's norm layers: the config's norm_eps when it sets one (> 0), else the
// family's own default (Llama-style RMSNorm 1e-6, Mamba's RMSNorm 1e-5). One shared rule, so the
// families do not each keep a file-local copy (copies with one name clash in the unity build).
#pragma once
#include "core/models/model_config.h"

namespace mixerlab {

inline double normEps(const ModelConfig& c, double family_default) {
  return c.norm_eps > 0 ? c.norm_eps : family_default;
}

}  // namespace mixerlab
