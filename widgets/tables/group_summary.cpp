// Per-group summaries of a comparison (see group_summary.h).
#include "widgets/tables/group_summary.h"

#include <QStringList>
#include <cmath>

namespace mixerlab::widgets {

LossSpread lossSpread(const QVector<double>& values) {
  LossSpread out;
  double sum = 0;
  for (double v : values) {
    if (std::isnan(v)) continue;
    sum += v;
    ++out.n;
  }
  if (out.n == 0) return out;
  out.mean = sum / out.n;
  if (out.n < 2) return out;
  double squares = 0;
  for (double v : values) {
    if (!std::isnan(v)) squares += (v - out.mean) * (v - out.mean);
  }
  out.sd = std::sqrt(squares / (out.n - 1));
  return out;
}

QString lossSpreadText(const LossSpread& spread) {
  if (spread.n == 0) return QStringLiteral("—");
  const QString mean = QString::number(spread.mean, 'f', 4);
  const QString count = QStringLiteral(" (n = %1)").arg(spread.n);
  if (std::isnan(spread.sd)) return mean + count;
  return mean + QStringLiteral(" ± ") + QString::number(spread.sd, 'f', 4) + count;
}

QVector<GroupSummary> summarizeGroups(const QVector<RunCurve>& curves, const QHash<QString, QString>& groups,
                                      Budget budget, double budget_x) {
  QStringList order;
  QHash<QString, QVector<const RunCurve*>> members;
  for (const RunCurve& c : curves) {
    const QString group = groups.value(c.run, c.run);
    if (!members.contains(group)) order << group;
    members[group].push_back(&c);
  }
  QVector<GroupSummary> out;
  for (const QString& group : order) {
    QVector<double> finals, bests, at_budget;
    for (const RunCurve* c : members[group]) {
      finals << finalEvalLoss(*c);
      bests << bestEvalLoss(*c);
      at_budget << (std::isnan(budget_x) ? kNoLoss : valueAtBudget(*c, budget, budget_x));
    }
    out.push_back(
        {group, static_cast<int>(members[group].size()), lossSpread(finals), lossSpread(bests), lossSpread(at_budget)});
  }
  return out;
}

}  // namespace mixerlab::widgets
