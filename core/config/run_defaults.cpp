// The merge of project defaults under a run (see run_defaults.h).
#include "core/config/run_defaults.h"

namespace mixerlab {

nlohmann::json runSectionWithDefaults(const nlohmann::json& defaults, const nlohmann::json& run,
                                      const std::string& section) {
  nlohmann::json merged = defaults.is_object() && defaults.contains(section) && defaults.at(section).is_object()
                              ? defaults.at(section)
                              : nlohmann::json::object();
  if (run.is_object() && run.contains(section)) {
    if (!run.at(section).is_object()) return run.at(section);
    merged.merge_patch(run.at(section));
  }
  return merged;
}

}  // namespace mixerlab
