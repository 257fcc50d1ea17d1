// Group summaries for the comparison: per group of runs (the plot's grouping, e.g. the seeds of one
// architecture) the number of runs and the mean and sample standard deviation of their final, best
// and equal-budget eval losses, which is what a paper's table reports. Plain data in and out.
#pragma once
#include <QHash>
#include <QString>
#include <QVector>

#include "widgets/tables/run_comparison.h"

namespace mixerlab::widgets {

// Mean and sample standard deviation (n - 1) of the values a group's runs have; runs without the
// value (no eval, or not reaching the budget) are left out and `n` says how many remain. sd is NaN
// below two values, mean is NaN with none.
struct LossSpread {
  double mean = kNoLoss, sd = kNoLoss;
  int n = 0;
};
LossSpread lossSpread(const QVector<double>& values);
// "4.1234 ± 0.0123 (n = 3)", "4.1234 (n = 1)", or "—" with no value.
QString lossSpreadText(const LossSpread& spread);

struct GroupSummary {
  QString group;
  int runs = 0;
  LossSpread final_eval, best_eval, eval_at_budget;
};

// One summary per group, in the order groups first appear among `curves`. A run missing from
// `groups` is its own group, named by the run. `budget_x` NaN leaves eval_at_budget empty.
QVector<GroupSummary> summarizeGroups(const QVector<RunCurve>& curves, const QHash<QString, QString>& groups,
                                      Budget budget, double budget_x);

}  // namespace mixerlab::widgets
