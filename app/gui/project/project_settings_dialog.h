// The project-settings dialog (File > Project settings, and right after File > New project): the
// project's name and description, its corpus (training and eval text, format, JSON Lines field,
// eval split), its tokenizer (vocabulary size, model type, a ready-made tokenizer file) and the
// defaults every run inherits (context length, training settings). Every edit is checked through
// the core parser against the project's runs, with the corpus files required to exist; OK is
// enabled only when the settings are valid. Chosen files inside the project folder are stored
// relative to it.
#pragma once
#include <QDialog>
#include <QJsonObject>
#include <QMap>
#include <QString>

#include "app/gui/project/run_config_schema.h"

class QDialogButtonBox;
class QPushButton;

namespace mixerlab::widgets {
class ConfigForm;
}

namespace mixerlab::gui {

class ProjectSettingsDialog : public QDialog {
  Q_OBJECT
 public:
  // `project`: the open project's document as written and its file.
  explicit ProjectSettingsDialog(const ProjectSource& project, QWidget* parent = nullptr);

  // The settings as they are saved (the document without its runs): keys the file had, keys the
  // form does not show, and fields that differ from their defaults.
  QJsonObject settings() const;
  // Puts `file` in a path field ("corpus.train", "corpus.eval", "tokenizer.file") as a browse
  // button does: relative to the project folder when inside it.
  void choosePath(const QString& key, const QString& file);

  bool isValid() const { return errors_.isEmpty(); }
  QMap<QString, QString> errors() const { return errors_; }
  widgets::ConfigForm* form() const { return form_; }
  QPushButton* okButton() const;

 private:
  void revalidate();
  void browse(const QString& key, const QString& title);

  ProjectSource project_;
  QJsonObject initial_;
  widgets::ConfigForm* form_ = nullptr;
  QDialogButtonBox* buttons_ = nullptr;
  QMap<QString, QString> errors_;
};

}  // namespace mixerlab::gui
