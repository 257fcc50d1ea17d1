// RunAnnotations: the tags and notes a user gives runs in the runs table, kept per project in
// <project folder>/run_notes.json ({"<run>": {"tags": [...], "notes": "..."}}), written atomically
// (a temporary file renamed over the old one). Separate from project.json so annotating a run never
// touches what it trains with, and from the run folders so a not-yet-started run can be tagged.
#pragma once
#include <QMap>
#include <QString>
#include <QStringList>

namespace mixerlab::gui {

struct RunAnnotation {
  QStringList tags;
  QString notes;
};

// {} when the file does not exist; *error names the file and the problem when it cannot be read.
QMap<QString, RunAnnotation> readRunAnnotations(const QString& project_dir, QString* error = nullptr);
// Runs without tags or notes are left out. Returns the error, empty on success.
QString writeRunAnnotations(const QString& project_dir, const QMap<QString, RunAnnotation>& annotations);
QString runAnnotationsPath(const QString& project_dir);

}  // namespace mixerlab::gui
