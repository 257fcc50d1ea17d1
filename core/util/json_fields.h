// Typed, validated access to one JSON object of a config file. Every error names the file, the
// field's path (e.g. runs[1].model.d_model) and what was expected, and unknown keys are rejected
// with the list of known ones, so a typo never silently falls back to a default.
#pragma once
#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mixerlab {

class JsonFields {
 public:
  JsonFields(const nlohmann::json& object, std::string file, std::string path);

  int64_t integer(const std::string& key, int64_t fallback, int64_t min, int64_t max);
  double number(const std::string& key, double fallback, double min, double max);
  bool boolean(const std::string& key, bool fallback);
  std::string string(const std::string& key, const std::string& fallback);
  std::string choice(const std::string& key, const std::string& fallback, const std::vector<std::string>& allowed);
  std::string requiredString(const std::string& key);
  bool has(const std::string& key) const;
  // A nested object (empty object when absent); error if present and not an object.
  JsonFields object(const std::string& key);
  const nlohmann::json& raw() const { return object_; }
  std::string fieldPath(const std::string& key) const;
  // Marks a key as known without reading it (for keys handled elsewhere).
  void accept(const std::string& key) { known_.insert(key); }
  // Throws on keys that were never read or accepted.
  void rejectUnknownKeys() const;
  [[noreturn]] void fail(const std::string& key, const std::string& problem, const std::string& fix = {}) const;

 private:
  const nlohmann::json* find(const std::string& key);
  nlohmann::json object_;
  std::string file_, path_;
  std::set<std::string> known_;
};

}  // namespace mixerlab
