// Live loss plot: drawing, view handling, hover readout and exports (see loss_plot_widget.h).
// The control row (axis, log, smoothing, reset, export) is built in loss_plot_controls.cpp.
#include "widgets/loss_plot_widget.h"

#include <qcustomplot.h>
#include <QCheckBox>
#include <QMouseEvent>
#include <QVBoxLayout>
#include <algorithm>
#include <QFileInfo>
#include <cmath>

#include "widgets/plot_export.h"

namespace mixerlab::widgets {

namespace {
QColor paletteColour(int slot) {
  static const QColor palette[] = {QColor(31, 119, 180),  QColor(214, 39, 40),  QColor(44, 160, 44),
                                   QColor(148, 103, 189), QColor(255, 127, 14), QColor(23, 190, 207),
                                   QColor(140, 86, 75),   QColor(227, 119, 194), QColor(127, 127, 127),
                                   QColor(188, 189, 34)};
  return palette[slot % 10];
}
constexpr int kFaintAlpha = 60;

}  // namespace

LossPlotWidget::LossPlotWidget(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot(this)) {
  buildControls();
  auto* layout = qobject_cast<QVBoxLayout*>(this->layout());
  layout->addWidget(plot_, 1);
  plot_->legend->setVisible(true);
  plot_->yAxis->setLabel("cross-entropy loss");
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  plot_->setMinimumSize(480, 320);
  plot_->setMouseTracking(true);
  readout_ = new QCPItemText(plot_);
  readout_->setLayer("legend");
  readout_->position->setType(QCPItemPosition::ptAxisRectRatio);
  readout_->position->setCoords(0.01, 0.99);
  readout_->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
  readout_->setTextAlignment(Qt::AlignLeft);
  readout_->setPadding(QMargins(5, 3, 5, 3));
  readout_->setBrush(QColor(255, 255, 255, 220));
  readout_->setPen(QPen(QColor(120, 120, 120)));
  readout_->setVisible(false);
  marker_ = new QCPItemTracer(plot_);
  marker_->setLayer("legend");
  marker_->setStyle(QCPItemTracer::tsCircle);
  marker_->setSize(9);
  marker_->setPen(QPen(Qt::black, 1.5));
  marker_->setVisible(false);
  connect(plot_, &QCustomPlot::mouseMove, this, [this](QMouseEvent* e) {
    last_hover_ = e->position();
    if (e->buttons() == Qt::NoButton) showReadout(e->position().x(), e->position().y());
  });
  connect(plot_, &QCustomPlot::mousePress, this, [this](QMouseEvent*) {
    press_range_ = {plot_->xAxis->range().lower, plot_->xAxis->range().upper, plot_->yAxis->range().lower,
                    plot_->yAxis->range().upper};
  });
  connect(plot_, &QCustomPlot::mouseRelease, this, [this](QMouseEvent*) {
    const std::array<double, 4> now{plot_->xAxis->range().lower, plot_->xAxis->range().upper,
                                    plot_->yAxis->range().lower, plot_->yAxis->range().upper};
    if (now == press_range_) return;  // a click, not a pan
    user_view_ = true;
    if (downsampled_) redraw();  // re-bucket the new visible range
  });
  connect(plot_, &QCustomPlot::mouseWheel, this, [this](QWheelEvent*) {
    user_view_ = true;
    if (downsampled_)
      QMetaObject::invokeMethod(
          this, [this] { redraw(); }, Qt::QueuedConnection);
  });
  redraw();
}

void LossPlotWidget::setSeries(const LossSeries& series) {
  series_[series.run] = series;
  redraw();
}

void LossPlotWidget::removeRun(const QString& run) {
  series_.remove(run);
  redraw();
}

bool LossPlotWidget::logX() const { return log_x_->isChecked(); }
bool LossPlotWidget::logY() const { return log_y_->isChecked(); }
void LossPlotWidget::setLogX(bool on) { log_x_->setChecked(on); }  // the toggled handler redraws
void LossPlotWidget::setLogY(bool on) { log_y_->setChecked(on); }

void LossPlotWidget::resetView() {
  user_view_ = false;
  redraw();
}

int LossPlotWidget::graphCount() const { return plot_->graphCount(); }

int LossPlotWidget::pointCount(const QString& run, bool eval) const {
  auto it = series_.find(run);
  if (it == series_.end()) return 0;
  return eval ? it->eval.size() : it->train.size();
}

int LossPlotWidget::drawnPointCount(const QString& run, bool eval) const {
  for (const Curve& c : curves_)
    if (c.run == run && c.eval == eval && !c.smoothed) return c.graph->dataCount();
  return 0;
}

QPointF LossPlotWidget::dataToPixel(double x, double y) const {
  return {plot_->xAxis->coordToPixel(x), plot_->yAxis->coordToPixel(y)};
}

void LossPlotWidget::replotNow() { plot_->replot(QCustomPlot::rpImmediateRefresh); }

bool LossPlotWidget::nearestPoint(double pixel_x, double pixel_y, const Curve** curve, int* index) const {
  double best_d2 = INFINITY;
  *curve = nullptr;
  for (const Curve& c : curves_) {
    for (int i = 0; i < c.xs.size(); ++i) {
      const double dx = plot_->xAxis->coordToPixel(c.xs[i]) - pixel_x;
      const double dy = plot_->yAxis->coordToPixel(c.ys[i]) - pixel_y;
      const double d2 = dx * dx + dy * dy;
      if (d2 < best_d2) best_d2 = d2, *curve = &c, *index = i;
    }
  }
  return *curve != nullptr;
}

QString LossPlotWidget::readoutAt(double pixel_x, double pixel_y) const {
  const Curve* best = nullptr;
  int i = -1;
  if (!nearestPoint(pixel_x, pixel_y, &best, &i)) return {};
  const QString series = QString(best->eval ? "eval" : "train") + (best->smoothed ? " (smoothed)" : "");
  const double x = best->xs[i];
  const QString x_text = axis_ == LossAxis::Step ? QString::number(qint64(x)) : QString::number(x, 'g', 5);
  return QStringLiteral("%1 %2: %3 = %4, loss = %5")
      .arg(best->run, series, lossAxisLabel(axis_), x_text, QString::number(best->ys[i], 'f', 4));
}

void LossPlotWidget::showReadout(double pixel_x, double pixel_y) {
  const bool inside = plot_->axisRect()->rect().contains(QPoint(int(pixel_x), int(pixel_y)));
  const Curve* best = nullptr;
  int i = -1;
  const bool found = inside && nearestPoint(pixel_x, pixel_y, &best, &i);
  readout_->setVisible(found);
  marker_->setVisible(found);
  if (found) {
    readout_->setText(readoutAt(pixel_x, pixel_y));
    marker_->position->setCoords(best->xs[i], best->ys[i]);
  }
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

int LossPlotWidget::pixelWidth() const {
  const int w = plot_->axisRect()->width();
  return w > 16 ? w : std::max(plot_->width(), 800);
}

void LossPlotWidget::addCurve(const QString& run, bool eval, bool smoothed, const QColor& colour, QVector<double> xs,
                              QVector<double> ys) {
  if (xs.isEmpty()) return;
  QCPGraph* g = plot_->addGraph();
  const int n = xs.size();
  const int px = pixelWidth();
  QVector<double> draw_x = xs, draw_y = ys;
  if (n > 2 * px && std::is_sorted(xs.begin(), xs.end())) {
    QVector<double> keys = xs;
    if (logX())
      for (double& k : keys) k = std::log10(k);
    double lo = keys.front(), hi = keys.back();
    if (user_view_) {
      const QCPRange r = plot_->xAxis->range();
      lo = logX() ? std::log10(std::max(r.lower, 1e-300)) : r.lower;
      hi = logX() ? std::log10(std::max(r.upper, 1e-300)) : r.upper;
    }
    const QVector<int> keep = minMaxDownsample(keys, ys, px, lo, hi);
    draw_x.clear(), draw_y.clear();
    for (int i : keep) draw_x.push_back(xs[i]), draw_y.push_back(ys[i]);
    downsampled_ = true;
  }
  g->setData(draw_x, draw_y, /*alreadySorted=*/true);
  g->setAdaptiveSampling(false);  // our min/max buckets already bound the point count
  g->setName(run + (eval ? " eval" : " train"));
  QPen pen(colour, eval ? 2.0 : 1.4);
  if (eval) {
    pen.setStyle(Qt::DashLine);
    g->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 5));
  }
  const bool faint = !eval && !smoothed && smoothing_.enabled();
  if (faint) {
    QColor c = colour;
    c.setAlpha(kFaintAlpha);
    pen.setColor(c);
    pen.setWidthF(1.0);
    g->removeFromLegend();
  }
  if (smoothed) pen.setWidthF(2.0);
  g->setPen(pen);
  curves_.push_back({run, eval, smoothed, g, std::move(xs), std::move(ys)});
}

