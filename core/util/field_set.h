// FieldSet<Struct>: binds field descriptions (field_spec.h) to the members of one config struct,
// and from that single list reads (validated, with errors naming file, field path and the
// expected value; unknown keys rejected), writes JSON, and reports the specs with their defaults
// taken from the struct's own member initialisers. A config field is therefore declared once:
// the member (its C++ type and default) plus one line here (key, bounds or choices, label, help).
//
//   static const auto fields = FieldSet<TrainConfig>()
//       .group("Optimizer")
//       .number("learning_rate", &TrainConfig::learning_rate, 0.0, 10.0, "Learning rate", "peak AdamW rate");
#pragma once
#include <algorithm>
#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/util/field_spec.h"
#include "core/util/json_fields.h"

namespace mixerlab {

constexpr int64_t kFieldMaxInteger = std::numeric_limits<int64_t>::max();

template <class Struct>
class FieldSet {
 public:
  using Reader = std::function<void(JsonFields&, Struct&)>;
  using Writer = std::function<void(const Struct&, nlohmann::json&)>;

  explicit FieldSet(Struct defaults = Struct{}) : defaults_(std::move(defaults)) {}

  // The fields added after this call belong to `name` (a form group box, a docs sub-table).
  FieldSet& group(std::string name) {
    group_ = std::move(name);
    return *this;
  }

  template <class M>
  FieldSet& integer(std::string key, M Struct::*member, int64_t min, int64_t max, std::string label, std::string help) {
    static_assert(std::is_integral_v<M>, "integer fields bind integral members");
    FieldSpec spec = describe(key, FieldType::Integer, std::move(label), std::move(help));
    spec.min = static_cast<double>(min);
    spec.max = static_cast<double>(max);
    return add(
        std::move(spec),
        [key, member, min, max](JsonFields& f, Struct& s) {
          s.*member = static_cast<M>(f.integer(key, static_cast<int64_t>(s.*member), min, max));
        },
        [key, member](const Struct& s, nlohmann::json& j) { j[key] = s.*member; });
  }

  FieldSet& number(std::string key, double Struct::*member, double min, double max, std::string label,
                   std::string help) {
    FieldSpec spec = describe(key, FieldType::Number, std::move(label), std::move(help));
    spec.min = min;
    spec.max = max;
    return add(
        std::move(spec),
        [key, member, min, max](JsonFields& f, Struct& s) { s.*member = f.number(key, s.*member, min, max); },
        [key, member](const Struct& s, nlohmann::json& j) { j[key] = s.*member; });
  }

  FieldSet& boolean(std::string key, bool Struct::*member, std::string label, std::string help) {
    return add(
        describe(key, FieldType::Boolean, std::move(label), std::move(help)),
        [key, member](JsonFields& f, Struct& s) { s.*member = f.boolean(key, s.*member); },
        [key, member](const Struct& s, nlohmann::json& j) { j[key] = s.*member; });
  }

  FieldSet& choice(std::string key, std::string Struct::*member, std::vector<std::string> choices, std::string label,
                   std::string help) {
    FieldSpec spec = describe(key, FieldType::Choice, std::move(label), std::move(help));
    spec.choices = choices;
    return add(
        std::move(spec),
        [key, member, choices](JsonFields& f, Struct& s) { s.*member = f.choice(key, s.*member, choices); },
        [key, member](const Struct& s, nlohmann::json& j) { j[key] = s.*member; });
  }

  // An enum member spelled by name: choices[i] names the enumerator whose value is i.
  template <class E>
  FieldSet& enumChoice(std::string key, E Struct::*member, std::vector<std::string> choices, std::string label,
                       std::string help) {
    static_assert(std::is_enum_v<E>, "enumChoice fields bind enum members");
    FieldSpec spec = describe(key, FieldType::Choice, std::move(label), std::move(help));
    spec.choices = choices;
    return add(
        std::move(spec),
        [key, member, choices](JsonFields& f, Struct& s) {
          const std::string name = f.choice(key, choices.at(static_cast<size_t>(s.*member)), choices);
          s.*member = static_cast<E>(std::find(choices.begin(), choices.end(), name) - choices.begin());
        },
        [key, member, choices](const Struct& s, nlohmann::json& j) {
          j[key] = choices.at(static_cast<size_t>(s.*member));
        });
  }

