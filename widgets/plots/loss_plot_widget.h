// Live metric plot (QCustomPlot), one panel of the workbench's plot area. Its metric is the loss
// (train as solid lines, eval as dashed lines with markers) or any other logged metric (lr,
// tokens/s, grad norm, ...), one colour per run; x axis by step / tokens / wall-clock / FLOPs
// (equal compute), log x and log y, optional smoothing (raw curve drawn faint behind), min/max
// downsampling for long curves, a hover readout of every visible run at the pointer's x, a legend
// below the axes (never over the curves), zoom/pan with reset, a right-click "fork from here",
// SVG/PNG/CSV export.
#pragma once
#include <QHash>
#include <QMap>
#include <QPointF>
#include <QRect>
#include <QSet>
#include <QStringList>
#include <QVector>
#include <QWidget>
#include <array>
#include <functional>
#include <memory>
#include <optional>
#include <utility>

#include "widgets/plots/curve_processing.h"
#include "widgets/plots/loss_series.h"
#include "widgets/plots/plot_export.h"
#include "widgets/plots/series_colours.h"

class QCustomPlot;
class QCPGraph;
class QCPItemText;
class QCPItemTracer;
class QComboBox;
class QCheckBox;
class QDoubleSpinBox;
class QSpinBox;

namespace mixerlab::widgets {

struct CurveBand;

class LossPlotWidget : public QWidget {
  Q_OBJECT
 public:
  explicit LossPlotWidget(QWidget* parent = nullptr);
  ~LossPlotWidget() override;
  void setSeries(const LossSeries& series);  // adds or replaces the run's curves
  // Adds new points to the run's curves (LossSeries::append; a run not shown yet starts with them),
  // so a live update copies only what arrived.
  void appendPoints(const LossSeries& points);
  void removeRun(const QString& run);  // hides it; it keeps its colour for when it comes back
  // The colour a run is drawn with: given when the run is first seen and kept while the widget
  // lives, so showing or hiding other runs never recolours it.
  QColor runColour(const QString& run) const;
  // The registry runColour asks (default: this panel's own); PlotPanels gives every panel one shared
  // with the Scaling tab.
  void setSeriesColours(std::shared_ptr<SeriesColours> colours) { colours_ = std::move(colours); }
  QColor drawnColour(const QString& run) const;  // its drawn train curve's pen colour; invalid when not drawn
  void forgetRuns();  // removes every run and frees their colours (another project was opened)
  // The metric shown: kLossMetric or a key of LossSeries::metrics. Runs without it draw nothing.
  void setMetric(const QString& metric);
  QString metric() const { return metric_; }
  // kLossMetric and every metric key of the runs given so far (for the metric picker).
  QStringList availableMetrics() const;
  void setAxis(LossAxis axis);
  LossAxis axis() const { return axis_; }
  void setLogX(bool on);  // points with x <= 0 are skipped on a log axis
  void setLogY(bool on);
  bool logX() const;
  bool logY() const;
  void setSmoothing(const Smoothing& smoothing);
  Smoothing smoothing() const { return smoothing_; }
  void resetView();  // forget zoom/pan; fit all data (live updates keep a user's zoom until then)

  // For a panel of PlotPanels: no legend inside the plot (the area lists the runs beside the
  // panels), these runs not drawn (they keep their colours), the x range the area chose for all
  // panels (applied unless the user zoomed or panned), and a left margin wide enough that every
  // panel's axes start at the same pixel.
  void setLegendShown(bool shown);
  void setHiddenRuns(const QSet<QString>& runs);
  void setSharedXRange(double lower, double upper);
  void setAxisLeftMargin(int pixels);
  // Runs drawn as groups: run -> group label. A group with two or more shown runs is drawn as
  // its mean ("<label> (mean of n)") in the label's colour over a band from the lowest to the
  // highest run (curveBand); its runs are not drawn one by one. Empty: every run by itself.
  void setRunGroups(const QHash<QString, QString>& groups);
  // Pinned runs are drawn last (over the others) with lines twice as thick.
  void setPinnedRuns(const QSet<QString>& runs);
  double drawnLineWidth(const QString& run) const;  // its drawn train curve's pen width; 0 when not drawn
  // The x extent of what is drawn (every curve's first to last point), none when nothing is.
  std::optional<std::pair<double, double>> dataXRange() const;
  std::pair<double, double> xRange() const;  // the x axis's range as shown