QColor LossPlotWidget::runColour(const QString& run) const {
  // A run keeps the colour it was first drawn with, whatever is shown or hidden later.
  auto it = colour_slots_.find(run);
  if (it == colour_slots_.end()) it = colour_slots_.insert(run, next_colour_slot_++);
  return paletteColour(it.value());
}

QColor LossPlotWidget::drawnColour(const QString& run) const {
  for (const Curve& c : curves_) {
    if (c.run == run && !c.eval && !c.smoothed) return c.graph->pen().color();
  }
  return {};
}

void LossPlotWidget::forgetRuns() {
  series_.clear();
  colour_slots_.clear();
  next_colour_slot_ = 0;
  redraw();
  replotNow();
}

void LossPlotWidget::redraw() {
  plot_->clearGraphs();
  curves_.clear();

  downsampled_ = false;
  const bool log_x = logX(), log_y = logY();
  for (auto it = series_.cbegin(); it != series_.cend(); ++it) {
    const QColor colour = runColour(it.key());
    auto add = [&](const QVector<LossPoint>& points, bool eval) {
      QVector<double> raw, steps;
      for (const auto& p : points) raw.push_back(p.loss), steps.push_back(p.step);
      const bool smooth = !eval && smoothing_.enabled();
      const QVector<double> smooth_ys = smooth ? smoothed(steps, raw, smoothing_) : QVector<double>();
      QVector<double> xs, ys, sys;
      for (int i = 0; i < points.size(); ++i) {
        const double x = points[i].x(axis_);
        if ((log_x && !(x > 0)) || (log_y && !(raw[i] > 0))) continue;
        xs.push_back(x), ys.push_back(raw[i]);
        if (smooth) sys.push_back(smooth_ys[i]);
      }
      addCurve(it.key(), eval, false, colour, xs, ys);
      if (smooth) addCurve(it.key(), eval, true, colour, xs, sys);
    };
    add(it->train, false);
    add(it->eval, true);
  }
  plot_->xAxis->setLabel(lossAxisLabel(axis_));
  if (!user_view_) {
    plot_->rescaleAxes();
    if (!curves_.isEmpty()) plot_->yAxis->scaleRange(1.06);  // a little air above and below the curves
  }
  // The hovered point may be gone or elsewhere now: show the readout again for the pointer, if any.
  if (plot_->underMouse() && last_hover_.x() >= 0) {
    showReadout(last_hover_.x(), last_hover_.y());
  } else {
    readout_->setVisible(false);
    marker_->setVisible(false);
  }
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void LossPlotWidget::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  if (downsampled_)
    QMetaObject::invokeMethod(
        this, [this] { redraw(); }, Qt::QueuedConnection);
}

