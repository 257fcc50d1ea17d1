// Loss series bookkeeping (see loss_series.h).
#include "widgets/plots/loss_series.h"

namespace mixerlab::widgets {

namespace {
void appendMonotonic(QVector<LossPoint>& points, const LossPoint& p) {
  while (!points.isEmpty() && points.back().step >= p.step) points.pop_back();
  points.push_back(p);
}
}  // namespace

namespace {
// Each x axis: its label on a plot and its column name in an exported table.
struct AxisNames {
  LossAxis axis;
  const char* label;
  const char* key;
};
constexpr AxisNames kAxisNames[] = {{LossAxis::Step, "step", "step"},
                                    {LossAxis::Tokens, "tokens", "tokens"},
                                    {LossAxis::WallSeconds, "wall-clock (s)", "wall_s"},
                                    {LossAxis::Flops, "FLOPs", "flops"}};
const AxisNames& namesOf(LossAxis axis) {
  for (const AxisNames& names : kAxisNames) {
    if (names.axis == axis) return names;
  }
  return kAxisNames[0];
}
}  // namespace

QString lossAxisLabel(LossAxis axis) { return QString::fromLatin1(namesOf(axis).label); }
QString lossAxisKey(LossAxis axis) { return QString::fromLatin1(namesOf(axis).key); }

void LossSeries::appendTrain(const LossPoint& p) { appendMonotonic(train, p); }
void LossSeries::appendEval(const LossPoint& p) { appendMonotonic(eval, p); }
void LossSeries::appendMetric(const QString& metric, const LossPoint& p) { appendMonotonic(metrics[metric], p); }
void LossSeries::append(const LossSeries& points) {
  for (const LossPoint& p : points.train) appendTrain(p);
  for (const LossPoint& p : points.eval) appendEval(p);
  for (auto it = points.metrics.cbegin(); it != points.metrics.cend(); ++it) {
    for (const LossPoint& p : it.value()) appendMetric(it.key(), p);
  }
}

void LossSeries::clear() {
  train.clear();
  eval.clear();
  metrics.clear();
}

QString metricLabel(const QString& metric) {
  if (metric == kLossMetric) return QStringLiteral("cross-entropy loss");
  if (metric == "lr") return QStringLiteral("learning rate");
  if (metric == "tokens_per_s") return QStringLiteral("tokens/s");
  if (metric == "grad_norm") return QStringLiteral("gradient norm");
  return metric;
}

}  // namespace mixerlab::widgets
