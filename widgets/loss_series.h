// Plain data behind the loss plot: one run's train and eval curves against several x axes.
// No Qt widgets and no torch, so it can be filled from metrics records or made-up data.
#pragma once
#include <QString>
#include <QVector>

namespace mixerlab::widgets {

enum class LossAxis { Step, Tokens, WallSeconds };

struct LossPoint {
  double step = 0, tokens = 0, wall_s = 0;
  double loss = 0;
  double x(LossAxis axis) const { return axis == LossAxis::Step ? step : axis == LossAxis::Tokens ? tokens : wall_s; }
};

struct LossSeries {
  QString run;
  QVector<LossPoint> train, eval;
  // Appends points, dropping any at or before a step already present (a resumed run that re-logs
  // steps after its last checkpoint must draw as one line, never overlapping copies).
  void appendTrain(const LossPoint& p);
  void appendEval(const LossPoint& p);
  void clear();
};

}  // namespace mixerlab::widgets
