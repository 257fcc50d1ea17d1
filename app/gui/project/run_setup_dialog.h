// RunSetupDialog: create, duplicate or edit one run of a project. A ConfigForm built from
// runSchema(), validated through the core's project parser on every edit (every invalid field turns
// red with the reason, and all problems are listed under the form), a live analytic cost preview
// with the estimated wall time on this machine, and OK enabled only while the run is valid.
#pragma once
#include <QDialog>
#include <QJsonObject>
#include <QMap>
#include <QStringList>

#include "app/gui/project/run_config_schema.h"

class QComboBox;
class QDialogButtonBox;
class QPushButton;

namespace mixerlab::widgets {
class ConfigForm;
}

namespace mixerlab::gui {

class RunSetupDialog : public QDialog {
  Q_OBJECT
 public:
  // `initial_run` is a run object as written in a project file ({"name", "model", "train"}); the
  // project's defaults are shown for the keys it leaves out.
  // Checks against `project` (the open ProjectDocument's JSON): nothing is read from disk per edit.
  RunSetupDialog(const ProjectSource& project, const QJsonObject& initial_run, QWidget* parent = nullptr);
  // Reads `project_file` once.
  RunSetupDialog(const QString& project_file, const QJsonObject& initial_run, QWidget* parent = nullptr);

  // The edited run as it is saved: its name and architecture, the fields initial_run set (when they
  // still apply to the architecture), the fields whose value differs from what the run would
  // inherit (the project's defaults, else the field's default for the architecture), and any keys of
  // initial_run the form does not cover. So later changes of the project defaults still reach it.
  QJsonObject run() const;
  // Every shown field's value, defaults included (what the run trains with, short of core defaults).
  QJsonObject fullRun() const;
  // "Sweep…" was pressed: the caller makes a sweep (widgets/forms/sweep_dialog.h) from run() instead of
  // adding the run itself.
  bool sweepRequested() const { return sweep_requested_; }
  QPushButton* sweepButton() const { return sweep_button_; }
  // This machine's measured training speed, for the estimated wall time under the cost preview.
  void setMachineSpeed(double training_flops_per_s, int runs_measured);
  // Names the run may not take (the project's other runs, for new and duplicated runs).
  void setReservedNames(const QStringList& names);
  // Fork mode: the form (opened on the parent's settings under the new name) is the
  // new run, started from one of `checkpoint_folders` (`selected` first shown, else the latest).
  // Any training setting may change; the model may not (its weights come from the checkpoint): a
  // model field that differs from what the form showed at this call is an error on that field.
  void setFork(const QString& parent, const QStringList& checkpoint_folders, const QString& selected);
  QString forkCheckpoint() const;  // the chosen checkpoint folder; empty when not forking

  bool isValid() const { return errors_.isEmpty(); }
  QMap<QString, QString> errors() const { return errors_; }
  widgets::ConfigForm* form() const { return form_; }
  QPushButton* okButton() const;

 private:
  void revalidate();

  ProjectSource project_;
  QJsonObject initial_run_;
  QStringList reserved_names_;
  double machine_flops_per_s_ = 0;
  bool sweep_requested_ = false;
  QPushButton* sweep_button_ = nullptr;
  int runs_measured_ = 0;
  QMap<QString, QString> errors_;
  widgets::ConfigForm* form_ = nullptr;
  QDialogButtonBox* buttons_ = nullptr;
  QString fork_parent_;
  QJsonObject fork_parent_run_;
  QComboBox* fork_checkpoint_ = nullptr;
};

}  // namespace mixerlab::gui
