// How a project's "defaults" apply under one run: the defaults' section ("model" or "train") with
// the run's own section merged over it as a JSON merge patch (RFC 7396: objects merge recursively,
// null removes a key). The one definition of that merge, used by the project parser and the GUI.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace mixerlab {

// `defaults`: the project's "defaults" object; `run`: one run object as written. A run section that
// is not an object is returned unchanged so the field reader can report its type.
nlohmann::json runSectionWithDefaults(const nlohmann::json& defaults, const nlohmann::json& run,
                                      const std::string& section);

}  // namespace mixerlab
