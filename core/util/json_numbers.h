// Reading integers from JSON written by someone else. nlohmann-json converts a floating-point value
// to int64_t with a plain cast, which is undefined behaviour when it is out of range (6.6e20 as a
// "step"; found by fuzz/metrics_fuzzer). These read a value only when it is an integer, or a float
// holding an exact integer within range, and say no otherwise.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace mixerlab {

std::optional<int64_t> exactInt64(const nlohmann::json& value);

// j[key] as an exact int64; MixerLabError "<source>: \"key\" ..." when missing or not one.
int64_t requireInt64(const nlohmann::json& j, const char* key, const std::string& source);

}  // namespace mixerlab