  FieldSet& text(std::string key, std::string Struct::*member, std::string label, std::string help) {
    return add(
        describe(key, FieldType::Text, std::move(label), std::move(help)),
        [key, member](JsonFields& f, Struct& s) { s.*member = f.string(key, s.*member); },
        [key, member](const Struct& s, nlohmann::json& j) { j[key] = s.*member; });
  }

  // A text field that must be present and non-empty.
  FieldSet& requiredText(std::string key, std::string Struct::*member, std::string label, std::string help) {
    FieldSpec spec = describe(key, FieldType::Text, std::move(label), std::move(help));
    spec.required = true;
    return add(
        std::move(spec), [key, member](JsonFields& f, Struct& s) { s.*member = f.requiredString(key); },
        [key, member](const Struct& s, nlohmann::json& j) { j[key] = s.*member; });
  }

  // A field whose JSON form the caller converts (enums, paths). `spec.key` is its key.
  FieldSet& custom(FieldSpec spec, Reader read, Writer write) {
    if (spec.group.empty()) spec.group = group_;
    return add(std::move(spec), std::move(read), std::move(write));
  }

  // Modifiers of the field added last.
  FieldSet& unit(std::string u) {
    return last([&](FieldSpec& s) { s.unit = std::move(u); });
  }
  FieldSet& flag(std::string option) {
    return last([&](FieldSpec& s) { s.flag = std::move(option); });
  }
  FieldSet& choiceLabels(std::vector<std::string> labels) {
    return last([&](FieldSpec& s) { s.choice_labels = std::move(labels); });
  }
  FieldSet& required() {
    return last([](FieldSpec& s) { s.required = true; });
  }
  // The default is not a fixed value (it follows another setting): docs print `text`, forms leave
  // the field empty unless it is set.
  FieldSet& derivedDefault(std::string text) {
    return last([&](FieldSpec& s) {
      s.default_text = std::move(text);
      s.default_value = nullptr;
    });
  }
  // Only some model families read this field (ArchitectureInfo::model_keys says which).
  FieldSet& familySpecific() {
    return last([](FieldSpec& s) { s.families = {"*"}; });
  }

  // Reads every field present in `f` into `s` (absent fields keep the value `s` has); the caller
  // rejects unknown keys, so several sets can share one JSON object.
  void readInto(JsonFields& f, Struct& s) const {
    for (const auto& e : entries_) e.read(f, s);
  }
  // Validated read of a whole object: starts from `base`, rejects keys no field declares.
  Struct read(const nlohmann::json& object, const std::string& file, const std::string& path, Struct base) const {
    JsonFields f(object.is_null() ? nlohmann::json::object() : object, file, path);
    readInto(f, base);
    f.rejectUnknownKeys();
    return base;
  }
  Struct read(const nlohmann::json& object, const std::string& file, const std::string& path) const {
    return read(object, file, path, defaults_);
  }
  // Reads stored JSON (a run.json or checkpoint of this or an older version): unknown keys are
  // ignored, absent ones take their defaults, values are still checked.
  Struct readStored(const nlohmann::json& object) const {
    Struct s = defaults_;
    JsonFields f(object.is_null() ? nlohmann::json::object() : object, "", "");
    readInto(f, s);
    return s;
  }
  nlohmann::json write(const Struct& s) const {
    nlohmann::json j = nlohmann::json::object();
    for (const auto& e : entries_) e.write(s, j);
    return j;
  }
  const std::vector<FieldSpec>& specs() const { return specs_; }
  const Struct& defaults() const { return defaults_; }

 private:
  struct Entry {
    Reader read;
    Writer write;
  };

  FieldSpec describe(const std::string& key, FieldType type, std::string label, std::string help) const {
    FieldSpec spec;
    spec.key = key;
    spec.type = type;
    spec.label = std::move(label);
    spec.help = std::move(help);
    spec.group = group_;
    return spec;
  }
  FieldSet& add(FieldSpec spec, Reader read, Writer write) {
    nlohmann::json written = nlohmann::json::object();
    write(defaults_, written);
    if (spec.default_value.is_null() && written.contains(spec.key)) spec.default_value = written.at(spec.key);
    specs_.push_back(std::move(spec));
    entries_.push_back({std::move(read), std::move(write)});
    return *this;
  }
  template <class F>
  FieldSet& last(F&& change) {
    if (!specs_.empty()) change(specs_.back());
    return *this;
  }

  Struct defaults_;
  std::string group_;
  std::vector<FieldSpec> specs_;
  std::vector<Entry> entries_;
};

}  // namespace mixerlab
