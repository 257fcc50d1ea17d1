// How a declared field (field_spec.h) appears on a command line: its option name and its help
// text with the default. `mixerlab invert` and `generate` add their settings options from these,
// and the tests check the CLI's help against them, so an option's name, default and help follow
// the field's declaration.
#pragma once
#include <string>

#include "core/util/field_spec.h"

namespace mixerlab {

// spec.flag when declared, else "--" + the key with dashes ("--top-k"); a boolean that is on by
// default is a flag that turns it off: "--no-" + the key with dashes.
std::string fieldOptionName(const FieldSpec& spec);
// The default as the help writes it: "500 steps", "0.02", "standard", "none" (an empty text).
std::string fieldOptionDefault(const FieldSpec& spec);
// The help sentence, capitalised, with the default: "Gradient-descent steps N (default 500 steps)".
// A boolean flag says what it turns on, or "Turns off (on by default): ..." for a --no- flag.
std::string fieldOptionHelp(const FieldSpec& spec);

}  // namespace mixerlab
