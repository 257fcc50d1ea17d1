// Assembling the schema from the field declarations (see config_schema.h).
#include "core/config/config_schema.h"

#include <algorithm>

#include "core/config/project_fields.h"
#include "core/config/train_config.h"
#include "core/models/model_fields.h"
#include "core/models/model_registry.h"
#include "core/util/error.h"

namespace mixerlab {
namespace {

void appendWithPrefix(std::vector<FieldSpec>& out, const std::vector<FieldSpec>& specs, const std::string& prefix) {
  for (FieldSpec spec : specs) {
    spec.key = prefix + spec.key;
    out.push_back(std::move(spec));
  }
}

bool sameDeclaration(FieldSpec a, FieldSpec b) {
  a.families.clear();
  b.families.clear();
  return a.toJson() == b.toJson();
}

// Model keys with the families that read them (familySpecific keys), every family's options merged
// where the declarations agree.
std::vector<FieldSpec> modelSpecs() {
  std::vector<FieldSpec> out;
  for (FieldSpec spec : modelFields().specs()) {
    if (!spec.families.empty()) {  // family-specific: the families that list the key
      spec.families.clear();
      for (const auto& a : architectures()) {
        if (familyReadsModelKey(a.name, spec.key)) spec.families.push_back(a.name);
      }
    }
    spec.key = "model." + spec.key;
    out.push_back(std::move(spec));
  }
  std::vector<FieldSpec> options;
  for (const auto& a : architectures()) {
    for (FieldSpec spec : a.options) {
      spec.key = "model.options." + spec.key;
      auto same =
          std::find_if(options.begin(), options.end(), [&](const FieldSpec& o) { return sameDeclaration(o, spec); });
      if (same != options.end()) {
        same->families.push_back(a.name);
      } else {
        spec.families = {a.name};
        options.push_back(std::move(spec));
      }
    }
  }
  out.insert(out.end(), options.begin(), options.end());
  return out;
}

std::string cell(std::string text) {
  for (size_t i = 0; (i = text.find('|', i)) != std::string::npos; i += 2) text.replace(i, 1, "\\|");
  return text;
}

std::string table(const std::vector<FieldSpec>& specs, const std::string& strip, bool with_families) {
  std::string out = with_families ? "| key | default | range | families | meaning |\n|---|---|---|---|---|\n"
                                  : "| key | default | range | meaning |\n|---|---|---|---|\n";
  for (const auto& s : specs) {
    std::string key = s.key.substr(strip.size());
    std::string meaning = s.help + (s.unit.empty() ? "" : " (" + s.unit + ")");
    out += "| `" + key + "` | " + cell(s.defaultForDocs()) + " | " + cell(s.rangeForDocs()) + " | ";
    if (with_families) {
      std::string families;
      for (const auto& f : s.families) families += (families.empty() ? "" : ", ") + f;
      out += (families.empty() ? "all" : families) + " | ";
    }
    out += cell(meaning) + " |\n";
  }
  return out;
}

std::vector<FieldSpec> withPrefix(const std::vector<FieldSpec>& all, const std::string& prefix) {
  std::vector<FieldSpec> out;
  for (const auto& s : all) {
    if (s.key.rfind(prefix, 0) == 0 && s.key.find('.', prefix.size()) == std::string::npos) out.push_back(s);
  }
  return out;
}

std::string projectFileTables() {
  const auto project = projectFieldSpecs();
  const auto run = runFieldSpecs();
  return "## Top level\n" + table(withPrefix(project, ""), "", false) +               //
         "\n## corpus\n" + table(withPrefix(project, "corpus."), "corpus.", false) +  //
         "\n## tokenizer\n" + table(withPrefix(project, "tokenizer."), "tokenizer.", false) + "\n## runs[i]\n" +
         table(withPrefix(run, ""), "", false) +  //
         "\n## run.model\n" + table(withPrefix(run, "model."), "model.", true) +
         "\nFamily options (`run.model.options`) are listed by family in [architectures.md](architectures.md).\n" +
         "\n## run.train\n" + table(withPrefix(run, "train."), "train.", false);
}

std::string architectureTables() {
  std::string out = "| family (`arch`) | model keys beyond the common ones | option keys |\n|---|---|---|\n";
  for (const auto& a : architectures()) {
    std::string keys, options;
    for (const auto& k : a.model_keys) keys += (keys.empty() ? "`" : ", `") + k + "`";
    for (const auto& o : a.options) options += (options.empty() ? "`" : ", `") + o.key + "`";
    out += "| `" + a.name + "` | " + (keys.empty() ? "none" : keys) + " | " + (options.empty() ? "none" : options) +
           " |\n";
  }
  out += "\nCommon keys (every family): ";
  std::string common;
  for (const auto& s : modelFields().specs()) {
    if (s.families.empty()) common += (common.empty() ? "`" : ", `") + s.key + "`";
  }
  out += common + ".\n";
  for (const auto& a : architectures()) {
    if (a.options.empty()) continue;
    std::vector<FieldSpec> specs = a.options;
    out += "\n### Options of `" + a.name + "`\n" + table(specs, "", false);
  }
  return out;
}

}  // namespace

std::vector<FieldSpec> runFieldSpecs() {
  std::vector<FieldSpec> out = runFields().specs();
  for (auto& spec : modelSpecs()) out.push_back(std::move(spec));
  appendWithPrefix(out, trainFields().specs(), "train.");
  return out;
}

std::vector<FieldSpec> projectFieldSpecs() {
  std::vector<FieldSpec> out = projectFields().specs();
  appendWithPrefix(out, corpusFields().specs(), "corpus.");
  appendWithPrefix(out, tokenizerFields().specs(), "tokenizer.");
  return out;
}

nlohmann::json configSchemaJson() {
  nlohmann::json project = nlohmann::json::array(), run = nlohmann::json::array(), families = nlohmann::json::array();
  for (const auto& s : projectFieldSpecs()) project.push_back(s.toJson());
  for (const auto& s : runFieldSpecs()) run.push_back(s.toJson());
  for (const auto& a : architectures()) {
    nlohmann::json options = nlohmann::json::array();
    for (const auto& o : a.options) options.push_back(o.toJson());
    families.push_back(
        {{"name", a.name}, {"description", a.description}, {"model_keys", a.model_keys}, {"options", options}});
  }
  return {{"project", project}, {"run", run}, {"families", families}};
}

std::vector<std::string> configSchemaDocuments() { return {"project-file", "architectures"}; }

std::string configSchemaMarkdown(const std::string& document) {
  if (document == "project-file") return projectFileTables();
  if (document == "architectures") return architectureTables();
  throw MixerLabError("unknown schema document \"" + document + "\"", "use project-file or architectures");
}

}  // namespace mixerlab
