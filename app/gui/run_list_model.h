// RunListModel: the one owner of what the GUI knows per run. Rows are the project's runs plus any
// run directory the monitor reports (forks, say). Each row holds the table's columns (status, step,
// tokens, best eval loss, throughput, elapsed time, device), whether the run is overlaid on the plot
// and the comparison (the run column's checkbox), its loss series and its run config JSON. It is
// updated from RunSnapshots; the runs table, the loss plot and the comparison dock all read it.
#pragma once
#include <QAbstractTableModel>
#include <QByteArray>
#include <QString>
#include <QStringList>
#include <QVector>

#include "app/gui/project_document.h"
#include "app/gui/run_snapshot.h"
#include "widgets/loss_series.h"
#include "widgets/run_comparison.h"

namespace mixerlab::gui {

class RunListModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column { Run, Architecture, Status, Step, Tokens, BestEval, TokensPerS, Elapsed, Device, ColumnCount };

  explicit RunListModel(QObject* parent = nullptr);

  int rowCount(const QModelIndex& parent = {}) const override;
  int columnCount(const QModelIndex& parent = {}) const override;
  QVariant data(const QModelIndex& index, int role = Qt::DisplayRole) const override;
  QVariant headerData(int section, Qt::Orientation orientation, int role = Qt::DisplayRole) const override;
  Qt::ItemFlags flags(const QModelIndex& index) const override;
  // The run column's check state toggles the overlay.
  bool setData(const QModelIndex& index, const QVariant& value, int role = Qt::EditRole) override;

  // Replaces every row by the project's runs: not started, overlaid, no points.
  void setProjectRuns(const QVector<ProjectRunSummary>& runs);
  // After an edit of the project: adds its new runs, updates architectures, drops rows of runs it
  // no longer has unless the monitor has reported their run directory, and orders the rows as a
  // fresh open would (the project's runs in project order, then other run directories).
  void syncProjectRuns(const QVector<ProjectRunSummary>& runs);
  // Folds one monitor snapshot in (adding a row for a run directory not seen before).
  void applySnapshot(const RunSnapshot& snapshot);
  // A launch the CLI refused (LaunchWatcher): the row reads "failed to start: <the CLI's message>"
  // until the run writes a status of its own.
  void setLaunchError(const QString& run, const QString& error);

  int rowOf(const QString& run) const;  // -1 if there is none
  QString runAt(int row) const;
  QStringList runNames() const;
  // pending, running, finished, failed or stopped; empty until the monitor reports the run.
  QString state(const QString& run) const;
  bool isOverlaid(const QString& run) const;  // true for an unknown run
  void setOverlaid(const QString& run, bool overlaid);
  // The run's loss curves; nullptr until the monitor has reported the run.
  const widgets::LossSeries* series(const QString& run) const;
  QByteArray runConfigJson(const QString& run) const;
  // The overlaid runs that have points, by run name, for the comparison dock.
  QVector<widgets::RunCurve> overlaidCurves() const;

 Q_SIGNALS:
  void seriesChanged(const QString& run);  // points arrived, or the series restarted (resume)
  void overlayChanged(const QString& run, bool overlaid);

 private:
  struct RunRow {
    QString run, arch, state, reason, device;
    qint64 step = 0, tokens = 0;
    double wall_s = 0, tokens_per_s = 0;
    double best_eval_loss = -1;  // < 0: none yet
    bool reported = false;       // the monitor has sent a snapshot
    bool in_project = true;      // false: a run directory the project does not name (a fork)
    bool overlaid = true;
    bool launch_failed = false;  // state/reason hold a launch error, kept over "pending" snapshots
    widgets::LossSeries series;
    QByteArray config_json;
  };
  int ensureRow(const QString& run, const QString& arch, bool in_project);
  void orderLikeProject(const QStringList& project_runs);
  QVariant displayText(const RunRow& row, int column) const;

  QVector<RunRow> rows_;
};

}  // namespace mixerlab::gui
