// Live loss plot: drawing, view handling, hover readout and exports (see loss_plot_widget.h).
// The control row (axis, log, smoothing, reset, export) is built in loss_plot_controls.cpp.
#include "widgets/plots/loss_plot_widget.h"

#include <qcustomplot.h>
#include <QCheckBox>
#include <QFileInfo>
#include <QMouseEvent>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>

#include "widgets/plots/plot_export.h"
#include "widgets/plots/plot_export_button.h"
#include "widgets/plots/plot_setup.h"

namespace mixerlab::widgets {

namespace {
constexpr int kFaintAlpha = 60;

// The x axis of a loss panel carries the line-style key, so a panel without a legend (and every
// export) says which curves are train and which eval; the x label has the width to hold it.
QString xAxisLabel(LossAxis axis, const QString& metric) {
  return metric == kLossMetric ? lossAxisLabel(axis) + QStringLiteral("      (solid: train, dashed: eval)")
                               : lossAxisLabel(axis);
}

}  // namespace

LossPlotWidget::LossPlotWidget(QWidget* parent) : QWidget(parent), plot_(new QCustomPlot(this)) {
  buildControls();
  auto* layout = qobject_cast<QVBoxLayout*>(this->layout());
  layout->addWidget(plot_, 1);
  plot_->legend->setVisible(true);
  // The legend sits in its own row under the axes, so it never covers a curve.
  // The row is added by placeLegend() once there is a curve to list.
  plot_->axisRect()->insetLayout()->take(plot_->legend);
  plot_->legend->setVisible(false);
  plot_->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
  plot_->legend->setWrap(4);
  plot_->legend->setMargins(QMargins(4, 2, 4, 2));
  plot_->yAxis->setLabel(metricLabel(metric_));
  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  plot_->setMinimumSize(320, 160);  // several panels share the plot area
  plot_->setMouseTracking(true);
  readout_ = addHoverReadout(plot_, 0.01, 0.99, Qt::AlignLeft | Qt::AlignBottom, 220, 120);
  readout_->setTextAlignment(Qt::AlignLeft);
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
  connect(plot_, &QCustomPlot::mousePress, this, [this](QMouseEvent* e) {
    if (e->button() == Qt::RightButton) {
      showContextMenu(e->position().toPoint());
      return;
    }
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
  for (auto it = series.metrics.cbegin(); it != series.metrics.cend(); ++it) {
    if (metric_box_->findData(it.key()) < 0) metric_box_->addItem(metricLabel(it.key()), it.key());
  }
  redraw();
}

void LossPlotWidget::appendPoints(const LossSeries& points) {
  LossSeries& series = series_[points.run];
  series.run = points.run;
  series.append(points);
  for (auto it = points.metrics.cbegin(); it != points.metrics.cend(); ++it) {
    if (metric_box_->findData(it.key()) < 0) metric_box_->addItem(metricLabel(it.key()), it.key());
  }
  redraw();
}

QStringList LossPlotWidget::availableMetrics() const {
  QStringList metrics{kLossMetric};
  for (const LossSeries& s : series_) {
    for (auto it = s.metrics.cbegin(); it != s.metrics.cend(); ++it) {
      if (!metrics.contains(it.key())) metrics << it.key();
    }
  }
  return metrics;
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

QString LossPlotWidget::readoutAcrossRuns(double x) const {
  const auto format_x = [this](double value) {
    return axis_ == LossAxis::Step ? QString::number(qint64(value)) : QString::number(value, 'g', 5);
  };
  QStringList lines{lossAxisLabel(axis_) + " = " + format_x(x)};
  const bool smoothing_on = smoothing_.enabled();
  for (const Curve& c : curves_) {
    // One value per run and series: the smoothed line when there is one, else the raw one.
    if (c.xs.isEmpty() || (!c.eval && smoothing_on != c.smoothed)) continue;
    int nearest = 0;
    for (int i = 1; i < c.xs.size(); ++i) {
      if (std::abs(c.xs[i] - x) < std::abs(c.xs[nearest] - x)) nearest = i;
    }
    QString name = c.run;
    if (metric_ == kLossMetric) name += c.eval ? " eval" : " train";
    QString line = QStringLiteral("%1: %2").arg(name, QString::number(c.ys[nearest], 'g', 5));
    if (c.xs[nearest] != x) line += "  (at " + format_x(c.xs[nearest]) + ")";
    lines << line;
  }
  return lines.join('\n');
}

bool LossPlotWidget::pointAt(double pixel_x, double pixel_y, QString* run, double* step) const {
  const Curve* best = nullptr;
  int i = -1;
  if (!nearestPoint(pixel_x, pixel_y, &best, &i)) return false;
  *run = best->run;
  // The curve's x may be tokens or seconds: find the logged point of that run at this x for its step.
  const LossSeries& series = series_[best->run];
  const QVector<LossPoint>& points =
      metric_ == kLossMetric ? (best->eval ? series.eval : series.train) : series.metrics.value(metric_);
  *step = 0;
  for (const LossPoint& p : points) {
    if (p.x(axis_) <= best->xs[i]) *step = p.step;
  }
  return true;
}

QRect LossPlotWidget::legendRect() const { return plot_->legend->outerRect(); }
QRect LossPlotWidget::axisRect() const { return plot_->axisRect()->rect(); }
QStringList LossPlotWidget::xTickLabels() const { return plot_->xAxis->tickVectorLabels().toList(); }

void LossPlotWidget::showReadout(double pixel_x, double pixel_y) {
  const bool inside = plot_->axisRect()->rect().contains(QPoint(int(pixel_x), int(pixel_y)));
  const Curve* best = nullptr;
  int i = -1;
  const bool found = inside && nearestPoint(pixel_x, pixel_y, &best, &i);
  readout_->setVisible(found);
  marker_->setVisible(found);
  if (found) {
    readout_->setText(readoutAcrossRuns(best->xs[i]));
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
  g->setName(metric_ != kLossMetric ? run : run + (eval ? " eval" : " train"));
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
  if (pinned_runs_.contains(run)) pen.setWidthF(pen.widthF() * 2);
  g->setPen(pen);
  curves_.push_back({run, eval, smoothed, g, std::move(xs), std::move(ys)});
}

void LossPlotWidget::addMeanCurve(const QString& name, bool eval, const QColor& colour, const CurveBand& band,
                                  int runs) {
  // Stretches where every run contributes in the group's colour (listed in the legend); where fewer
  // do (a run still training, or stopped early) the mean goes on faint, named by its count. Each
  // stretch shares its end point with the next, so the line is unbroken.
  int begin = 0;
  bool legend_done = false;
  while (begin < band.x.size()) {
    const bool all = band.count[begin] == runs;
    int end = begin;
    while (end + 1 < band.x.size() && (band.count[end + 1] == runs) == all) ++end;
    const int last = std::min<int>(end + 1, static_cast<int>(band.x.size()) - 1);
    const QVector<double> x = band.x.mid(begin, last - begin + 1), y = band.mean.mid(begin, last - begin + 1);
    if (all) {
      addCurve(name, eval, false, colour, x, y);
    } else {
      QColor faint = colour;
      faint.setAlpha(kFaintAlpha);
      int fewest = runs;
      for (int i = begin; i <= end; ++i) fewest = std::min(fewest, band.count[i]);
      addCurve(tr("%1: %2 of %3 runs reached here").arg(name).arg(fewest).arg(runs), eval, false, faint, x, y);
    }
    if (!all || legend_done) curves_.back().graph->removeFromLegend();
    legend_done = legend_done || all;
    begin = end + 1;
  }
}

QColor LossPlotWidget::runColour(const QString& run) const {
  // A run keeps the colour it was first drawn with, whatever is shown or hidden later.
  return colours_->colour(run);
}

QColor LossPlotWidget::drawnColour(const QString& run) const {
  for (const Curve& c : curves_) {
    if (c.run == run && !c.eval && !c.smoothed) return c.graph->pen().color();
  }
  return {};
}

void LossPlotWidget::forgetRuns() {
  series_.clear();
  colours_->forget();
  user_view_ = false;  // another project's runs: their own range, not the previous zoom
  shared_x_.reset();
  redraw();
  replotNow();
}

void LossPlotWidget::redraw() {
  plot_->clearGraphs();
  curves_.clear();
  drawn_.clear();

  downsampled_ = false;
  const bool log_x = logX(), log_y = logY();
  // The points a run draws on this axis and scale (log axes skip points <= 0).
  const auto drawable = [&](const QVector<LossPoint>& points, QVector<double>* xs, QVector<double>* ys) {
    for (const auto& p : points) {
      const double x = p.x(axis_);
      if ((log_x && !(x > 0)) || (log_y && !(p.loss > 0))) continue;
      xs->push_back(x), ys->push_back(p.loss);
    }
  };
  QMap<QString, QStringList> groups;  // label -> shown runs, for the groups drawn as a band
  for (auto it = series_.cbegin(); it != series_.cend(); ++it) {
    if (!hidden_runs_.contains(it.key()) && run_groups_.contains(it.key())) groups[run_groups_[it.key()]] << it.key();
  }
  for (auto g = groups.begin(); g != groups.end();) g = g->size() < 2 ? groups.erase(g) : std::next(g);
  QSet<QString> in_bands;
  for (const QStringList& runs : groups) in_bands.unite(QSet<QString>(runs.begin(), runs.end()));
  QStringList order;  // pinned runs last, so they are drawn over the others
  for (auto it = series_.cbegin(); it != series_.cend(); ++it) {
    if (!pinned_runs_.contains(it.key())) order << it.key();
  }
  for (auto it = series_.cbegin(); it != series_.cend(); ++it) {
    if (pinned_runs_.contains(it.key())) order << it.key();
  }
  for (const QString& run : order) {
    const auto it = series_.constFind(run);
    const QColor colour = runColour(it.key());  // hidden runs keep their colours too
    if (hidden_runs_.contains(it.key()) || in_bands.contains(it.key())) continue;
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
      const QString series = metric_ != kLossMetric ? metric_ : eval ? QStringLiteral("eval") : QStringLiteral("train");
      if (!xs.isEmpty()) drawn_.push_back({it.key(), series, false, xs, ys, {}, {}, {}});
      if (smooth && !xs.isEmpty()) drawn_.push_back({it.key(), series, true, xs, sys, {}, {}, {}});
      addCurve(it.key(), eval, false, colour, xs, ys);
      if (smooth) addCurve(it.key(), eval, true, colour, xs, sys);
    };
    if (metric_ == kLossMetric) {
      add(it->train, false);
      add(it->eval, true);
    } else {
      add(it->metrics.value(metric_), false);
    }
  }
  for (auto g = groups.cbegin(); g != groups.cend(); ++g) {
    const QColor colour = runColour(g.key());
    const QString name = tr("%1 (mean of %2)").arg(g.key()).arg(g->size());
    for (const bool eval : {false, true}) {
      if (eval && metric_ != kLossMetric) break;
      QVector<QVector<double>> xs, ys;
      for (const QString& run : *g) {
        const LossSeries& s = series_[run];
        const QVector<LossPoint>& points = metric_ != kLossMetric ? s.metrics.value(metric_) : eval ? s.eval : s.train;
        xs.push_back({}), ys.push_back({});
        drawable(points, &xs.back(), &ys.back());
      }
      const CurveBand band = curveBand(xs, ys);
      if (band.x.isEmpty()) continue;
      QCPGraph* low = plot_->addGraph();
      low->setPen(Qt::NoPen);
      low->setData(band.x, band.low, true);
      low->removeFromLegend();
      QCPGraph* high = plot_->addGraph();
      high->setPen(Qt::NoPen);
      QColor fill = colour;
      fill.setAlpha(eval ? 35 : 55);
      high->setBrush(fill);
      high->setChannelFillGraph(low);
      high->setData(band.x, band.high, true);
      high->removeFromLegend();
      addMeanCurve(name, eval, colour, band, static_cast<int>(g->size()));
      drawn_.push_back({name,
                        metric_ != kLossMetric ? metric_
                        : eval                 ? QStringLiteral("eval")
                                               : QStringLiteral("train"),
                        false, band.x, band.mean, band.low, band.high, band.count});
    }
  }
  placeLegend();
  plot_->xAxis->setLabel(xAxisLabel(axis_, metric_));
  plot_->yAxis->setLabel(metricLabel(metric_));
  if (!user_view_) {
    plot_->rescaleAxes();
    if (!curves_.isEmpty()) plot_->yAxis->scaleRange(1.06);  // a little air above and below the curves
    if (shared_x_) plot_->xAxis->setRange(shared_x_->first, shared_x_->second);
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

void LossPlotWidget::placeLegend() {
  // An empty legend in the layout grid caps its column at the legend's own (tiny) maximum width, so
  // a project whose runs have not started showed its axes as a sliver in the corner.
  QCPLayoutGrid* grid = plot_->plotLayout();
  const bool listed = legend_shown_ && plot_->legend->itemCount() > 0;
  const bool in_grid = grid->rowCount() > 1 && grid->element(1, 0) == plot_->legend;
  if (listed && !in_grid) {
    grid->addElement(1, 0, plot_->legend);
    grid->setRowStretchFactor(1, 0.001);
  } else if (!listed && in_grid) {
    grid->take(plot_->legend);
    grid->simplify();
  }
  plot_->legend->setVisible(listed);
}

void LossPlotWidget::setLegendShown(bool shown) {
  legend_shown_ = shown;
  placeLegend();
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void LossPlotWidget::setRunGroups(const QHash<QString, QString>& groups) {
  if (groups == run_groups_) return;
  run_groups_ = groups;
  redraw();
}

void LossPlotWidget::setPinnedRuns(const QSet<QString>& runs) {
  if (runs == pinned_runs_) return;
  pinned_runs_ = runs;
  redraw();
}

double LossPlotWidget::drawnLineWidth(const QString& run) const {
  for (const Curve& c : curves_) {
    if (c.run == run && !c.eval && !c.smoothed) return c.graph->pen().widthF();
  }
  return 0;
}

void LossPlotWidget::setHiddenRuns(const QSet<QString>& runs) {
  if (runs == hidden_runs_) return;
  hidden_runs_ = runs;
  redraw();
}

void LossPlotWidget::setSharedXRange(double lower, double upper) {
  shared_x_ = std::make_pair(lower, upper);
  if (user_view_) return;
  plot_->xAxis->setRange(lower, upper);
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void LossPlotWidget::setAxisLeftMargin(int pixels) {
  plot_->axisRect()->setMinimumMargins(QMargins(pixels, 0, 0, 0));
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

std::optional<std::pair<double, double>> LossPlotWidget::dataXRange() const {
  std::optional<std::pair<double, double>> range;
  for (const Curve& c : curves_) {
    if (c.xs.isEmpty()) continue;
    const auto [lo, hi] = std::minmax_element(c.xs.begin(), c.xs.end());
    if (!range) range = std::make_pair(*lo, *hi);
    range->first = std::min(range->first, *lo);
    range->second = std::max(range->second, *hi);
  }
  return range;
}

std::pair<double, double> LossPlotWidget::xRange() const {
  return {plot_->xAxis->range().lower, plot_->xAxis->range().upper};
}

LossPlotWidget::~LossPlotWidget() {
  // A legend out of the grid is only a QObject child of the plot: delete it while the plot is whole.
  if (plot_->legend->layout() == nullptr) delete plot_->legend;
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

bool LossPlotWidget::exportSvg(const QString& given_path, int width_px, int height_px) {
  const QSize size = exportSize(width_px, height_px);
  return withExportLook([&] {
    return exportPlotSvg(plot_, withExportSuffix(given_path, "svg"), size.width(), size.height(), "MixerLab loss");
  });
}

bool LossPlotWidget::exportPng(const QString& given_path, int width_px, int height_px) {
  const QSize size = exportSize(width_px, height_px);
  return withExportLook(
      [&] { return exportPlotPng(plot_, withExportSuffix(given_path, "png"), size.width(), size.height()); });
}

bool LossPlotWidget::withExportLook(const std::function<bool()>& write) {
  // A figure is read without the workbench around it: its legend goes in even when the panel
  // leaves it to the side list, and the hover readout stays out.
  const bool readout_shown = readout_->visible(), legend_was_shown = legend_shown_;
  readout_->setVisible(false), marker_->setVisible(false);
  if (!legend_was_shown) legend_shown_ = true, placeLegend();
  const bool ok = write();
  if (!legend_was_shown) legend_shown_ = false, placeLegend();
  readout_->setVisible(readout_shown), marker_->setVisible(readout_shown);
  plot_->replot(QCustomPlot::rpQueuedReplot);
  return ok;
}

QString LossPlotWidget::drawnCsv() const { return drawnCurvesCsv(drawn_, lossAxisKey(axis_), metric_); }

bool LossPlotWidget::exportCsv(const QString& path) const {
  return writeTextFile(withExportSuffix(path, "csv"), drawnCsv());
}

}  // namespace mixerlab::widgets