  int graphCount() const;
  int pointCount(const QString& run, bool eval) const;       // points in the series
  int drawnPointCount(const QString& run, bool eval) const;  // raw points drawn (after log filter, downsampling)
  // "<run> train|eval[ (smoothed)]: <x axis> = x, loss = y" for the drawn point nearest to a pixel
  // position in the inner QCustomPlot's coordinates; empty when nothing is drawn. The hover shows it.
  QString readoutAt(double pixel_x, double pixel_y) const;
  // Every drawn run's value at the logged x nearest to `x` (smoothed curves when smoothing is on),
  // one line per run and series under a header naming the x: what the hover shows.
  QString readoutAcrossRuns(double x) const;
  // The run and step of the drawn point nearest a pixel position (false when nothing is drawn):
  // what the right-click "fork from here" forks.
  bool pointAt(double pixel_x, double pixel_y, QString* run, double* step) const;
  QRect legendRect() const;                       // where the legend is drawn, plot pixels (for tests)
  QRect axisRect() const;                         // where the curves are drawn, plot pixels
  QStringList xTickLabels() const;                // the x axis's tick labels as drawn (after a replot)
  QPointF dataToPixel(double x, double y) const;  // plot pixel position of a data point (for tests)
  void replotNow();                               // lay out and draw immediately (normally queued)

  bool saveImage(const QString& path);  // PNG, PDF or SVG by extension
  // Width/height 0: the plot's current size (960x600 when it has none yet). A path without an
  // extension gets the format's (.svg, .png, .csv).
  bool exportSvg(const QString& path, int width_px = 0, int height_px = 0);
  bool exportPng(const QString& path, int width_px = 0, int height_px = 0);
  // The curves as drawn (hidden runs left out; a group as its mean and band): drawnCurvesCsv in
  // plot_export.h, with the x axis shown.
  bool exportCsv(const QString& path) const;
  QString drawnCsv() const;

 Q_SIGNALS:
  // The x axis, log scales or smoothing changed (by the user or a setter): for keeping them.
  void viewSettingsChanged();
  // The user asked to fork `run` from the checkpoint at or before `step` (right-click on a point).
  void forkRequested(const QString& run, double step);

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  // A group's mean curve: solid where all `runs` contribute, faint (out of the legend) where fewer.
  void addMeanCurve(const QString& name, bool eval, const QColor& colour, const CurveBand& band, int runs);
  struct Curve {  // one drawn graph and its full (not downsampled) data, for the readout
    QString run;
    bool eval = false, smoothed = false;
    QCPGraph* graph = nullptr;
    QVector<double> xs, ys;
  };
  void redraw();
  void placeLegend();  // the legend row exists only while it lists something
  void addCurve(const QString& run, bool eval, bool smoothed, const QColor& colour, QVector<double> xs,
                QVector<double> ys);
  void buildControls();
  bool nearestPoint(double pixel_x, double pixel_y, const Curve** curve, int* index) const;
  void showReadout(double pixel_x, double pixel_y);
  QSize exportSize(int width_px, int height_px) const;
  bool withExportLook(const std::function<bool()>& write);
  int pixelWidth() const;

  QCustomPlot* plot_;
  void showContextMenu(const QPoint& pixel);
  QComboBox* metric_box_ = nullptr;
  QComboBox* axis_box_ = nullptr;
  QCheckBox* log_x_ = nullptr;
  QCheckBox* log_y_ = nullptr;
  QComboBox* smoothing_box_ = nullptr;
  QDoubleSpinBox* ema_weight_ = nullptr;
  QSpinBox* window_ = nullptr;
  QCheckBox* centred_ = nullptr;
  QCPItemText* readout_ = nullptr;
  QCPItemTracer* marker_ = nullptr;
  QMap<QString, LossSeries> series_;
  std::shared_ptr<SeriesColours> colours_ = std::make_shared<SeriesColours>();
  QVector<Curve> curves_;
  QVector<DrawnCurve> drawn_;  // what redraw() drew, at full resolution: the CSV export
  LossAxis axis_ = LossAxis::Step;
  QString metric_ = kLossMetric;
  Smoothing smoothing_;
  std::array<double, 4> press_range_{};  // x lo, x hi, y lo, y hi at a mouse press: pan or click?
  QPointF last_hover_{-1, -1};           // last pointer position over the plot, plot pixels
  bool user_view_ = false;               // the user zoomed or panned: keep their range on live updates
  bool downsampled_ = false;             // some curve was downsampled: redraw on resize / zoom
  bool legend_shown_ = true;
  QSet<QString> hidden_runs_;
  QHash<QString, QString> run_groups_;
  QSet<QString> pinned_runs_;
  std::optional<std::pair<double, double>> shared_x_;
};

}  // namespace mixerlab::widgets
