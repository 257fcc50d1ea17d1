// Where the run-setup form meets the core: the form's schema (from the architecture registry and
// the core's config defaults), validation of one run through the real project parser
// (mixerlab::parseProject), and the analytic cost preview (mixerlab::estimateCost).
// Plain Qt types only, so moc and the widgets never see torch or core headers.
#pragma once
#include <QJsonObject>
#include <QMap>
#include <QString>
#include <QVector>

#include "widgets/forms/config_form.h"

namespace mixerlab::gui {

// Every field of the run-setup form: name, architecture and family options, training, budget.
QVector<widgets::FieldSpec> runSchema();

// The project a run is checked against: its document as written (ProjectDocument::json(), or read
// once from the file) and its path, against which relative corpus paths resolve. The form checks
// every keystroke against this copy, so nothing is read from disk while the user types.
struct ProjectSource {
  QJsonObject document;
  QString file;
  QString error;  // why the file could not be read (then every check reports it)
};
ProjectSource readProjectSource(const QString& project_file);

// Every problem of the run at once (field key -> message; "" for problems without a field).
QMap<QString, QString> validateRun(const QJsonObject& run, const ProjectSource& project);
QString costPreview(const QJsonObject& run, const ProjectSource& project);
QJsonObject withProjectDefaults(const QJsonObject& run, const ProjectSource& project);
// `run` reduced to its name, architecture and the settings whose values differ from `inherited`
// (both as resolved run objects): a fork's full run.json becomes what a project entry needs to say.
QJsonObject settingsThatDiffer(const QJsonObject& run, const QJsonObject& inherited);

// "estimated wall time: 2:31 (...)": the run's token budget x its training FLOPs per token over this
// machine's measured training FLOP/s (run_time_estimate.h); "no measured run yet" when nothing was.
QString wallTimeEstimate(const QJsonObject& run, const ProjectSource& project, double training_flops_per_s,
                         int runs_measured);
QJsonObject resolvedRun(const QJsonObject& run, const ProjectSource& project, QString* error = nullptr);

// The same, reading the project file first (for callers that hold only a path).

// Validates `run` as the only run of the project in `project_file` (its corpus, tokenizer and
// defaults). Returns {} when valid, else key -> message, e.g. {"model.d_model": "expected an integer
// between 1 and 1048576, got -3"}; problems without a field of the run are under "".
QMap<QString, QString> validateRun(const QJsonObject& run, const QString& project_file);

// Multi-line text: parameters, forward/training FLOPs per token, activation memory for the run's
// batch, and weights + gradients + AdamW memory. Explains itself when the run is invalid.
QString costPreview(const QJsonObject& run, const QString& project_file);

// `run` with the project's defaults.model / defaults.train merged under its own model / train.
QJsonObject withProjectDefaults(const QJsonObject& run, const QString& project_file);
// The fully resolved run (every default filled in, as the trainer sees it); {} and *error if invalid.
QJsonObject resolvedRun(const QJsonObject& run, const QString& project_file, QString* error = nullptr);
// The run object named `run_name` as written in the project file ({} if there is none).
QJsonObject projectRun(const QString& project_file, const QString& run_name);

}  // namespace mixerlab::gui
