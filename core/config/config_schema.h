// The schema of a project file, assembled from the field declarations (project_fields.h,
// trainFields(), modelFields() and each family's option fields). `mixerlab config schema`
// prints it, the GUI's run form is built from runFieldSpecs(), and the field tables of
// docs/project-file.md and docs/architectures.md are generated from it (a test keeps them equal).
#pragma once
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "core/util/field_spec.h"

namespace mixerlab {

// Every field of one run object, keyed as the run form addresses it: "name", "model.<key>",
// "model.options.<key>" and "train.<key>". Family-specific fields carry the families that read
// them; an option key that families declare differently (say `dropout`, 0.1 for gpt and 0 for
// transformer_autoencoder) appears once per distinct declaration.
std::vector<FieldSpec> runFieldSpecs();

// The project-level fields: "name", "description", "corpus.<key>", "tokenizer.<key>".
std::vector<FieldSpec> projectFieldSpecs();

// {"project": [spec...], "run": [spec...], "families": [{"name", "description", "model_keys", "options"}]}
nlohmann::json configSchemaJson();

// Markdown tables for the docs: "project-file" (corpus, tokenizer, run.model, run.train) or
// "architectures" (keys and options of every family). Throws MixerLabError for another name.
std::string configSchemaMarkdown(const std::string& document);
// The names configSchemaMarkdown accepts.
std::vector<std::string> configSchemaDocuments();

}  // namespace mixerlab
