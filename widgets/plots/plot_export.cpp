// Loss plot exports (see plot_export.h).
#include "widgets/plots/plot_export.h"

#include <qcustomplot.h>
#include <QFile>
#include <QSaveFile>
#include <QSvgGenerator>
#include <QTextStream>

namespace mixerlab::widgets {

namespace {
QString csvField(const QString& text) {
  if (!text.contains(',') && !text.contains('"') && !text.contains('\n')) return text;
  QString quoted = text;
  quoted.replace('"', "\"\"");
  return '"' + quoted + '"';
}
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

QString lossTableCsv(const QList<LossSeries>& runs, const Smoothing& smoothing) {
  QString out;
  QTextStream csv(&out);
  csv << "run,series,step,tokens,wall_s,flops,loss" << (smoothing.enabled() ? ",smoothed_loss" : "") << "\n";
  for (const LossSeries& s : runs) {
    QVector<double> train_ys, train_steps;
    for (const LossPoint& p : s.train) train_ys.push_back(p.loss), train_steps.push_back(p.step);
    const QVector<double> train_smooth = smoothed(train_steps, train_ys, smoothing);
    auto rows = [&](const QVector<LossPoint>& points, const char* name, const QVector<double>* smooth) {
      for (int i = 0; i < points.size(); ++i) {
        const LossPoint& p = points[i];
        csv << csvField(s.run) << ',' << name << ',' << number(p.step) << ',' << number(p.tokens) << ','
            << number(p.wall_s) << ',' << number(p.flops) << ',' << number(p.loss);
        if (smoothing.enabled()) csv << ',' << (smooth ? number((*smooth)[i]) : QString());
        csv << "\n";
      }
    };
    rows(s.train, "train", &train_smooth);
    rows(s.eval, "eval", nullptr);
  }
  return out;
}

bool writeLossTableCsv(const QString& path, const QList<LossSeries>& runs, const Smoothing& smoothing) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Text)) return false;
  file.write(lossTableCsv(runs, smoothing).toUtf8());
  return file.commit();
}

}  // namespace mixerlab::widgets
