// Validated JSON field access (see json_fields.h).
#include "core/util/json_fields.h"

#include <cmath>
#include <cstdio>

#include "core/util/error.h"
#include "core/util/json_numbers.h"
#include "core/util/text.h"

namespace mixerlab {
namespace {

// A value as a message quotes it: its JSON text, cut to a few dozen characters (a 120 KB value was echoed whole).
std::string shown(const nlohmann::json& value) { return abbreviated(value.dump()); }

// A number that is no int64 as the file wrote it: nlohmann keeps 2^63 as an unsigned integer, whose text is
// exact, and 2^64 as a double, printed here without an exponent while it has one exact integer text.
std::string shownInteger(const nlohmann::json& value) {
  if (value.is_number_float()) {
    const double d = value.get<double>();
    if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 1e21) {
      char text[32];
      std::snprintf(text, sizeof text, "%.0f", d);
      return text;
    }
  }
  return shown(value);
}

}  // namespace

JsonFields::JsonFields(const nlohmann::json& object, std::string file, std::string path)
    : object_(object), file_(std::move(file)), path_(std::move(path)) {
  if (!object_.is_object()) {
    throw MixerLabError(file_ + ": " + (path_.empty() ? "the top level" : path_) + ": expected a JSON object, got " +
                        object_.type_name());
  }
}

std::string JsonFields::fieldPath(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

void JsonFields::fail(const std::string& key, const std::string& problem, const std::string& fix) const {
  throw MixerLabError(file_ + ": " + fieldPath(abbreviated(key, 60)) + ": " + problem, fix);
}

const nlohmann::json* JsonFields::find(const std::string& key) {
  known_.insert(key);
  auto it = object_.find(key);
  return it == object_.end() || it->is_null() ? nullptr : &*it;
}

bool JsonFields::has(const std::string& key) const { return object_.contains(key) && !object_.at(key).is_null(); }

int64_t JsonFields::integer(const std::string& key, int64_t fallback, int64_t min, int64_t max) {
  const auto* v = find(key);
  if (!v) return fallback;
  const std::string expected = "expected an integer between " + std::to_string(min) + " and " + std::to_string(max);
  // Not an integer, or one beyond int64 (2^63 read as int64 was reported as -9223372036854775808).
  const std::optional<int64_t> value = exactInt64(*v);
  if (!value) fail(key, expected + ", got " + shownInteger(*v));
  if (*value < min || *value > max) fail(key, expected + ", got " + std::to_string(*value));
  return *value;
}

double JsonFields::number(const std::string& key, double fallback, double min, double max) {
  const auto* v = find(key);
  if (!v) return fallback;
  if (!v->is_number()) fail(key, "expected a number, got " + shown(*v));
  const double value = v->get<double>();
  if (!(value >= min && value <= max)) {
    fail(key, "expected a number between " + nlohmann::json(min).dump() + " and " + nlohmann::json(max).dump() +
                  ", got " + shown(*v));
  }
  return value;
}

bool JsonFields::boolean(const std::string& key, bool fallback) {
  const auto* v = find(key);
  if (!v) return fallback;
  if (!v->is_boolean()) fail(key, "expected true or false, got " + shown(*v));
  return v->get<bool>();
}

std::string JsonFields::string(const std::string& key, const std::string& fallback) {
  const auto* v = find(key);
  if (!v) return fallback;
  if (!v->is_string()) fail(key, "expected a string, got " + shown(*v));
  return v->get<std::string>();
}

std::string JsonFields::choice(const std::string& key, const std::string& fallback,
                               const std::vector<std::string>& allowed) {
  const std::string value = string(key, fallback);
  for (const auto& a : allowed) {
    if (a == value) return value;
  }
  std::string list;
  for (const auto& a : allowed) list += (list.empty() ? "\"" : ", \"") + a + "\"";
  fail(key, "expected one of " + list + ", got \"" + abbreviated(value) + "\"");
}

std::string JsonFields::requiredString(const std::string& key) {
  if (!has(key)) fail(key, "is required (a string)");
  const std::string value = string(key, "");
  if (value.empty()) fail(key, "must not be empty");
  return value;
}

JsonFields JsonFields::object(const std::string& key) {
  const auto* v = find(key);
  if (!v) return JsonFields(nlohmann::json::object(), file_, fieldPath(key));
  if (!v->is_object()) fail(key, "expected a JSON object, got " + std::string(v->type_name()));
  return JsonFields(*v, file_, fieldPath(key));
}

void JsonFields::rejectUnknownKeys() const {
  for (const auto& [key, value] : object_.items()) {
    if (known_.count(key) || key.rfind("_comment", 0) == 0) continue;
    std::string list;
    for (const auto& k : known_) list += (list.empty() ? "" : ", ") + k;
    fail(key, "unknown field", "remove it or use one of: " + list);
  }
}

}  // namespace mixerlab
