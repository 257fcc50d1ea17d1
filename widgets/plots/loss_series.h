// Plain data behind the loss plot: one run's train and eval curves against several x axes.
// No Qt widgets and no torch, so it can be filled from metrics records or made-up data.
#pragma once
#include <QMap>
#include <QString>
#include <QVector>

namespace mixerlab::widgets {

// The x axis the curves are drawn against. Flops compares runs at equal training compute.
enum class LossAxis { Step, Tokens, WallSeconds, Flops };

struct LossPoint {
  // Field order is part of the API: callers aggregate-initialise {step, tokens, wall_s, loss}.
  double step = 0, tokens = 0, wall_s = 0;
  double loss = 0;
  double flops = 0;  // estimated training FLOPs so far (tokens x training FLOPs per token)
  double x(LossAxis axis) const {
    switch (axis) {
      case LossAxis::Step:
        return step;
      case LossAxis::Tokens:
        return tokens;
      case LossAxis::WallSeconds:
        return wall_s;
      case LossAxis::Flops:
        return flops;
    }
    return step;
  }
};

// Human-readable axis name ("step", "tokens", "wall-clock (s)", "FLOPs").
QString lossAxisLabel(LossAxis axis);
// The axis as a plain column name for exported tables: step, tokens, wall_s, flops.
QString lossAxisKey(LossAxis axis);

// The metric a plot panel shows: "loss" (train and eval curves) or a metric key of the run's log
// ("lr", "tokens_per_s", "grad_norm", or any other numeric field a run logs).
inline const QString kLossMetric = QStringLiteral("loss");
// Axis label of a metric key ("learning rate", "tokens/s", "gradient norm", else the key itself).
QString metricLabel(const QString& metric);

struct LossSeries {
  QString run;
  QVector<LossPoint> train, eval;
  // Every other logged metric by key; each point's `loss` field holds the metric's value.
  QMap<QString, QVector<LossPoint>> metrics;
  // Appends points, dropping any at or before a step already present (a resumed run that re-logs
  // steps after its last checkpoint must draw as one line, never overlapping copies).
  void appendTrain(const LossPoint& p);
  void appendEval(const LossPoint& p);
  void appendMetric(const QString& metric, const LossPoint& p);
  // Every point of `points` (train, eval, then each metric, in order) by the rules above: a copy
  // fed the same appends holds the same curves.
  void append(const LossSeries& points);
  void clear();
};

}  // namespace mixerlab::widgets
