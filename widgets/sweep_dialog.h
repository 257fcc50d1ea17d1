// SweepDialog: the sweep editor opened from the run form ("Sweep…") or Run > New sweep. The user
// picks fields of the base run (any dotted config key, offered with completion) and types each
// one's values; Grid or List mode; the preview lists every run it will create with its name. OK
// gives the planned runs (sweep_plan.h) and whether to queue them. Plain Qt: no core types.
#pragma once
#include <QDialog>
#include <QJsonObject>
#include <QStringList>
#include <QVector>

#include "widgets/sweep_plan.h"

class QTableWidget;
class QComboBox;
class QCheckBox;
class QLabel;
class QListWidget;
class QDialogButtonBox;

namespace mixerlab::widgets {

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

 private:
  void replan();
  QJsonObject base_;
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
