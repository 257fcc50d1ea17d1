// The MixerLab main window: a project's runs (status, step, tokens, best eval loss, throughput),
// a live loss plot of all runs, the selected run's log, and actions to train, resume and stop runs.
// Runs are CLI child processes, started, watched and queued by a RunControl (launch/run_control.h),
// whose run monitor feeds a RunListModel, which the runs table, the plot and the comparison dock read. The project is
// held once by a ProjectDocument, whose edits are undoable (Edit menu). The central area has five tabs: the loss
// curves, the side-by-side generation panel (Run > Generate from run), the representation-inversion inspector (Run >
// Inspect representations), the summary-to-story retrieval panel (Run > Retrieve stories with run; these three are also
// in the run list's context menu) and Scaling (loss vs compute: Pareto frontiers and power-law fits). Run > Reproduce
// the paper runs `mixerlab reproduce`.
#pragma once
#include <QHash>
#include <QJsonObject>
#include <QMainWindow>
#include <QSet>
#include <memory>

#include "app/gui/common/column_request.h"
#include "app/gui/runs/run_snapshot.h"
#include "widgets/forms/sweep_dialog.h"

class QTableView;
class QLineEdit;
class QPlainTextEdit;
class QLabel;
class QMenu;
class QComboBox;
class QTabWidget;

namespace mixerlab::widgets {
class ComputeFrontierView;
class LossPlotWidget;
class PlotPanels;
class RunComparisonWidget;
}  // namespace mixerlab::widgets

namespace mixerlab::gui {

class LaunchTarget;
struct LaunchedProcess;
class RunControl;
class LaunchTargetSelector;
class RunQueue;
class QueuePanel;
class EventLoopLatency;
class ProjectDocument;
class RunListModel;
class RunTableFilter;
class GenerationPanel;
class InversionPanel;
class RetrievalPanel;
class ReproduceDialog;
class CheckpointPicker;
class RunSetupDialog;

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;

  // Loads a project file; returns an error message (also shown in the status bar), empty on success.
  QString openProject(const QString& project_file);
  QString runsDirectory() const;
  widgets::LossPlotWidget* lossPlot() const { return plot_; }  // the first panel (the loss)
  widgets::PlotPanels* plotPanels() const { return panels_; }
  // The fork form: the run form prefilled from `run` (a project run, or a fork's
  // settings as it ran) under `new_name`, with the checkpoint to start from (`checkpoint` first
  // shown; empty: the latest). On OK the new run joins the project under its own name and trains
  // from that checkpoint on the launch target. Returns the error, "cancelled", or empty once started.
  QString forkInForm(const QString& run, const QString& checkpoint, const QString& new_name);
  // That form, not yet shown (the caller owns it); null and *error when `run` has no settings.
  RunSetupDialog* makeForkForm(const QString& run, const QString& checkpoint, const QString& new_name, QString* error);
  QTableView* runTable() const { return table_; }
  RunListModel* runModel() const { return runs_; }
  ProjectDocument* project() const { return document_; }
  // The run's state as the table words it: "running", "failed to start", "" when never started.
  QString runState(const QString& run) const;
  // Starts the run (a fork resumes as its project run); returns an error when it cannot start at all.
  // A start the CLI refuses is reported a moment later: the run list shows "failed to start: <why>".
  QString launch(const QString& run, bool resume);
  QString stop(const QString& run);
  // Moves the run's folder to <project>/archive/ (files kept) or deletes it; refused while it
  // trains. The menu actions ask for confirmation first. Returns the error, empty on success.
  QString archiveRun(const QString& run);
  // Adds the sweep's runs to the project as one undoable edit (all or none) and queues them when
  // `queue` is set. Returns the error, empty on success.
  QString createSweep(const QVector<QJsonObject>& runs, bool queue);
  // The sweep editor over `base_run` (a project run or the run form's): each planned run checked
  // against the project as it is previewed, Create adding and queueing them, what was typed kept
  // for the next sweep from the same run when it is cancelled. Empty once created, else why not.
  QString sweepFrom(const QJsonObject& base_run, const QStringList& known_keys);
  QString deleteRun(const QString& run);
  RunTableFilter* runTableFilter() const { return table_filter_; }
  QLineEdit* runFilterEdit() const { return filter_edit_; }
  RunQueue* queue() const;
  QueuePanel* queuePanel() const { return queue_panel_; }
  GenerationPanel* generationPanel() const { return generation_; }
  // Shows the Generate tab and adds a column per checkpoint (run or checkpoint folders, or run
  // names of the project); returns the first error message, empty on success.
  QString showGeneration(const QStringList& checkpoints = {});
  InversionPanel* inversionPanel() const { return inversion_; }
  // Shows the Inspect tab and adds a model per entry: a run name of the project, a run or
  // checkpoint folder, or either prefixed with "untrained:" for its untrained twin. Returns the
  // first error message, empty on success.
  QString showInspection(const QStringList& models = {});
  RetrievalPanel* retrievalPanel() const { return retrieval_; }
  // Shows the Retrieve tab and adds a column per entry (as showInspection: run name or folder,
  // "untrained:" for the twin, or a retrieval dataset folder). Returns the first error, empty on success.
  QString showRetrieval(const QStringList& models = {});
  // How the three calls above read an entry (column_request.h): a run name of the open project
  // becomes its run folder, "untrained:" asks for the twin, anything else is a folder.
  ColumnRequest resolveColumnEntry(const QString& entry) const;
  double eventLoopMaxLatencyMs() const;
  double eventLoopP99LatencyMs() const;
  // Off for a scripted start: closing then leaves the saved window geometry and docks as they were.
  void setKeepsWindowLayout(bool keeps) { keeps_window_layout_ = keeps; }
  void showStatusNote(const QString& note);  // a status bar message for a while (15 s)

