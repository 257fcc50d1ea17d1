// The loss plot's control row: x axis, log x / log y, smoothing (none / EMA weight / moving-average
// window, centred or trailing), reset view and export. Part of LossPlotWidget (see its header).
#include <qcustomplot.h>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include <cmath>

#include "widgets/plots/loss_plot_widget.h"
#include "widgets/plots/plot_export_button.h"

namespace mixerlab::widgets {

namespace {
// Log-axis ticks labelled uniformly as powers of ten ("10⁹", "10¹²", "10⁻³"); the stock labels
// mixed "10⁹" with "1·10¹²". A tick that is not a power of ten reads "m·10ᵏ".
class PowerOfTenTicker : public QCPAxisTickerLog {
 protected:
  QString getTickLabel(double tick, const QLocale& locale, QChar format, int precision) override {
    if (!(tick > 0)) return QCPAxisTickerLog::getTickLabel(tick, locale, format, precision);
    const int exponent = static_cast<int>(std::floor(std::log10(tick) + 1e-9));
    const double mantissa = tick / std::pow(10.0, exponent);
    static const QString kSuperscripts = QStringLiteral("⁰¹²³⁴⁵⁶⁷⁸⁹");
    QString power = QStringLiteral("10");
    if (exponent < 0) power += QChar(0x207B);  // superscript minus
    for (const QChar digit : QString::number(std::abs(exponent))) power += kSuperscripts[digit.digitValue()];
    if (std::abs(mantissa - 1.0) < 1e-6) return power;
    return QString::number(mantissa, 'g', 3) + QChar(0x00B7) + power;
  }
};

void applyLogScale(QCPAxis* axis, bool on) {
  axis->setScaleType(on ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
  if (on) {
    axis->setTicker(QSharedPointer<QCPAxisTickerLog>(new PowerOfTenTicker));
  } else {
    axis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
  }
}
}  // namespace

void LossPlotWidget::buildControls() {
  metric_box_ = new QComboBox(this);
  metric_box_->setObjectName("metric-box");
  metric_box_->setToolTip("The metric this panel plots: any metric the runs log");
  metric_box_->addItem(metricLabel(kLossMetric), kLossMetric);
  for (const char* key : {"lr", "tokens_per_s", "grad_norm"}) metric_box_->addItem(metricLabel(key), QString(key));
  connect(metric_box_, &QComboBox::currentIndexChanged, this,
          [this](int i) { setMetric(metric_box_->itemData(i).toString()); });
  axis_box_ = new QComboBox(this);
  axis_box_->setObjectName("axis-box");
  for (LossAxis a : {LossAxis::Step, LossAxis::Tokens, LossAxis::WallSeconds, LossAxis::Flops})
    axis_box_->addItem(lossAxisLabel(a));
  axis_box_->setToolTip("FLOPs: estimated training compute, to compare runs at equal compute");
  log_x_ = new QCheckBox("log x", this);
  log_y_ = new QCheckBox("log y", this);
  smoothing_box_ = new QComboBox(this);
  smoothing_box_->addItems({"no smoothing", "EMA", "moving average"});
  ema_weight_ = new QDoubleSpinBox(this);
  ema_weight_->setRange(0.0, 0.999);
  ema_weight_->setDecimals(3);
  ema_weight_->setSingleStep(0.01);
  ema_weight_->setValue(smoothing_.ema_weight);
  ema_weight_->setToolTip(
      "EMA weight b per training step (bias-corrected): points logged k steps apart decay by "
      "b^k, so the curve does not depend on how often the run logs");
  window_ = new QSpinBox(this);
  window_->setRange(1, 100000);
  window_->setValue(smoothing_.window_points);
  window_->setSuffix(" pts");
  window_->setToolTip("moving-average window in points");
  centred_ = new QCheckBox("centred", this);
  centred_->setChecked(smoothing_.centred);
  auto* reset = new QPushButton("Reset view", this);
  PlotWriters writers;
  writers.svg = [this](const QString& p) { return exportSvg(p); };
  writers.png = [this](const QString& p) { return exportPng(p); };
  writers.csv = [this](const QString& p) { return exportCsv(p); };
  QToolButton* export_button = makeExportButton(this, "loss plot", writers);

  auto* controls = new QHBoxLayout;
  controls->setContentsMargins(6, 4, 6, 0);
  controls->addWidget(metric_box_);
  controls->addWidget(new QLabel("x axis:", this));
  controls->addWidget(axis_box_);
  controls->addWidget(log_x_);
  controls->addWidget(log_y_);
  controls->addSpacing(12);
  controls->addWidget(smoothing_box_);
  controls->addWidget(ema_weight_);
  controls->addWidget(window_);
  controls->addWidget(centred_);
  controls->addStretch();
  controls->addWidget(reset);
  controls->addWidget(export_button);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addLayout(controls);

  auto show_smoothing_controls = [this] {
    ema_weight_->setVisible(smoothing_.kind == SmoothingKind::Ema);
    window_->setVisible(smoothing_.kind == SmoothingKind::MovingAverage);
    centred_->setVisible(smoothing_.kind == SmoothingKind::MovingAverage);
  };
  show_smoothing_controls();
  auto read_smoothing = [this, show_smoothing_controls] {
    smoothing_.kind = static_cast<SmoothingKind>(smoothing_box_->currentIndex());
    smoothing_.ema_weight = ema_weight_->value();
    smoothing_.window_points = window_->value();
    smoothing_.centred = centred_->isChecked();
    show_smoothing_controls();
    redraw();
    Q_EMIT viewSettingsChanged();
  };
  connect(smoothing_box_, &QComboBox::currentIndexChanged, this, read_smoothing);
  connect(ema_weight_, &QDoubleSpinBox::valueChanged, this, read_smoothing);
  connect(window_, &QSpinBox::valueChanged, this, read_smoothing);
  connect(centred_, &QCheckBox::toggled, this, read_smoothing);
  connect(axis_box_, &QComboBox::currentIndexChanged, this, [this](int i) { setAxis(static_cast<LossAxis>(i)); });
  connect(log_x_, &QCheckBox::toggled, this, [this](bool on) {
    applyLogScale(plot_->xAxis, on);
    user_view_ = false;  // the old range means nothing on the new scale
    redraw();
    Q_EMIT viewSettingsChanged();
  });
  connect(log_y_, &QCheckBox::toggled, this, [this](bool on) {
    applyLogScale(plot_->yAxis, on);
    user_view_ = false;
    redraw();
    Q_EMIT viewSettingsChanged();
  });
  connect(reset, &QPushButton::clicked, this, &LossPlotWidget::resetView);
}

void LossPlotWidget::setAxis(LossAxis axis) {
  if (axis != axis_) user_view_ = false;  // a range in steps is meaningless in tokens
  axis_ = axis;
  if (axis_box_->currentIndex() != static_cast<int>(axis)) axis_box_->setCurrentIndex(static_cast<int>(axis));
  redraw();
  Q_EMIT viewSettingsChanged();
}

void LossPlotWidget::setMetric(const QString& metric) {
  if (metric_box_->findData(metric) < 0) metric_box_->addItem(metricLabel(metric), metric);
  const bool changed = metric != metric_;
  metric_ = metric;
  if (changed) user_view_ = false;  // a range of losses means nothing for the learning rate
  {
    const QSignalBlocker quiet(metric_box_);
    metric_box_->setCurrentIndex(metric_box_->findData(metric));
  }
  redraw();
  if (changed) Q_EMIT viewSettingsChanged();
}

void LossPlotWidget::showContextMenu(const QPoint& pixel) {
  QString run;
  double step = 0;
  QMenu menu(this);
  if (pointAt(pixel.x(), pixel.y(), &run, &step)) {
    menu.addAction(QString("Fork %1 from step %2…").arg(run).arg(qint64(step)), this,
                   [this, run, step] { Q_EMIT forkRequested(run, step); });
  }
  menu.addAction("Reset view", this, &LossPlotWidget::resetView);
  menu.exec(plot_->mapToGlobal(pixel));
}

void LossPlotWidget::setSmoothing(const Smoothing& smoothing) {
  const QSignalBlocker b1(smoothing_box_), b2(ema_weight_), b3(window_), b4(centred_);
  smoothing_box_->setCurrentIndex(static_cast<int>(smoothing.kind));
  ema_weight_->setValue(smoothing.ema_weight);
  window_->setValue(smoothing.window_points);
  centred_->setChecked(smoothing.centred);
  smoothing_ = smoothing;
  smoothing_.ema_weight = ema_weight_->value();  // clamped to the spin box range
  smoothing_.window_points = window_->value();
  ema_weight_->setVisible(smoothing_.kind == SmoothingKind::Ema);
  window_->setVisible(smoothing_.kind == SmoothingKind::MovingAverage);
  centred_->setVisible(smoothing_.kind == SmoothingKind::MovingAverage);
  redraw();
  Q_EMIT viewSettingsChanged();
}

}  // namespace mixerlab::widgets
