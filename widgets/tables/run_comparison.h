// Run comparison: a table of several runs' final, best and equal-budget eval losses, and a table
// of the config keys whose values differ between them. Plain data in (curves + config JSON), so
// it is filled from run directories by the app and from made-up data by tests.
#pragma once
#include <QHash>
#include <QJsonObject>
#include <QJsonValue>
#include <QMap>
#include <QString>
#include <QStringList>
#include <QVector>
#include <QWidget>
#include <limits>

class QComboBox;
class QLabel;
class QTableWidget;

namespace mixerlab::widgets {

constexpr double kNoLoss = std::numeric_limits<double>::quiet_NaN();

struct CurvePoint {
  double step = 0, tokens = 0, wall_s = 0, flops = 0;
  double train_loss = kNoLoss;  // NaN when this record has no train loss
  double eval_loss = kNoLoss;   // NaN when this record has no eval loss
};

struct RunCurve {
  QString run;
  QVector<CurvePoint> points;  // in step order
  QJsonObject config;          // the run's resolved config (run.json's "run" object, say)
  // Mean over the run's log records of the CPU other processes used while it trained, in cores
  // (the metric other_cpu_cores); NaN when the run did not log it.
  double other_cpu_cores = std::numeric_limits<double>::quiet_NaN();
};

// Other work at or above this many cores on average makes a run's wall clock not its own.
constexpr double kSharedMachineCores = 0.5;
// The runs that shared the machine (other_cpu_cores >= kSharedMachineCores), in the given order.
QStringList runsThatSharedTheMachine(const QVector<RunCurve>& curves);
// The warning shown at an equal wall-clock budget when some runs shared the machine; empty if none.
QString sharedMachineWarning(const QVector<RunCurve>& curves);

// The budget runs are compared at: optimizer steps, training tokens, wall-clock seconds, FLOPs.
enum class Budget { Steps, Tokens, WallSeconds, Flops };
QString budgetLabel(Budget budget);  // "step", "tokens", "wall-clock (s)", "FLOPs"
double budgetOf(const CurvePoint& point, Budget budget);

double finalTrainLoss(const RunCurve& curve);  // the last point with a train loss; NaN if none
double finalEvalLoss(const RunCurve& curve);
double bestEvalLoss(const RunCurve& curve);
// Eval loss at budget x, linearly interpolated between the two eval points around x; NaN when x
// lies outside the run's evaluated range or the run has no eval point.
double valueAtBudget(const RunCurve& curve, Budget budget, double x);
// True when the run has an eval point exactly at budget x (valueAtBudget measured, not interpolated).
bool evaluatedAtBudget(const RunCurve& curve, Budget budget, double x);
// The largest budget every run reached at an eval point (the min over runs of their last eval
// point's budget), so valueAtBudget() is defined for all of them there; NaN if a run has no eval.
double commonBudget(const QVector<RunCurve>& curves, Budget budget);

// {"a": {"b": 1}} -> {"a.b": 1}; arrays are leaves.
QMap<QString, QJsonValue> flattenConfig(const QJsonObject& config);
// Dotted keys whose values differ between the runs (a key missing from some run differs), sorted.
QStringList differingConfigKeys(const QVector<RunCurve>& curves);
// The same split in two: the differing keys of what the runs train, and the differing keys among
// `execution_keys` (how they ran: device, threads), each sorted.
std::pair<QStringList, QStringList> differingConfigKeys(const QVector<RunCurve>& curves,
                                                        const QStringList& execution_keys);
QString configValueText(const QJsonValue& value);  // "—" for a missing key

class RunComparisonWidget : public QWidget {
  Q_OBJECT
 public:
  explicit RunComparisonWidget(QWidget* parent = nullptr);
  void setRuns(const QVector<RunCurve>& curves);
  // Keys of how a run ran (the core's executionSettingKeys): never config differences; listed
  // after them as "ran with: <key>", not highlighted.
  void setExecutionKeys(const QStringList& keys);
  // The plot's groups (run -> group label; empty: no grouping). While any group holds two or more
  // runs, a summary table lists each group's runs and mean ± sd (summarizeGroups).
  void setGroups(const QHash<QString, QString>& groups);
  QTableWidget* groupsTable() const { return groups_table_; }
  QLabel* sharedMachineNote() const { return shared_note_; }  // shown at a wall-clock budget
  enum GroupColumn { GroupRuns, GroupFinalEval, GroupBestEval, GroupEvalAtBudget, GroupColumnCount };
  void setBudget(Budget budget);
  Budget budget() const { return budget_; }
  QTableWidget* resultsTable() const { return results_; }
  QTableWidget* configTable() const { return config_; }
  // The results table's columns.
  enum Column { FinalTrain, FinalEval, BestEval, EvalAtBudget, ColumnCount };

 private:
  void refresh();
  void refreshGroups(double common_budget);

  QVector<RunCurve> curves_;
  QStringList execution_keys_;
  QHash<QString, QString> groups_;
  QLabel* groups_label_ = nullptr;
  QLabel* shared_note_ = nullptr;
  QTableWidget* groups_table_ = nullptr;
  Budget budget_ = Budget::Steps;
  QComboBox* budget_box_ = nullptr;
  QTableWidget* results_ = nullptr;
  QTableWidget* config_ = nullptr;
  QLabel* config_label_ = nullptr;
};

}  // namespace mixerlab::widgets
