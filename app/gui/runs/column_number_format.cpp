// Per-column number formats of the run table (see column_number_format.h).
#include "app/gui/runs/column_number_format.h"

#include <algorithm>
#include <cmath>

namespace mixerlab::gui {
namespace {
constexpr int kMaxDigits = 6;

bool isInteger(double v) { return std::abs(v) < 1e15 && v == std::floor(v); }

// The fewest digits (0..kMaxDigits) with which `style` writes v back as v (to 1e-12 relative).
int digitsNeeded(double v, char style) {
  for (int digits = 0; digits < kMaxDigits; ++digits) {
    const double back = QString::number(v, style, digits).toDouble();
    if (std::abs(back - v) <= 1e-12 * std::abs(v)) return digits;
  }
  return kMaxDigits;
}
}  // namespace

QString ColumnNumberFormat::format(double value) const {
  if (isInteger(value) && style == 'f') return QString::number(value, 'f', 0);
  if (isInteger(value) && std::abs(value) < 1e6) return QString::number(value, 'f', 0);
  return QString::number(value, style, precision);
}

ColumnNumberFormat columnNumberFormat(const QVector<double>& values) {
  ColumnNumberFormat f;
  QVector<double> fractional;
  for (double v : values) {
    if (std::isfinite(v) && !isInteger(v)) fractional << v;
  }
  if (fractional.isEmpty()) return f;
  const bool scientific = std::any_of(fractional.begin(), fractional.end(),
                                      [](double v) { return std::abs(v) < 1e-3 || std::abs(v) >= 1e6; });
  f.style = scientific ? 'e' : 'f';
  for (double v : fractional) f.precision = std::max(f.precision, digitsNeeded(v, f.style));
  return f;
}

}  // namespace mixerlab::gui