QSize LossPlotWidget::exportSize(int width_px, int height_px) const {
  if (width_px > 0 && height_px > 0) return {width_px, height_px};
  if (plot_->isVisible() && plot_->width() > 16) return plot_->size();
  return {960, 600};
}

bool LossPlotWidget::saveImage(const QString& path) {
  if (path.endsWith(".pdf", Qt::CaseInsensitive)) return plot_->savePdf(path);
  if (path.endsWith(".svg", Qt::CaseInsensitive)) return exportSvg(path);
  return plot_->savePng(path, 0, 0, 2.0);
}

namespace {
// Issue 14: "Export PNG" to a name typed without an extension wrote a file with none.
QString withSuffix(const QString& path, const char* suffix) {
  return QFileInfo(path).suffix().isEmpty() ? path + "." + suffix : path;
}
}  // namespace

bool LossPlotWidget::exportSvg(const QString& given_path, int width_px, int height_px) {
  const QString path = withSuffix(given_path, "svg");
  const QSize size = exportSize(width_px, height_px);
  const bool shown = readout_->visible();
  readout_->setVisible(false), marker_->setVisible(false);
  const bool ok = exportPlotSvg(plot_, path, size.width(), size.height(), "MixerLab loss");
  readout_->setVisible(shown), marker_->setVisible(shown);
  return ok;
}

bool LossPlotWidget::exportPng(const QString& given_path, int width_px, int height_px) {
  const QString path = withSuffix(given_path, "png");
  const QSize size = exportSize(width_px, height_px);
  const bool shown = readout_->visible();
  readout_->setVisible(false), marker_->setVisible(false);
  const bool ok = exportPlotPng(plot_, path, size.width(), size.height());
  readout_->setVisible(shown), marker_->setVisible(shown);
  return ok;
}

bool LossPlotWidget::exportCsv(const QString& path) const {
  return writeLossTableCsv(withSuffix(path, "csv"), series_.values(), smoothing_);
}

}  // namespace mixerlab::widgets
