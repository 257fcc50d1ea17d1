// Curve smoothing and min/max downsampling (see curve_processing.h).
#include "widgets/plots/curve_processing.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace mixerlab::widgets {

QVector<double> emaSmooth(const QVector<double>& ys, double weight) {
  const double b = std::clamp(weight, 0.0, 0.999);
  QVector<double> out(ys.size());
  double state = 0, b_pow_t = 1;  // s_t and b^t
  for (int i = 0; i < ys.size(); ++i) {
    const double y = ys[i];
    if (!std::isfinite(y)) {
      out[i] = y;
      continue;
    }
    state = b * state + (1 - b) * y;
    b_pow_t *= b;
    out[i] = state / (1 - b_pow_t);
  }
  return out;
}

QVector<double> emaSmoothOverSteps(const QVector<double>& steps, const QVector<double>& ys, double weight) {
  const double b = std::clamp(weight, 0.0, 0.999);
  QVector<double> out(ys.size());
  // s = sum_i b^(step_t - step_i) y_i / sum_i b^(step_t - step_i): the debiased EMA with the decay
  // applied per training step, so uneven or sparse logging gives the same smoothed curve.
  double numerator = 0, denominator = 0, last_step = 0;
  bool started = false;
  for (int i = 0; i < ys.size(); ++i) {
    const double y = ys[i];
    if (!std::isfinite(y)) {
      out[i] = y;
      continue;
    }
    const double step = i < steps.size() ? steps[i] : static_cast<double>(i);
    const double decay = started ? std::pow(b, std::max(0.0, step - last_step)) : 0.0;
    numerator = decay * numerator + y;
    denominator = decay * denominator + 1;
    last_step = step;
    started = true;
    out[i] = numerator / denominator;
  }
  return out;
}

QVector<double> movingAverage(const QVector<double>& ys, int window_points, bool centred) {
  const int n = ys.size();
  const int w = std::max(1, window_points);
  QVector<double> sum(n + 1, 0.0);  // prefix sums over finite values
  QVector<int> count(n + 1, 0);
  for (int i = 0; i < n; ++i) {
    const bool ok = std::isfinite(ys[i]);
    sum[i + 1] = sum[i] + (ok ? ys[i] : 0.0);
    count[i + 1] = count[i] + (ok ? 1 : 0);
  }
  QVector<double> out(n);
  for (int i = 0; i < n; ++i) {
    const int lo = std::max(0, centred ? i - w / 2 : i - w + 1);
    const int hi = std::min(n - 1, centred ? i - w / 2 + w - 1 : i);
    const int c = count[hi + 1] - count[lo];
    out[i] = c > 0 ? (sum[hi + 1] - sum[lo]) / c : std::numeric_limits<double>::quiet_NaN();
  }
  return out;
}

QVector<double> smoothed(const QVector<double>& steps, const QVector<double>& ys, const Smoothing& smoothing) {
  switch (smoothing.kind) {
    case SmoothingKind::None:
      return ys;
    case SmoothingKind::Ema:
      return emaSmoothOverSteps(steps, ys, smoothing.ema_weight);
    case SmoothingKind::MovingAverage:
      return movingAverage(ys, smoothing.window_points, smoothing.centred);
  }
  return ys;
}

QVector<int> minMaxDownsample(const QVector<double>& keys, const QVector<double>& values, int buckets, double key_lo,
                              double key_hi) {
  QVector<int> out;
  const int n = std::min(keys.size(), values.size());
  if (n == 0) return out;
  buckets = std::max(1, buckets);
  const int first = int(std::lower_bound(keys.begin(), keys.begin() + n, key_lo) - keys.begin());
  const int end = int(std::upper_bound(keys.begin(), keys.begin() + n, key_hi) - keys.begin());
  if (first > 0) out.push_back(first - 1);  // neighbour left of the range
  const double span = key_hi - key_lo;
  int i = first;
  while (i < end) {
    const int bucket = span > 0 ? std::min(buckets - 1, int((keys[i] - key_lo) / span * buckets)) : 0;
    int lo_index = -1, hi_index = -1;
    for (; i < end; ++i) {
      const int b = span > 0 ? std::min(buckets - 1, int((keys[i] - key_lo) / span * buckets)) : 0;
      if (b != bucket) break;
      if (!std::isfinite(values[i])) continue;
      if (lo_index < 0 || values[i] < values[lo_index]) lo_index = i;
      if (hi_index < 0 || values[i] > values[hi_index]) hi_index = i;
    }
    if (lo_index < 0) continue;  // a bucket of non-finite values only
    out.push_back(std::min(lo_index, hi_index));
    if (lo_index != hi_index) out.push_back(std::max(lo_index, hi_index));
  }
  if (end < n) out.push_back(end);  // neighbour right of the range
  return out;
}

QVector<int> minMaxDownsample(const QVector<double>& keys, const QVector<double>& values, int buckets) {
  if (keys.isEmpty()) return {};
  return minMaxDownsample(keys, values, buckets, keys.front(), keys.back());
}

namespace {
// ys interpolated at x on a curve (xs ascending, x inside [xs.front(), xs.back()]).
double valueAt(const QVector<double>& xs, const QVector<double>& ys, double x) {
  const auto upper = std::lower_bound(xs.begin(), xs.end(), x);
  const int i = static_cast<int>(upper - xs.begin());
  if (i < xs.size() && xs[i] == x) return ys[i];
  if (i == 0) return ys.front();
  if (i >= xs.size()) return ys.back();
  const double t = (x - xs[i - 1]) / (xs[i] - xs[i - 1]);
  return ys[i - 1] + t * (ys[i] - ys[i - 1]);
}
}  // namespace

CurveBand curveBand(const QVector<QVector<double>>& xs, const QVector<QVector<double>>& ys) {
  CurveBand band;
  QVector<double> at;
  for (const QVector<double>& x : xs) at += x;
  std::sort(at.begin(), at.end());
  at.erase(std::unique(at.begin(), at.end()), at.end());
  for (const double x : at) {
    double sum = 0, low = std::numeric_limits<double>::infinity(), high = -low;
    int count = 0;
    for (int k = 0; k < xs.size(); ++k) {
      if (xs[k].isEmpty() || x < xs[k].front() || x > xs[k].back()) continue;
      const double v = valueAt(xs[k], ys[k], x);
      sum += v, low = std::min(low, v), high = std::max(high, v);
      ++count;
    }
    band.x << x;
    band.mean << sum / static_cast<double>(count);
    band.low << low;
    band.high << high;
    band.count << count;
  }
  return band;
}

}  // namespace mixerlab::widgets
