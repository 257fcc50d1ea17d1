// Loss plot exports (see plot_export.h).
#include "widgets/plots/plot_export.h"

#include <qcustomplot.h>
#include <QFile>
#include <QSvgGenerator>
#include <QTextStream>

#include "widgets/plots/plot_export_button.h"

namespace mixerlab::widgets {

namespace {
QString number(double v) { return QString::number(v, 'g', 10); }
}  // namespace

bool exportPlotSvg(QCustomPlot* plot, const QString& path, int width_px, int height_px, const QString& title) {
  if (!plot || width_px <= 0 || height_px <= 0) return false;
  QSvgGenerator generator;
  generator.setFileName(path);
  generator.setSize(QSize(width_px, height_px));
  generator.setViewBox(QRect(0, 0, width_px, height_px));
  generator.setTitle(title);
  generator.setDescription(QStringLiteral("MixerLab loss plot"));
  QCPPainter painter;
  if (!painter.begin(&generator)) return false;
  plot->toPainter(&painter, width_px, height_px);
  painter.end();
  return QFile::exists(path);
}

bool exportPlotPng(QCustomPlot* plot, const QString& path, int width_px, int height_px) {
  if (!plot || width_px <= 0 || height_px <= 0) return false;
  return plot->savePng(path, width_px, height_px, 1.0);
}

QString drawnCurvesCsv(const QVector<DrawnCurve>& curves, const QString& x_name, const QString& y_name) {
  QString out;
  QTextStream csv(&out);
  csv << "curve,series,kind," << csvField(x_name) << ',' << csvField(y_name) << ",band_low,band_high,runs\n";
  for (const DrawnCurve& c : curves) {
    const bool mean = !c.counts.isEmpty();
    const QString kind = mean ? "mean" : c.smoothed ? "smoothed" : "raw";
    for (int i = 0; i < c.xs.size(); ++i) {
      csv << csvField(c.name) << ',' << csvField(c.series) << ',' << kind << ',' << number(c.xs[i]) << ','
          << number(c.ys[i]);
      if (mean) {
        csv << ',' << number(c.lows.value(i)) << ',' << number(c.highs.value(i)) << ',' << c.counts.value(i);
      } else {
        csv << ",,,";
      }
      csv << "\n";
    }
  }
  return out;
}

}  // namespace mixerlab::widgets