 protected:
  void closeEvent(QCloseEvent* event) override;

 private Q_SLOTS:
  void onRunUpdated(const mixerlab::gui::RunSnapshot& snapshot);
  void onOpenProject();
  void onNewProject();       // a corpus and a folder, then the new project's settings
  void onProjectSettings();  // File > Project settings
  void onPreparedData();     // the prepared-data dialog of the open project
  void onNewRun();
  void onDuplicateRun();
  void onEditRun();
  void onRemoveRun();
  void onCompareConfigs();
  void onQueueSelected();
  void onForkSelected();
  void refreshComparison();
  // The open project's saved run and group colours back into the plots' registry, which saves
  // every new assignment (once per event-loop turn).
  void restoreSeriesColours();
  void onOverlayToggled(const QString& run, bool overlaid);
  void onSeriesChanged(const QString& run);
  void onPointsAppended(const widgets::LossSeries& points);
  void regroupOnFirstReport(const QString& run);
  // The plots (panels, comparison, Scaling) draw a run when its checkbox is on and the table's
  // filter shows it.
  bool plotShows(const QString& run) const;
  void showOrHideInPlots(const QString& run);
  void onProjectEdited();
  void onTrainSelected();
  void onResumeSelected();
  void onStopSelected();
  void showSelectedLog();
  void onGenerateSelected();
  void onInspectSelected();
  void onRetrieveSelected();
  void onReproducePaper();  // Run > Reproduce the paper
  void refreshFrontier();   // the Scaling tab, from the overlaid runs
  void restorePlotView();   // the loss plot's axis, log scales and smoothing from the last session
  void savePlotView();
  void onLaunchFailed(const QString& run, const QString& error);  // in the run list and the status bar
  void onRunContextMenu(const QPoint& pos);
  void onForkFromPlot(const QString& run, double step);
  void onArchiveSelected();
  void onNewSweep();
  void onDeleteSelected();
  void onRunHeaderMenu(const QPoint& pos);
  void saveAnnotations(const QString& run);

 private:
  void buildUi();
  void restoreWindowLayout();     // the saved geometry and docks, cut to the screen this window is on
  void buildRunsDock();           // the filter line and the sortable runs table
  void refreshProjectSettings();  // the project runs' resolved settings, for hyperparameter columns
  void loadAnnotations();
  void forgetRunFolder(const QString& run);  // after archive or delete
  void buildMenusAndToolbar();
  void rebuildRecentMenu();
  // Opens the run setup dialog; on OK adds the run (or replaces `replace_name`) through the document.
  QString editRunInDialog(const QJsonObject& initial, const QString& replace_name);
  // Opens the project-settings dialog; on OK writes them through the document. Error, "cancelled" or empty.
  QString editProjectSettingsInDialog();
  QString selectedRun() const;
  static QStringList executionKeys();  // the core's executionSettingKeys, for the comparison widgets
  // Empty for a run of the project; else why Edit/Remove do not apply (a fork's run folder).
  QString notAProjectRun(const QString& run) const;
  QStringList varyingSettings() const;  // settings keys with two or more values among the runs
  // A run's settings for a new run made from it (duplicate, fork): a project run as written, a
  // fork's run.json less what its project run gives; {} when neither is known.
  QJsonObject settingsToCopy(const QString& run) const;
  // Shows `tab` and adds a column per entry through its picker; returns the first error (also
  // shown in the status bar), empty when every entry became a column.
  QString addColumnEntries(QWidget* tab, CheckpointPicker* picker, const QStringList& entries);

  ProjectDocument* document_ = nullptr;
  RunListModel* runs_ = nullptr;
  QTableView* table_ = nullptr;
  RunTableFilter* table_filter_ = nullptr;
  QLineEdit* filter_edit_ = nullptr;
  widgets::PlotPanels* panels_ = nullptr;
  widgets::LossPlotWidget* plot_ = nullptr;
  QTabWidget* tabs_ = nullptr;
  GenerationPanel* generation_ = nullptr;
  InversionPanel* inversion_ = nullptr;
  RetrievalPanel* retrieval_ = nullptr;
  ReproduceDialog* reproduce_dialog_ = nullptr;
  widgets::ComputeFrontierView* frontier_ = nullptr;
  QMenu* run_menu_ = nullptr;
  QPlainTextEdit* log_view_ = nullptr;
  QLabel* project_label_ = nullptr;
  QMenu* recent_menu_ = nullptr;
  LaunchTargetSelector* target_selector_ = nullptr;
  QueuePanel* queue_panel_ = nullptr;
  EventLoopLatency* latency_ = nullptr;
  widgets::RunComparisonWidget* comparison_ = nullptr;
  bool colours_save_pending_ = false;  // a save of the plot colours is queued
  RunControl* control_ = nullptr;      // the launch target, the run monitor and the queue of the open project
  QHash<QString, widgets::SweepDraft> sweep_drafts_;  // base run name -> the cancelled editor's fields
  QSet<QString> grouped_runs_;                        // runs whose settings the "Mean by" list has seen
  bool keeps_window_layout_ = true;
};

}  // namespace mixerlab::gui
