// Pure curve arithmetic for the loss plot: smoothing (bias-corrected EMA, moving average) and
// min/max downsampling for drawing. No widgets, no QCustomPlot, so each piece is unit-testable.
#pragma once
#include <QVector>

namespace mixerlab::widgets {

enum class SmoothingKind { None, Ema, MovingAverage };

struct Smoothing {
  SmoothingKind kind = SmoothingKind::None;
  double ema_weight = 0.9;  // b in [0, 0.999], per training step (not per logged point)
  int window_points = 10;   // moving-average window, in points (>= 1)
  bool centred = true;      // moving average centred on each point, else trailing
  bool enabled() const { return kind != SmoothingKind::None; }
};

// Bias-corrected exponential moving average: s_t = b*s_{t-1} + (1-b)*y_t with s_0 = 0, reported as
// s_t / (1 - b^t). The first output equals the first input. Non-finite inputs are passed through
// unchanged and do not disturb the running state. b is clamped to [0, 0.999].
QVector<double> emaSmooth(const QVector<double>& ys, double weight);

// The EMA the plot draws: the weight applies per training step, so points logged every k steps
// decay by b^k between them and the smoothed curve does not depend on the logging interval (a
// per-point EMA with b = 0.9 lags ~90 steps behind when logging every 10). Debiased: the weights
// b^(step_t - step_i) are normalised by their sum, so the first output equals the first input.
QVector<double> emaSmoothOverSteps(const QVector<double>& steps, const QVector<double>& ys, double weight);

// Moving average over w = window_points points: centred (points i - w/2 .. i - w/2 + w - 1) or
// trailing (points i - w + 1 .. i); windows are clipped at the ends of the curve. Only finite values
// are averaged (a window with none gives NaN). O(n) via prefix sums.
QVector<double> movingAverage(const QVector<double>& ys, int window_points, bool centred);

// Applies the chosen smoothing to points at `steps`: the EMA over steps, the moving average over
// points; returns ys unchanged for SmoothingKind::None.
QVector<double> smoothed(const QVector<double>& steps, const QVector<double>& ys, const Smoothing& smoothing);

// Draw-time downsampling that keeps spikes: keys must be sorted ascending. The key range
// [key_lo, key_hi] is cut into `buckets` equal buckets; for each bucket the indices of its minimum
// and maximum value are emitted in index order (once if they coincide). Points outside the range
// contribute only the nearest neighbour on each side, so lines still run to the plot edges.
// Returns ascending indices into keys/values; size <= 2 * buckets + 2. Non-finite values are
// never chosen as a bucket's min or max.
QVector<int> minMaxDownsample(const QVector<double>& keys, const QVector<double>& values, int buckets, double key_lo,
                              double key_hi);
// Same over the full key range.
QVector<int> minMaxDownsample(const QVector<double>& keys, const QVector<double>& values, int buckets);

// A group's curves (each x ascending) summarised for drawing: at every x of any curve, the mean,
// minimum and maximum over the curves whose range covers it (linear interpolation between a
// curve's points), and how many those are. So a group with a run still training (or stopped
// early) is drawn to its longest run, each x from the runs that reached it, never cut back to the
// shortest; `count` says where fewer than all contribute. Empty when every curve is empty.
struct CurveBand {
  QVector<double> x, mean, low, high;
  QVector<int> count;  // curves that cover each x
};
CurveBand curveBand(const QVector<QVector<double>>& xs, const QVector<QVector<double>>& ys);

}  // namespace mixerlab::widgets
