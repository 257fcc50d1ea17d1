// One number format per table column, so a column reads as one scale: learning rates 5e-04 and
// 2e-03 (not 5e-04 beside 0.002), widths 256 and 512, dropouts 0.1 and 0.05. A column
// with a non-integer below 0.001 (or at or above 1e6) writes every non-integer in scientific
// notation with one mantissa precision, the fewest digits that keep each value exact; otherwise
// in fixed notation with one number of decimals. Integers stay integers. Plain Qt.
#pragma once
#include <QString>
#include <QVector>

namespace mixerlab::gui {

struct ColumnNumberFormat {
  char style = 'f';   // 'f' fixed or 'e' scientific
  int precision = 0;  // decimals ('f') or mantissa decimals ('e')
  QString format(double value) const;
};

// The format for a column holding these values (NaN and infinities ignored).
ColumnNumberFormat columnNumberFormat(const QVector<double>& values);

}  // namespace mixerlab::gui
