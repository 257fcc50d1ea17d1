// Run comparison: the pure comparison functions and the view (see run_comparison.h).
#include "widgets/tables/run_comparison.h"

#include <QBrush>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QJsonArray>
#include <QJsonDocument>
#include <QLabel>
#include <QTableWidget>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "widgets/tables/group_summary.h"

namespace mixerlab::widgets {

QString budgetLabel(Budget budget) {
  switch (budget) {
    case Budget::Steps:
      return "step";
    case Budget::Tokens:
      return "tokens";
    case Budget::WallSeconds:
      return "wall-clock (s)";
    case Budget::Flops:
      return "FLOPs";
  }
  return "step";
}

double budgetOf(const CurvePoint& point, Budget budget) {
  switch (budget) {
    case Budget::Steps:
      return point.step;
    case Budget::Tokens:
      return point.tokens;
    case Budget::WallSeconds:
      return point.wall_s;
    case Budget::Flops:
      return point.flops;
  }
  return point.step;
}

double finalTrainLoss(const RunCurve& curve) {
  for (auto it = curve.points.crbegin(); it != curve.points.crend(); ++it) {
    if (!std::isnan(it->train_loss)) return it->train_loss;
  }
  return kNoLoss;
}

double finalEvalLoss(const RunCurve& curve) {
  for (auto it = curve.points.crbegin(); it != curve.points.crend(); ++it) {
    if (!std::isnan(it->eval_loss)) return it->eval_loss;
  }
  return kNoLoss;
}

double bestEvalLoss(const RunCurve& curve) {
  double best = kNoLoss;
  for (const CurvePoint& p : curve.points) {
    if (!std::isnan(p.eval_loss) && (std::isnan(best) || p.eval_loss < best)) best = p.eval_loss;
  }
  return best;
}

double valueAtBudget(const RunCurve& curve, Budget budget, double x) {
  const CurvePoint* before = nullptr;
  for (const CurvePoint& p : curve.points) {
    if (std::isnan(p.eval_loss)) continue;
    const double b = budgetOf(p, budget);
    if (b == x) return p.eval_loss;
    if (b < x) {
      before = &p;
      continue;
    }
    if (!before) return kNoLoss;  // x lies before the first eval point
    const double b0 = budgetOf(*before, budget);
    const double t = (x - b0) / (b - b0);
    return before->eval_loss + t * (p.eval_loss - before->eval_loss);
  }
  return kNoLoss;  // beyond the last eval point
}

bool evaluatedAtBudget(const RunCurve& curve, Budget budget, double x) {
  for (const CurvePoint& p : curve.points) {
    if (!std::isnan(p.eval_loss) && budgetOf(p, budget) == x) return true;
  }
  return false;
}

double commonBudget(const QVector<RunCurve>& curves, Budget budget) {
  double common = kNoLoss;
  for (const RunCurve& curve : curves) {
    double last = kNoLoss;
    for (const CurvePoint& p : curve.points) {
      if (!std::isnan(p.eval_loss)) last = std::isnan(last) ? budgetOf(p, budget) : std::max(last, budgetOf(p, budget));
    }
    if (std::isnan(last)) return kNoLoss;
    common = std::isnan(common) ? last : std::min(common, last);
  }
  return common;
}

namespace {
void flattenValuesInto(const QJsonObject& object, const QString& prefix, QMap<QString, QJsonValue>& out) {
  for (auto it = object.begin(); it != object.end(); ++it) {
    const QString key = prefix.isEmpty() ? it.key() : prefix + "." + it.key();
    if (it.value().isObject()) {
      flattenValuesInto(it.value().toObject(), key, out);
    } else {
      out.insert(key, it.value());
    }
  }
}

QString lossText(double loss) { return std::isnan(loss) ? QString("—") : QString::number(loss, 'f', 4); }

QString budgetText(double x, Budget budget) {
  if (std::isnan(x)) return "—";
  if (budget == Budget::WallSeconds) return QString::number(x, 'f', 1) + " s";
  if (budget == Budget::Flops) return QString::number(x, 'g', 3);
  return QString::number(x, 'f', 0);
}
}  // namespace

QMap<QString, QJsonValue> flattenConfig(const QJsonObject& config) {
  QMap<QString, QJsonValue> out;
  flattenValuesInto(config, {}, out);
  return out;
}

QStringList differingConfigKeys(const QVector<RunCurve>& curves) {
  QVector<QMap<QString, QJsonValue>> flat;
  QStringList keys;
  for (const RunCurve& c : curves) {
    flat.push_back(flattenConfig(c.config));
    keys += flat.back().keys();
  }
  keys.removeDuplicates();
  keys.sort();
  QStringList differing;
  for (const QString& key : keys) {
    for (const auto& f : flat) {
      if (!f.contains(key) || f.value(key) != flat.front().value(key) || !flat.front().contains(key)) {
        differing << key;
        break;
      }
    }
  }
  return differing;
}

std::pair<QStringList, QStringList> differingConfigKeys(const QVector<RunCurve>& curves,
                                                        const QStringList& execution_keys) {
  QStringList trained, ran;
  for (const QString& key : differingConfigKeys(curves)) (execution_keys.contains(key) ? ran : trained) << key;
  return {trained, ran};
}

QString configValueText(const QJsonValue& value) {
  switch (value.type()) {
    case QJsonValue::Undefined:
      return "—";
    case QJsonValue::Null:
      return "null";
    case QJsonValue::Bool:
      return value.toBool() ? "true" : "false";
    case QJsonValue::Double:
      return QString::number(value.toDouble(), 'g', 8);
    case QJsonValue::String:
      return value.toString();
    case QJsonValue::Array:
      return QString::fromUtf8(QJsonDocument(value.toArray()).toJson(QJsonDocument::Compact));
    case QJsonValue::Object:
      return QString::fromUtf8(QJsonDocument(value.toObject()).toJson(QJsonDocument::Compact));
  }
  return {};
}

QStringList runsThatSharedTheMachine(const QVector<RunCurve>& curves) {
  QStringList runs;
  for (const RunCurve& c : curves) {
    if (c.other_cpu_cores >= kSharedMachineCores) runs << c.run;
  }
  return runs;
}

QString sharedMachineWarning(const QVector<RunCurve>& curves) {
  QStringList named;
  for (const RunCurve& c : curves) {
    if (c.other_cpu_cores >= kSharedMachineCores)
      named << QString("%1 (%2 cores of other work on average)").arg(c.run).arg(c.other_cpu_cores, 0, 'f', 1);
  }
  if (named.isEmpty()) return {};
  return QString(
             "\u26a0 %1 shared the machine with other processes while training: their wall clock holds "
             "time that was not their own. Compare them at steps, tokens or FLOPs, or train them again alone.")
      .arg(named.join(", "));
}

RunComparisonWidget::RunComparisonWidget(QWidget* parent) : QWidget(parent) {
  auto* layout = new QVBoxLayout(this);
  auto* budget_row = new QHBoxLayout;
  budget_row->addWidget(new QLabel("Compare eval loss at an equal budget of:"));
  budget_box_ = new QComboBox;
  for (Budget b : {Budget::Steps, Budget::Tokens, Budget::WallSeconds, Budget::Flops}) {
    budget_box_->addItem(budgetLabel(b), static_cast<int>(b));
  }
  budget_row->addWidget(budget_box_);
  budget_row->addStretch();
  layout->addLayout(budget_row);
  shared_note_ = new QLabel;
  shared_note_->setObjectName("shared-machine-note");
  shared_note_->setWordWrap(true);
  shared_note_->setStyleSheet("QLabel { background: #fde2a0; padding: 3px; }");  // refresh() shows it when due
  layout->addWidget(shared_note_);
  results_ = new QTableWidget(0, ColumnCount);
  results_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  results_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  layout->addWidget(results_, 1);
  groups_label_ = new QLabel(tr("Groups (mean ± sample sd over each group's runs)"));
  layout->addWidget(groups_label_);
  groups_table_ = new QTableWidget(0, GroupColumnCount);
  groups_table_->setObjectName("group-summary");
  groups_table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  groups_table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  layout->addWidget(groups_table_, 1);
  config_label_ = new QLabel("Config differences");
  layout->addWidget(config_label_);
  config_ = new QTableWidget(0, 0);
  config_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  config_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  layout->addWidget(config_, 1);
  connect(budget_box_, &QComboBox::currentIndexChanged, this,
          [this](int index) { setBudget(static_cast<Budget>(budget_box_->itemData(index).toInt())); });
  refresh();
}

void RunComparisonWidget::setRuns(const QVector<RunCurve>& curves) {
  curves_ = curves;
  refresh();
}

void RunComparisonWidget::setGroups(const QHash<QString, QString>& groups) {
  if (groups == groups_) return;
  groups_ = groups;
  refresh();
}

void RunComparisonWidget::setExecutionKeys(const QStringList& keys) {
  execution_keys_ = keys;
  refresh();
}

void RunComparisonWidget::setBudget(Budget budget) {
  budget_ = budget;
  const int index = budget_box_->findData(static_cast<int>(budget));
  if (index != budget_box_->currentIndex()) budget_box_->setCurrentIndex(index);  // re-enters once, harmless
  refresh();
}

void RunComparisonWidget::refresh() {
  const double common = commonBudget(curves_, budget_);
  results_->setRowCount(curves_.size());
  results_->setHorizontalHeaderLabels({"final train loss", "final eval loss", "best eval loss",
                                       "eval loss at " + budgetLabel(budget_) + " = " + budgetText(common, budget_) +
                                           " (reached by all; \u2248 interpolated)"});
  QStringList run_names;
  for (int r = 0; r < curves_.size(); ++r) {
    const RunCurve& c = curves_[r];
    run_names << c.run;
    const double values[ColumnCount] = {finalTrainLoss(c), finalEvalLoss(c), bestEvalLoss(c),
                                        std::isnan(common) ? kNoLoss : valueAtBudget(c, budget_, common)};
    for (int col = 0; col < ColumnCount; ++col) {
      auto* item = new QTableWidgetItem(lossText(values[col]));
      item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      // A run with no eval exactly at the common budget gets a value interpolated between its two
      // evals around it: say so, so it is not read as a measurement.
      if (col == EvalAtBudget && !std::isnan(values[col]) && !evaluatedAtBudget(c, budget_, common)) {
        item->setText("\u2248 " + item->text());
        item->setToolTip("interpolated linearly between this run's two evals around " + budgetText(common, budget_) +
                         ": it has no eval at exactly that point");
        item->setForeground(QColor(110, 110, 110));
      }
      results_->setItem(r, col, item);
    }
  }
  results_->setVerticalHeaderLabels(run_names);
  const QString shared = budget_ == Budget::WallSeconds ? sharedMachineWarning(curves_) : QString();
  shared_note_->setText(shared);
  shared_note_->setVisible(!shared.isEmpty());
  refreshGroups(common);

  // Config differences: rows = differing keys, columns = runs; a cell that differs from the value
  // most runs share is highlighted (all cells when no value is shared by a majority).
  const auto [trained_keys, ran_keys] = differingConfigKeys(curves_, execution_keys_);
  const QStringList keys = trained_keys + ran_keys;
  config_label_->setText(trained_keys.isEmpty() ? "Config differences: none" : "Config differences");
  config_->clear();
  config_->setRowCount(keys.size());
  config_->setColumnCount(curves_.size());
  config_->setHorizontalHeaderLabels(run_names);
  QStringList row_labels = trained_keys;
  for (const QString& key : ran_keys) row_labels << tr("ran with: %1").arg(key);
  config_->setVerticalHeaderLabels(row_labels);
  QVector<QMap<QString, QJsonValue>> flat;
  for (const RunCurve& c : curves_) flat.push_back(flattenConfig(c.config));
  const QBrush highlight(QColor(255, 226, 150));
  for (int row = 0; row < keys.size(); ++row) {
    QMap<QString, int> counts;
    for (const auto& f : flat) counts[configValueText(f.value(keys[row], QJsonValue(QJsonValue::Undefined)))] += 1;
    int top = 0, top_ties = 0;
    QString majority;
    for (auto it = counts.begin(); it != counts.end(); ++it) {
      if (it.value() > top) {
        top = it.value();
        top_ties = 1;
        majority = it.key();
      } else if (it.value() == top) {
        ++top_ties;
      }
    }
    const bool has_majority = top_ties == 1 && top > 1;
    for (int col = 0; col < flat.size(); ++col) {
      const QString text = configValueText(flat[col].value(keys[row], QJsonValue(QJsonValue::Undefined)));
      auto* item = new QTableWidgetItem(text);
      const bool how_it_ran = row >= trained_keys.size();
      if (how_it_ran) {
        item->setForeground(QColor(110, 110, 110));
      } else if (!has_majority || text != majority) {
        item->setBackground(highlight);
      }
      config_->setItem(row, col, item);
    }
  }
}

void RunComparisonWidget::refreshGroups(double common) {
  const QVector<GroupSummary> summaries = summarizeGroups(curves_, groups_, budget_, common);
  bool any_group = false;
  for (const GroupSummary& g : summaries) any_group = any_group || g.runs >= 2;
  groups_label_->setVisible(any_group);
  groups_table_->setVisible(any_group);
  groups_table_->setRowCount(any_group ? static_cast<int>(summaries.size()) : 0);
  groups_table_->setHorizontalHeaderLabels(
      {tr("runs"), tr("final eval loss"), tr("best eval loss"),
       tr("eval loss at %1 = %2").arg(budgetLabel(budget_), budgetText(common, budget_))});
  if (!any_group) return;
  QStringList names;
  for (int r = 0; r < summaries.size(); ++r) {
    const GroupSummary& g = summaries[r];
    names << g.group;
    const QString cells[GroupColumnCount] = {QString::number(g.runs), lossSpreadText(g.final_eval),
                                             lossSpreadText(g.best_eval), lossSpreadText(g.eval_at_budget)};
    for (int col = 0; col < GroupColumnCount; ++col) {
      auto* item = new QTableWidgetItem(cells[col]);
      item->setTextAlignment(Qt::AlignRight | Qt::AlignVCenter);
      groups_table_->setItem(r, col, item);
    }
  }
  groups_table_->setVerticalHeaderLabels(names);
}

}  // namespace mixerlab::widgets
