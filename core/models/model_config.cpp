// JSON form of ModelConfig, through its field declarations (model_fields.h); validation with
// field-level messages and the family checks live in config/.
#include "core/models/model_config.h"

#include "core/models/model_fields.h"

namespace mixerlab {

nlohmann::json ModelConfig::toJson() const {
  nlohmann::json j = modelFields().write(*this);
  j["options"] = options;
  return j;
}

ModelConfig ModelConfig::fromJson(const nlohmann::json& j) {
  ModelConfig c = modelFields().readStored(j);
  if (j.contains("options")) c.options = j.at("options");
  return c;
}

}  // namespace mixerlab
