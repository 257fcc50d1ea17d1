// environmentChoice: reads an environment variable that picks one of a few named code paths (the
// A/B switches MIXERLAB_MIXER_STACK, MIXERLAB_SCAN_FORWARD, MIXERLAB_ROW_SIMD, MIXERLAB_DECODE_STEP).
// Unset or empty: no choice. A value its parser does not accept throws std::invalid_argument that
// names the variable, the value and what it expects: a mistyped switch must not quietly measure
// the default path. Callers keep the result in a function-local static, so it is read once.
#pragma once

#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <string>

namespace mixerlab::kernels {

// parse: std::string -> std::optional<Choice>; expected: e.g. "thread or lanes (unset it for lanes)".
template <typename Choice, typename Parse>
std::optional<Choice> environmentChoice(const char* variable, const Parse& parse, const std::string& expected) {
  const char* value = std::getenv(variable);
  if (value == nullptr || *value == '\0') return std::nullopt;
  const std::optional<Choice> parsed = parse(std::string(value));
  if (!parsed) throw std::invalid_argument(std::string(variable) + "=\"" + value + "\": expected " + expected);
  return parsed;
}

}  // namespace mixerlab::kernels
