// RunListModel: the one owner of what the GUI knows per run. Rows are the project's runs plus any
// run directory the monitor reports (forks, say). Each row holds the table's columns (status,
// progress, step, tokens, best eval loss, throughput, elapsed time, ETA, device, tags, notes, and
// the hyperparameter columns the user picked), whether the run is overlaid on the plot and the
// comparison (the run column's checkbox), its metric series and its run config JSON. It is updated
// from RunSnapshots; the runs table, the plot and the comparison dock all read it. Tags and notes
// are edited in the table and reported through annotationEdited (the main window stores them).
#pragma once
#include <QAbstractTableModel>
#include <QByteArray>
#include <QHash>
#include <QString>
#include <QStringList>
#include <QVariantMap>
#include <QVector>

#include "app/gui/project/project_document.h"
#include "app/gui/runs/column_number_format.h"
#include "app/gui/runs/run_snapshot.h"
#include "widgets/plots/loss_series.h"
#include "widgets/tables/run_comparison.h"

namespace mixerlab::gui {

class RunListModel : public QAbstractTableModel {
  Q_OBJECT
 public:
  enum Column {
    Run,
    Architecture,
    Status,
    Progress,
    Step,
    Tokens,
    BestEval,
    TokensPerS,
    Elapsed,
    Eta,
    Device,
    Tags,
    Notes,
    ColumnCount  // the fixed columns; hyperparameter columns follow
  };
  // What the table sorts by: numbers for numeric columns (so 9 < 10), text otherwise.
  static constexpr int SortRole = Qt::UserRole + 1;

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
  // A launch the CLI refused (the run monitor saw it end first): the row reads "failed to start: <the CLI's message>"
  // until the run writes a status of its own.
  void setLaunchError(const QString& run, const QString& error);

  // A run's settings as flattened dotted keys ("model.d_model" -> 256): the project's resolved
  // entry until the run has written run.json, whose settings win from then on.
  void setProjectSettings(const QString& run, const QVariantMap& flattened);
  QVariantMap settings(const QString& run) const;
  // Extra columns showing these settings keys, after the fixed columns.
  void setHyperparameterColumns(const QStringList& keys);
  QStringList hyperparameterColumns() const { return hyper_columns_; }
  QStringList availableHyperparameters() const;  // every settings key of every row, sorted
  void setAnnotation(const QString& run, const QStringList& tags, const QString& notes);
  QStringList tags(const QString& run) const;
  QString notes(const QString& run) const;

  // The run's folder was archived or deleted: a project run goes back to "not started" (tags and
  // notes kept), any other row goes.
  void forgetRunFolder(const QString& run);

  int rowOf(const QString& run) const;  // -1 if there is none
  QString runAt(int row) const;
  QStringList runNames() const;
  // pending, running, finished, failed or stopped; empty until the monitor reports the run.
  // The run's state from its status.json; nullopt before it reported one (never started, or its
  // launch failed: launchFailed).
  std::optional<RunState> state(const QString& run) const;
  bool launchFailed(const QString& run) const;
  // Its status says the loss diverged (the trainer's warning, or train.stop_on_divergence's stop):
  // the Status cell is coloured.
  bool diverged(const QString& run) const;
  bool isOverlaid(const QString& run) const;  // true for an unknown run
  void setOverlaid(const QString& run, bool overlaid);
  // The run's loss curves; nullptr until the monitor has reported the run.
  const widgets::LossSeries* series(const QString& run) const;
  QByteArray runConfigJson(const QString& run) const;
  // The overlaid runs that have points, by run name, for the comparison dock.
  QVector<widgets::RunCurve> overlaidCurves() const;

 Q_SIGNALS:
  void seriesChanged(const QString& run);  // the series restarted (resume) or was cleared: redraw it whole
  // New points of a run, already appended to its series: a plot holding the run appends the same.
  void pointsAppended(const mixerlab::widgets::LossSeries& points);
  void overlayChanged(const QString& run, bool overlaid);
  void annotationEdited(const QString& run);  // tags or notes were edited in the table

 private:
  struct RunRow {
    QString run, arch, reason, device;
    std::optional<RunState> state;  // nullopt: not started (or its launch failed)
    qint64 step = 0, tokens = 0;
    double wall_s = 0, tokens_per_s = 0;
    double best_eval_loss = -1;  // < 0: none yet
    bool reported = false;       // the monitor has sent a snapshot
    bool in_project = true;      // false: a run directory the project does not name (a fork)
    bool overlaid = true;
    bool launch_failed = false;  // reason holds a launch error, kept over pending snapshots
    widgets::LossSeries series;
    QByteArray config_json;
    QVariantMap project_settings, run_settings;  // flattened; run_settings from run.json
    QStringList tags;
    QString notes;
  };
  const QVariantMap& settingsOf(const RunRow& row) const;
  qint64 totalSteps(const RunRow& row) const;  // train.max_steps, 0 when unknown
  QVariant sortValue(const RunRow& row, int column) const;
  static bool divergedRow(const RunRow& row);
  int ensureRow(const QString& run, const QString& arch, bool in_project);
  void orderLikeProject(const QStringList& project_runs);
  QVariant displayText(const RunRow& row, int column) const;
  const ColumnNumberFormat& numberFormat(const QString& key) const;

  QVector<RunRow> rows_;
  QStringList hyper_columns_;
  mutable QHash<QString, ColumnNumberFormat> number_formats_;  // settings key -> its column's format
};

}  // namespace mixerlab::gui
