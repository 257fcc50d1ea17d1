// The loss plot's control row: x axis, log x / log y, smoothing (none / EMA weight / moving-average
// window, centred or trailing), reset view and export. Part of LossPlotWidget (see its header).
#include <qcustomplot.h>
#include <QCheckBox>
#include <QComboBox>
#include <QDoubleSpinBox>
#include <QFileDialog>
#include <QHBoxLayout>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QSpinBox>
#include <QToolButton>
#include <QVBoxLayout>

#include "widgets/loss_plot_widget.h"

namespace mixerlab::widgets {

namespace {
void applyLogScale(QCPAxis* axis, bool on) {
  axis->setScaleType(on ? QCPAxis::stLogarithmic : QCPAxis::stLinear);
  if (on) {
    axis->setTicker(QSharedPointer<QCPAxisTickerLog>(new QCPAxisTickerLog));
  } else {
    axis->setTicker(QSharedPointer<QCPAxisTicker>(new QCPAxisTicker));
  }
}
}  // namespace

void LossPlotWidget::buildControls() {
  axis_box_ = new QComboBox(this);
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
  ema_weight_->setToolTip("EMA weight b per training step (bias-corrected): points logged k steps apart decay by "
                          "b^k, so the curve does not depend on how often the run logs");
  window_ = new QSpinBox(this);
  window_->setRange(1, 100000);
  window_->setValue(smoothing_.window_points);
  window_->setSuffix(" pts");
  window_->setToolTip("moving-average window in points");
  centred_ = new QCheckBox("centred", this);
  centred_->setChecked(smoothing_.centred);
  auto* reset = new QPushButton("Reset view", this);
  auto* export_button = new QToolButton(this);
  export_button->setText("Export");
  export_button->setPopupMode(QToolButton::InstantPopup);
  auto* menu = new QMenu(export_button);
  auto ask = [this](const QString& filter, auto save) {
    const QString path = QFileDialog::getSaveFileName(this, "Export loss plot", QString(), filter);
    if (!path.isEmpty()) save(path);
  };
  menu->addAction("SVG…", this, [=] { ask("SVG (*.svg)", [this](const QString& p) { exportSvg(p); }); });
  menu->addAction("PNG…", this, [=] { ask("PNG (*.png)", [this](const QString& p) { exportPng(p); }); });
  menu->addAction("CSV…", this, [=] { ask("CSV (*.csv)", [this](const QString& p) { exportCsv(p); }); });
  export_button->setMenu(menu);

  auto* controls = new QHBoxLayout;
  controls->setContentsMargins(6, 4, 6, 0);
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
