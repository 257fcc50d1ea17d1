// Exact integers from JSON (see json_numbers.h).
#include "core/util/json_numbers.h"

#include <cmath>

#include "core/util/error.h"

namespace mixerlab {

std::optional<int64_t> exactInt64(const nlohmann::json& value) {
  if (value.is_number_integer()) {
    if (value.is_number_unsigned() && value.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX)) return std::nullopt;
    return value.get<int64_t>();
  }
  if (value.is_number_float()) {
    const double d = value.get<double>();
    // 2^63 is the first double past int64's range; -2^63 is its smallest value.
    if (std::isfinite(d) && d == std::floor(d) && d >= -9223372036854775808.0 && d < 9223372036854775808.0) {
      return static_cast<int64_t>(d);
    }
  }
  return std::nullopt;
}

int64_t requireInt64(const nlohmann::json& j, const char* key, const std::string& source) {
  if (!j.is_object() || !j.contains(key)) throw MixerLabError(source + ": missing \"" + key + "\"", "use another file");
  const auto v = exactInt64(j.at(key));
  if (!v) {
    throw MixerLabError(source + ": \"" + key + "\" is " + j.at(key).dump() + ", not an integer in range",
                        "use another file");
  }
  return *v;
}

}  // namespace mixerlab
