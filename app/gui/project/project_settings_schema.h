// Where the project-settings dialog meets the core: the fields of a project file's own sections
// (name, description, corpus, tokenizer; from the core's declarations) and of its defaults (the
// training settings and context length every run inherits unless it sets them), validation of
// edited settings through the real parser against the project's runs, and the settings object a
// save writes (only what the file said or what differs from the default). Plain Qt types only.
#pragma once
#include <QJsonObject>
#include <QMap>
#include <QString>
#include <QVector>

#include "app/gui/project/run_config_schema.h"
#include "widgets/forms/form_field_spec.h"

namespace mixerlab::gui {

// "name", "description", "corpus.<key>", "tokenizer.<key>", "defaults.model.context_length" and
// "defaults.train.<key>" for every training setting that every family reads.
QVector<widgets::FieldSpec> projectSettingsSchema();

// The project document without its runs: what the settings dialog edits.
QJsonObject projectSettingsOf(const QJsonObject& document);

// Every problem of `settings` at once (field key -> message; "" for problems without a field),
// checked with the project's runs and with the corpus files required to exist: a bad default is
// reported on its defaults field, a run the settings break by its name.
QMap<QString, QString> validateProjectSettings(const QJsonObject& settings, const ProjectSource& project);

// The settings to write from the form's values: every key `initial` had (changed or not), keys the
// form does not show, and each shown field whose value differs from its default.
QJsonObject settingsToSave(const QJsonObject& form_values, const QJsonObject& initial,
                           const QVector<widgets::FieldSpec>& schema);

// `file` as the project should store it: relative to `project_folder` when inside it (so the
// project folder can move), absolute otherwise.
QString projectRelativePath(const QString& project_folder, const QString& file);

}  // namespace mixerlab::gui
