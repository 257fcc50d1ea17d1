// Exports of the loss plot: SVG and PNG renderings of a QCustomPlot (legend and axis labels
// included) and a CSV table of the underlying loss points. Kept apart from the widget so the
// file formats can be tested on their own.
#pragma once
#include <QList>
#include <QString>

#include "widgets/plots/curve_processing.h"
#include "widgets/plots/loss_series.h"

class QCustomPlot;

namespace mixerlab::widgets {

// Renders the plot into an SVG file of width_px x height_px (QSvgGenerator + QCPPainter).
bool exportPlotSvg(QCustomPlot* plot, const QString& path, int width_px, int height_px, const QString& title);
// Renders the plot into a PNG file of exactly width_px x height_px pixels.
bool exportPlotPng(QCustomPlot* plot, const QString& path, int width_px, int height_px);

// CSV with header run,series,step,tokens,wall_s,flops,loss and, when smoothing is enabled, a
// smoothed_loss column. series is "train" or "eval"; smoothing applies to train curves only (eval
// losses are averages already), so eval rows leave smoothed_loss empty. Runs in the given order.
QString lossTableCsv(const QList<LossSeries>& runs, const Smoothing& smoothing);
bool writeLossTableCsv(const QString& path, const QList<LossSeries>& runs, const Smoothing& smoothing);

}  // namespace mixerlab::widgets
