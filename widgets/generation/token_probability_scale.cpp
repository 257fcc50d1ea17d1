// Token probability colours and their legend (see token_probability_scale.h).
#include "widgets/generation/token_probability_scale.h"

#include <QHBoxLayout>
#include <QLabel>

namespace mixerlab::widgets {

const QVector<ProbabilityBand>& probabilityBands() {
  static const QVector<ProbabilityBand> bands = {
      {0.0, QColor(248, 184, 184), "< 0.05"},     {0.05, QColor(252, 214, 170), "0.05-0.2"},
      {0.2, QColor(250, 236, 160), "0.2-0.5"},    {0.5, QColor(218, 240, 180), "0.5-0.8"},
      {0.8, QColor(184, 228, 190), "\u2265 0.8"},
  };
  return bands;
}

QColor tokenProbabilityColor(double prob) {
  const auto& bands = probabilityBands();
  QColor color = bands.front().color;
  for (const ProbabilityBand& band : bands) {
    if (prob >= band.min_prob) color = band.color;
  }
  return color;
}

TokenProbabilityLegend::TokenProbabilityLegend(QWidget* parent) : QWidget(parent) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->setSpacing(3);
  auto* title = new QLabel(tr("token probability:"), this);
  title->setToolTip(
      tr("The model's probability of each generated token (after the repetition penalty).\n"
         "Hover a token to see the five most likely tokens at that step."));
  layout->addWidget(title);
  for (const ProbabilityBand& band : probabilityBands()) {
    auto* chip = new QLabel(band.label, this);
    chip->setStyleSheet(QString("QLabel { background: %1; color: black; padding: 1px 5px; border-radius: 3px; }")
                            .arg(band.color.name()));
    layout->addWidget(chip);
  }
}

}  // namespace mixerlab::widgets
