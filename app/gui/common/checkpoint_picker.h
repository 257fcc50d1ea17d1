// The "Add run" and "Add folder" buttons of the Generate, Inspect and Retrieve tabs, and the rules
// their columns share. "Add run" lists the open project's runs that have a checkpoint: each run's
// latest checkpoint (pinned when chosen), any of its step-N checkpoints (a submenu per run) and,
// where the tab takes it, its untrained twin; the folder button takes a run, checkpoints/ or
// checkpoint folder. A tab holds at most a set number of columns, and a model already shown is
// refused with a message naming it. The panel owns its columns: the picker asks it for their keys
// (CheckpointColumn::key) and hands it requests through its add function, which calls choose()
// to resolve and check them. The main window's startup options and Run menu reach the same add
// function through add() (column_request.h spells the entries).
#pragma once
#include <QString>
#include <QStringList>
#include <QWidget>
#include <functional>

#include "app/gui/common/checkpoint_column.h"
#include "app/gui/common/column_request.h"

class QMenu;
class QPushButton;
class QToolButton;

namespace mixerlab::gui {

struct CheckpointPickerOptions {
  int max_columns = 4;
  bool offers_untrained = false;     // the tab runs untrained twins (Inspect, Retrieve; not Generate)
  QString columns_noun = "columns";  // in messages: "at most 4 columns: remove one first"
  QString tab_name = "this tab";     // in messages: "the Generate tab takes trained checkpoints only"
  QString add_run_object_name = "add_run";
  QString add_folder_object_name = "add_folder";
  QString add_folder_text = "Add folder...";
  QString add_folder_tooltip;
  QString folder_dialog_title = "Add a run folder or a checkpoint folder";
};

class CheckpointPicker : public QWidget {
  Q_OBJECT
 public:
  // Adds a column to the panel; returns an error message, empty on success.
  using AddColumn = std::function<QString(const ColumnRequest& request)>;
  // The keys of the panel's columns, in order.
  using ColumnKeys = std::function<QStringList()>;

  CheckpointPicker(const CheckpointPickerOptions& options, AddColumn add, ColumnKeys column_keys,
                   QWidget* parent = nullptr);

  const CheckpointPickerOptions& options() const { return options_; }
  // The open project's runs folder, which "Add run" lists and the folder dialog opens.
  void setRunsDirectory(const QString& runs_directory);
  QString runsDirectory() const { return runs_directory_; }

  // Adds a column through the panel's add function; an error is also reported with refused().
  QString add(const ColumnRequest& request);

  // For the panel's add function: refuses a request when the tab is full or takes no untrained
  // twin, else resolves it into *column and refuses a model the tab already shows. Returns the
  // error message, empty when the column may be added.
  QString choose(const ColumnRequest& request, CheckpointColumn* column) const;
  // The room and duplicate rules alone, for a column that is not a checkpoint (a retrieval
  // dataset folder): `key` as CheckpointColumn::key would give it, `label` names it in the message.
  QString refusal(const QString& key, const QString& label) const;
  bool hasRoom() const;

  // While the panel runs, nothing can be added; refresh() after the columns change.
  void setBusy(bool busy);
  void refresh();

  QToolButton* addRunButton() const { return add_run_; }
  QPushButton* addFolderButton() const { return add_folder_; }
  QMenu* runMenu() const;
  // Fills "Add run"'s menu from the runs folder as it is now (done each time the menu opens).
  void fillRunMenu();

 Q_SIGNALS:
  void refused(const QString& error);

 private:
  void onAddFolder();
  QString roomError() const;

  CheckpointPickerOptions options_;
  AddColumn add_;
  ColumnKeys column_keys_;
  QString runs_directory_;
  bool busy_ = false;
  QToolButton* add_run_ = nullptr;
  QPushButton* add_folder_ = nullptr;
};

}  // namespace mixerlab::gui
