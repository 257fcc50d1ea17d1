// The colour scale of generated tokens by model probability (five bands from "unlikely" red to
// "near certain" green, pale enough to read black text on) and the legend that explains it.
#pragma once
#include <QColor>
#include <QString>
#include <QVector>
#include <QWidget>

namespace mixerlab::widgets {

struct ProbabilityBand {
  double min_prob = 0;  // the band holds probabilities in [min_prob, the next band's min_prob)
  QColor color;
  QString label;  // e.g. "0.2-0.5"
};

// From the least likely band to the most likely.
const QVector<ProbabilityBand>& probabilityBands();
QColor tokenProbabilityColor(double prob);

// "token probability: [< 0.05] [0.05-0.2] ... [>= 0.8]" as coloured chips.
class TokenProbabilityLegend : public QWidget {
  Q_OBJECT
 public:
  explicit TokenProbabilityLegend(QWidget* parent = nullptr);
};

}  // namespace mixerlab::widgets
