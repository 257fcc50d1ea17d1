// Plain data behind the loss plot: one run's train and eval curves against several x axes.
// No Qt widgets and no torch, so it can be filled from metrics records or made-up data.
#pragma once
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
