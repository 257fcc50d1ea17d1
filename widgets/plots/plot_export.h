// Exports of the loss plot: SVG and PNG renderings of a QCustomPlot (legend and axis labels
// included) and a CSV table of the curves as drawn (a group's mean and band, not its runs' raw
// points). Kept apart from the widget so the file formats can be tested on their own.
#pragma once
#include <QList>
#include <QString>

#include <QVector>

class QCustomPlot;

namespace mixerlab::widgets {

// Renders the plot into an SVG file of width_px x height_px (QSvgGenerator + QCPPainter).
bool exportPlotSvg(QCustomPlot* plot, const QString& path, int width_px, int height_px, const QString& title);
// Renders the plot into a PNG file of exactly width_px x height_px pixels.
bool exportPlotPng(QCustomPlot* plot, const QString& path, int width_px, int height_px);

// One curve as the plot draws it: a run's train or eval curve (raw, or smoothed), or a group's
// mean over its runs with the band from the lowest to the highest run and how many runs reach each x.
struct DrawnCurve {
  QString name;    // the run, or "<group> (mean of n)"
  QString series;  // "train", "eval", or the metric shown
  bool smoothed = false;
  QVector<double> xs, ys;
  QVector<double> lows, highs;  // a mean's band; empty for a single run
  QVector<int> counts;          // runs contributing at each x; empty for a single run
};

// CSV with header curve,series,kind,<x_name>,<y_name>,band_low,band_high,runs; kind is raw,
// smoothed or mean; the band and run count are filled for means only. Curves in the given order.
QString drawnCurvesCsv(const QVector<DrawnCurve>& curves, const QString& x_name, const QString& y_name);

}  // namespace mixerlab::widgets
