// The fields of a project file outside run.model and run.train: the project's name and
// description, corpus, tokenizer and each run's name. With modelFields() (core/models) and
// trainFields() (train_config.h) these are every field a project file has; the parser, the
// schema (config_schema.h), the GUI form and the docs all read them from here.
#pragma once
#include "core/config/project_config.h"
#include "core/util/field_set.h"

namespace mixerlab {

const FieldSet<ProjectConfig>& projectFields();        // name, description
const FieldSet<CorpusConfig>& corpusFields();          // corpus.*: paths are read as written (the parser resolves them)
const FieldSet<TokenizerSettings>& tokenizerFields();  // tokenizer.*
const FieldSet<RunConfig>& runFields();                // runs[i].name

}  // namespace mixerlab
