// Validators for the CLI's numeric options, with messages a user can read: CLI11's own
// PositiveNumber prints its double bounds ("not in range 0.000000 to 1797693...", 309 digits),
// and CLI11 converts an integer too large for its option to the largest one without a word. These
// refuse a value that is not a number, out of its bound, or too large for a 64-bit integer.
#pragma once
#include <CLI/CLI.hpp>

namespace mixerlab::cli {

CLI::Validator positiveNumber();     // above 0
CLI::Validator nonNegativeNumber();  // 0 or more

}  // namespace mixerlab::cli
