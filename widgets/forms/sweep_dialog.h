// SweepDialog: the sweep editor opened from the run form ("Sweep…") or Run > New sweep. The user
// picks fields of the base run (any dotted config key, offered with completion) and types each
// one's values; Grid or List mode; the preview lists every run it will create with its name. OK
// gives the planned runs (sweep_plan.h) and whether to queue them. Plain Qt: no core types.
//
// With a run check (the caller's project validation) each planned run is checked as it is
// previewed: a bad value ("64, abc" for model.d_model) marks its run in the preview, says why under
// it, and keeps Create off. With a create callback, Create runs it and the dialog stays open with
// the error when it fails. draft()/setDraft() let the caller keep what was typed for next time.
#pragma once
#include <functional>

#include <QDialog>
#include <QJsonObject>
#include <QStringList>
#include <QVector>

#include "widgets/forms/sweep_plan.h"

class QTableWidget;
class QComboBox;
class QCheckBox;
class QLabel;
class QListWidget;
class QDialogButtonBox;

namespace mixerlab::widgets {

// What the editor holds: the fields and their values text, the mode and the queue box.
struct SweepDraft {
  QVector<QPair<QString, QString>> axes;
  SweepMode mode = SweepMode::Grid;
  bool queue = true;
};

// The error for one planned run, or empty when it is valid.
using SweepRunCheck = std::function<QString(const QJsonObject& run)>;
// Creates the runs (and queues them when asked): the error, or empty once they exist.
using SweepCreate = std::function<QString(const QVector<QJsonObject>& runs, bool queue)>;

class SweepDialog : public QDialog {
  Q_OBJECT
 public:
  // `known_keys`: the dotted keys offered for completion (the base run's resolved settings).
  SweepDialog(const QJsonObject& base_run, const QStringList& known_keys, QWidget* parent = nullptr);

  // Sets the fields (rows) at once: key -> values text, e.g. {"model.d_model", "256, 512"}.
  void setAxes(const QVector<QPair<QString, QString>>& axes);
  void setMode(SweepMode mode);
  void addAxisRow(const QString& key = {}, const QString& values = {});
  QVector<QJsonObject> plannedRuns() const { return planned_; }
  QString error() const { return error_; }
  bool queueRuns() const;  // "Queue them" is ticked

  void setRunCheck(SweepRunCheck check);
  void setCreate(SweepCreate create);
  SweepDraft draft() const;
  void setDraft(const SweepDraft& draft);

 private:
  void replan();
  void create();
  QJsonObject base_;
  SweepRunCheck run_check_;
  SweepCreate create_;
  QStringList known_keys_;
  QTableWidget* axes_table_;
  QComboBox* mode_box_;
  QCheckBox* queue_box_;
  QListWidget* preview_;
  QLabel* error_label_;
  QDialogButtonBox* buttons_;
  QVector<QJsonObject> planned_;
  QString error_;
};

}  // namespace mixerlab::widgets
