// Readable numeric option checks (see number_checks.h).
#include "app/cli/number_checks.h"

#include <charconv>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>

namespace mixerlab::cli {

namespace {
// "" when `input` is a number meeting `at_least` (strictly above 0 when `strict`); else the problem.
std::string numberProblem(const std::string& input, bool strict) {
  const char* first = input.data();
  const char* last = input.data() + input.size();
  int64_t whole = 0;
  const auto [end, error] = std::from_chars(first, last, whole);
  double value = 0;
  if (end == last && error == std::errc()) {
    value = static_cast<double>(whole);
  } else if (end == last && error == std::errc::result_out_of_range) {
    return "value " + input + " is too large (at most " + std::to_string(std::numeric_limits<int64_t>::max()) + ")";
  } else {
    char* parsed_end = nullptr;
    value = std::strtod(input.c_str(), &parsed_end);
    if (input.empty() || parsed_end != input.c_str() + input.size() || !std::isfinite(value))
      return "value " + input + " is not a number";
  }
  if (strict && !(value > 0)) return "value " + input + " must be above 0";
  if (!strict && value < 0) return "value " + input + " must be 0 or more";
  return {};
}
}  // namespace

CLI::Validator positiveNumber() {
  return CLI::Validator([](std::string& input) { return numberProblem(input, true); }, "POSITIVE");
}

CLI::Validator nonNegativeNumber() {
  return CLI::Validator([](std::string& input) { return numberProblem(input, false); }, "NONNEGATIVE");
}

}  // namespace mixerlab::cli
