// Edits a project file on disk for the GUI: reads its runs as JSON objects, replaces or appends a
// run, creates a new project from a corpus file. Every write validates the result with the core
// parser first and then writes atomically, so a GUI edit never leaves a broken or half-written file.
#pragma once
#include <QJsonArray>
#include <QJsonObject>
#include <QString>

namespace mixerlab::gui {

// The project's "runs" array as written in the file (defaults not merged in).
QJsonArray readProjectRuns(const QString& project_file, QString* error = nullptr);
// Replaces the run named run["name"] (or appends it). Returns an error message, empty on success.
QString upsertProjectRun(const QString& project_file, const QJsonObject& run, const QString& replace_name = {});
// Writes <folder>/project.json with one flat masked mixer run on `corpus_file`. Error message or empty.
QString createProject(const QString& folder, const QString& corpus_file, QString* project_file);

}  // namespace mixerlab::gui
