// The shared plot Export button and its writers (see plot_export_button.h).
#include "widgets/plots/plot_export_button.h"

#include <qcustomplot.h>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QMenu>
#include <QMessageBox>
#include <QSaveFile>
#include <QTextStream>
#include <QToolButton>
#include <QVBoxLayout>

#include "widgets/plots/plot_export.h"

namespace mixerlab::widgets {

QString withExportSuffix(const QString& path, const char* suffix) {
  return QFileInfo(path).suffix().isEmpty() ? path + "." + suffix : path;
}

QString csvField(const QString& text) {
  if (!text.contains(',') && !text.contains('"') && !text.contains('\n')) return text;
  QString quoted = text;
  quoted.replace('"', "\"\"");
  return '"' + quoted + '"';
}

bool writeTextFile(const QString& path, const QString& text) {
  QSaveFile file(path);
  if (!file.open(QIODevice::WriteOnly | QIODevice::Text)) return false;
  file.write(text.toUtf8());
  return file.commit();
}

QToolButton* makeExportButton(QWidget* parent, const QString& what, PlotWriters writers) {
  auto* button = new QToolButton(parent);
  button->setText(QObject::tr("Export"));
  button->setObjectName("plot-export");
  button->setToolTip(QObject::tr("Save the %1 as SVG or PNG (with its legend), or what it draws as CSV").arg(what));
  button->setPopupMode(QToolButton::InstantPopup);
  auto* menu = new QMenu(button);
  const auto add = [=](const QString& label, const QString& filter, const char* suffix,
                       std::function<bool(const QString&)> write) {
    menu->addAction(label, button, [=] {
      const QString typed = QFileDialog::getSaveFileName(parent, QObject::tr("Export %1").arg(what), QString(), filter);
      if (typed.isEmpty()) return;
      const QString path = withExportSuffix(typed, suffix);
      if (!write(path))
        QMessageBox::warning(
            parent, QObject::tr("Export failed"),
            QObject::tr("Could not write %1: check that its folder exists and can be written to.").arg(path));
    });
  };
  add(QObject::tr("SVG…"), "SVG (*.svg)", "svg", writers.svg);
  add(QObject::tr("PNG…"), "PNG (*.png)", "png", writers.png);
  add(QObject::tr("CSV…"), "CSV (*.csv)", "csv", writers.csv);
  button->setMenu(menu);
  return button;
}

namespace {
QSize drawnSize(const QCustomPlot* plot) {
  return plot->isVisible() && plot->width() > 16 ? plot->size() : QSize(960, 600);
}

// Runs `write` with the legend shown when the figure asks for it, then puts the screen back.
bool asFigure(QCustomPlot* plot, FigureLegend legend, const std::function<bool(QSize)>& write) {
  const bool was_visible = plot->legend->visible();
  const bool show = legend == FigureLegend::Shown && !was_visible && plot->legend->itemCount() > 0;
  if (show) plot->legend->setVisible(true);
  const bool ok = write(drawnSize(plot));
  if (show) {
    plot->legend->setVisible(false);
    plot->replot(QCustomPlot::rpQueuedReplot);
  }
  return ok;
}
}  // namespace

PlotWriters plotWriters(QCustomPlot* plot, const QString& title, std::function<QString()> csv_text,
                        FigureLegend legend) {
  PlotWriters w;
  w.svg = [=](const QString& path) {
    return asFigure(plot, legend,
                    [&](QSize size) { return exportPlotSvg(plot, path, size.width(), size.height(), title); });
  };
  w.png = [=](const QString& path) {
    return asFigure(plot, legend, [&](QSize size) { return exportPlotPng(plot, path, size.width(), size.height()); });
  };
  w.csv = [csv_text](const QString& path) { return writeTextFile(path, csv_text()); };
  return w;
}

void placeExportButton(QWidget* owner, QToolButton* button) {
  auto* layout = qobject_cast<QVBoxLayout*>(owner->layout());
  if (!layout) return;
  auto* row = new QHBoxLayout;
  row->setContentsMargins(0, 0, 0, 0);
  row->addStretch(1);
  row->addWidget(button);
  layout->insertLayout(0, row);
}

QString graphsCsv(const QCustomPlot* plot) {
  QString out;
  QTextStream csv(&out);
  csv << "series," << csvField(plot->xAxis->label()) << ',' << csvField(plot->yAxis->label()) << "\n";
  for (int i = 0; i < plot->graphCount(); ++i) {
    const QCPGraph* g = plot->graph(i);
    if (g->name().isEmpty()) continue;
    for (auto it = g->data()->constBegin(); it != g->data()->constEnd(); ++it)
      csv << csvField(g->name()) << ',' << QString::number(it->key, 'g', 10) << ','
          << QString::number(it->value, 'g', 10) << "\n";
  }
  return out;
}

}  // namespace mixerlab::widgets
