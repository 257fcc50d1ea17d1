// The schema-driven test helpers (schema_fixtures.h).
#include "tests/schema_fixtures.h"

#include <filesystem>

#include "core/config/project_config.h"
#include "core/models/model_registry.h"
#include "core/util/error.h"

namespace mixerlab::testing {

using json = nlohmann::json;

std::string familyFor(const FieldSpec& spec) {
  if (spec.families.empty()) return "masked_mixer";
  for (const auto& info : architectures()) {
    for (const auto& family : spec.families) {
      if (family == info.name) return info.name;
    }
    if (spec.families == std::vector<std::string>{"*"}) {
      const std::string key = spec.key.substr(spec.key.rfind('.') + 1);
      for (const auto& k : info.model_keys) {
        if (k == key) return info.name;
      }
    }
  }
  return {};
}

json baseProject(const std::string& arch) {
  return {{"name", "bounds"},
          {"corpus", {{"train", "train.txt"}, {"format", "blank_line"}}},
          {"runs", json::array({{{"name", "r"},
                                 {"model", {{"arch", arch}, {"d_model", 64}, {"n_layers", 2}, {"context_length", 32}}},
                                 {"train", {{"max_steps", 10}}}}})}};
}

void setAt(json& object, const std::string& dotted, const json& value) {
  json* at = &object;
  size_t start = 0;
  for (size_t dot = dotted.find('.'); dot != std::string::npos; dot = dotted.find('.', start)) {
    at = &(*at)[dotted.substr(start, dot - start)];
    start = dot + 1;
  }
  (*at)[dotted.substr(start)] = value;
}

json getAt(const json& object, const std::string& dotted) {
  const json* at = &object;
  size_t start = 0;
  while (true) {
    const size_t dot = dotted.find('.', start);
    const std::string part = dotted.substr(start, dot == std::string::npos ? std::string::npos : dot - start);
    if (!at->is_object() || !at->contains(part)) return nullptr;
    at = &(*at)[part];
    if (dot == std::string::npos) return *at;
    start = dot + 1;
  }
}

std::string projectError(const json& project) {
  try {
    parseProject(project, std::filesystem::path("/nonexistent/bounds.json"), CorpusFiles::MayBeMissing);
  } catch (const MixerLabError& e) {
    return e.what();
  }
  return {};
}

}  // namespace mixerlab::testing
