// JSON form of ModelConfig, through its field declarations (model_fields.h); validation with
// field-level messages and the family checks live in config/.
#include "core/models/model_config.h"

#include <algorithm>

#include "core/models/model_fields.h"
#include "core/util/error.h"

namespace mixerlab {

const std::vector<std::string>& modelObjectiveNames() {
  static const std::vector<std::string> names = {"next_token", "multi_token", "one_step_completion"};
  return names;
}

std::string modelObjectiveName(ModelObjective objective) {
  return modelObjectiveNames().at(static_cast<size_t>(objective));
}

const std::vector<std::string>& attentionImplNames() {
  static const std::vector<std::string> names = {"sdpa", "eager"};
  return names;
}

std::string attentionImplName(AttentionImpl impl) { return attentionImplNames().at(static_cast<size_t>(impl)); }

ModelObjective parseModelObjective(const std::string& name) {
  const auto& names = modelObjectiveNames();
  const auto found = std::find(names.begin(), names.end(), name);
  if (found == names.end()) {
    throw MixerLabError("unknown objective \"" + name + "\"", "use next_token, multi_token or one_step_completion");
  }
  return static_cast<ModelObjective>(found - names.begin());
}

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
