// Validated JSON field access (see json_fields.h).
#include "core/util/json_fields.h"

#include <cmath>

#include "core/util/error.h"

namespace mixerlab {

JsonFields::JsonFields(const nlohmann::json& object, std::string file, std::string path)
    : object_(object), file_(std::move(file)), path_(std::move(path)) {
  if (!object_.is_object()) {
    throw MixerLabError(file_ + ": " + (path_.empty() ? "the top level" : path_) + ": expected a JSON object, got " +
                        object_.type_name());
  }
}

std::string JsonFields::fieldPath(const std::string& key) const { return path_.empty() ? key : path_ + "." + key; }

void JsonFields::fail(const std::string& key, const std::string& problem, const std::string& fix) const {
  throw MixerLabError(file_ + ": " + fieldPath(key) + ": " + problem, fix);
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
  int64_t value = 0;
  if (v->is_number_integer()) {
    value = v->get<int64_t>();
  } else if (v->is_number_float() && std::floor(v->get<double>()) == v->get<double>()) {
    value = static_cast<int64_t>(v->get<double>());
  } else {
    fail(key,
         "expected an integer between " + std::to_string(min) + " and " + std::to_string(max) + ", got " + v->dump());
  }
  if (value < min || value > max) {
    fail(key, "expected an integer between " + std::to_string(min) + " and " + std::to_string(max) + ", got " +
                  std::to_string(value));
  }
  return value;
}

double JsonFields::number(const std::string& key, double fallback, double min, double max) {
  const auto* v = find(key);
  if (!v) return fallback;
  if (!v->is_number()) fail(key, "expected a number, got " + v->dump());
  const double value = v->get<double>();
  if (!(value >= min && value <= max)) {
    fail(key, "expected a number between " + nlohmann::json(min).dump() + " and " + nlohmann::json(max).dump() +
                  ", got " + v->dump());
  }
  return value;
}

bool JsonFields::boolean(const std::string& key, bool fallback) {
  const auto* v = find(key);
  if (!v) return fallback;
  if (!v->is_boolean()) fail(key, "expected true or false, got " + v->dump());
  return v->get<bool>();
}

std::string JsonFields::string(const std::string& key, const std::string& fallback) {
  const auto* v = find(key);
  if (!v) return fallback;
  if (!v->is_string()) fail(key, "expected a string, got " + v->dump());
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
  fail(key, "expected one of " + list + ", got \"" + value + "\"");
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
