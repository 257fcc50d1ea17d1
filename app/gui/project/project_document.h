// ProjectDocument: the open project, held once for the whole GUI. It keeps the JSON as written
// (what edits change and the file stores), its path, and the core's parsed and validated view
// (mixerlab::ProjectConfig). Edits (add, replace, duplicate, remove a run) are validated by the core
// parser, written atomically, and pushed on an undo stack; undo and redo rewrite the file as it was.
// An edit changes only the edited run's text in the file: key order, formatting and the other runs
// stay byte for byte (core/config/project_text_edit.h).
// Plain Qt types in this header (the core's types are only forward-declared) so moc never sees torch.
#pragma once
#include <QByteArray>
#include <QJsonObject>
#include <QObject>
#include <QString>
#include <QStringList>
#include <QVector>
#include <memory>
#include <string>

class QUndoStack;

namespace mixerlab {
struct ProjectConfig;
}

namespace mixerlab::gui {

// One state of the project: the document as written, the file text, and the core's view of it.
struct ProjectSnapshot {
  QJsonObject json;
  QByteArray file_text;
  std::shared_ptr<const ProjectConfig> parsed;
};

struct ProjectRunSummary {
  QString name, arch;
};

class ProjectDocument : public QObject {
  Q_OBJECT
 public:
  explicit ProjectDocument(QObject* parent = nullptr);
  ~ProjectDocument() override;

  // Reads and validates the project file. Returns the core's error message (the open document, if
  // any, stays); on success replaces the document, clears the undo history and emits opened().
  QString open(const QString& project_file);
  bool isOpen() const { return current_.parsed != nullptr; }
  QString filePath() const { return file_path_; }  // absolute
  QString name() const;
  QString runsDirectory() const;
  const ProjectConfig* parsed() const { return current_.parsed.get(); }
  QJsonObject json() const { return current_.json; }
  QByteArray fileText() const { return current_.file_text; }

  QVector<ProjectRunSummary> runs() const;
  QStringList runNames() const;
  // The run object named `run_name` as written ({} if there is none).
  QJsonObject run(const QString& run_name) const;
  // The run with every default filled in, as the trainer sees it ({} and *error if unknown).
  QJsonObject resolvedRun(const QString& run_name, QString* error = nullptr) const;

  // Edits. Each returns the core's error message and changes nothing when the result is invalid.
  QString addRun(const QJsonObject& run, const QString& undo_text = {});
  QString replaceRun(const QString& run_name, const QJsonObject& run);
  QString duplicateRun(const QString& run_name, const QString& new_name);
  QString removeRun(const QString& run_name);
  // Replaces the project's own settings (every top-level key but "runs": name, description,
  // corpus, tokenizer, defaults) with `settings`; the runs stay as written. The file keeps its key
  // order where the keys remain. Undoable like a run edit.
  QString replaceSettings(const QJsonObject& settings);
  // The error adding `runs` would give (the core's message), without adding them; empty when valid.
  QString checkNewRuns(const QVector<QJsonObject>& runs) const;
  QUndoStack* undoStack() const { return undo_stack_; }

  // Writes `snapshot` (a state this document held before) and adopts it: used by undo and redo.
  // Emits writeFailed and keeps the current state when the file cannot be written.
  void restore(const ProjectSnapshot& snapshot);

 Q_SIGNALS:
  void opened();
  void edited();  // an edit was made, undone or redone (the file has been written)
  void writeFailed(const QString& error);

 private:
  // Validates `json` through the core parser into *snapshot. Error message or empty.
  // `file_text`: the new file as spliced (core/config/project_text_edit.h); empty: MixerLab's own format.
  QString prepare(const QJsonObject& json, ProjectSnapshot* snapshot, const std::string& file_text = {}) const;
  QString edit(const QJsonObject& json, const QString& undo_text, const std::string& file_text = {});
  int runIndex(const QString& run_name) const;

  QString file_path_;
  ProjectSnapshot current_;
  QUndoStack* undo_stack_ = nullptr;
};

}  // namespace mixerlab::gui
