// Inversion results -> widget data (see inversion_view_bridge.h).
#include "app/gui/inversion/inversion_view_bridge.h"

#include <limits>

namespace mixerlab::gui {

widgets::InversionDiffRow toDiffRow(const InversionResult& r, const QString& model, int top_k) {
  widgets::InversionDiffRow row;
  row.model = model;
  row.layer = static_cast<int>(r.layer);
  row.hamming_top_k = r.hamming_top_k;
  row.hamming_exact = r.hamming_exact;
  row.top_k = top_k;
  row.cancelled = r.cancelled;
  for (const InvertedToken& t : r.tokens) {
    widgets::InvertedTokenView v;
    v.original_id = t.original_id;
    v.original = QString::fromStdString(t.original_text);
    v.reference_id = t.reference_id;
    for (size_t k = 0; k < t.candidates.size(); ++k) {
      v.candidate_ids.push_back(t.candidates[k]);
      v.candidates.push_back(QString::fromStdString(t.candidate_texts[k]));
    }
    v.reference_rank = t.reference_rank;
    v.counted = t.counted;
    v.exact = t.exact;
    v.top_k_match = t.top_k_match;
    row.tokens.push_back(v);
  }
  return row;
}

widgets::InversionLayerSeries toLayerSeries(const std::vector<InversionResult>& results, const QString& model) {
  widgets::InversionLayerSeries s;
  s.model = model;
  for (const InversionResult& r : results) {
    if (r.cancelled) continue;
    s.layers.push_back(static_cast<int>(r.layer));
    s.top_k.push_back(r.hamming_top_k);
    s.exact.push_back(r.hamming_exact);
  }
  return s;
}

widgets::InversionLossCurve toLossCurve(const std::vector<InversionResult>& results, int layer, const QString& model,
                                        const QColor& colour) {
  widgets::InversionLossCurve curve;
  curve.model = model;
  curve.colour = colour;
  QVector<double> sum;
  double target = 0;
  for (const InversionResult& r : results) {  // every input's curve at the layer, summed
    if (r.layer != layer) continue;
    target += r.target_l1;
    if (sum.size() < static_cast<int>(r.loss_curve.size())) sum.resize(static_cast<int>(r.loss_curve.size()));
    for (size_t i = 0; i < r.loss_curve.size(); ++i) sum[static_cast<int>(i)] += r.loss_curve[i];
  }
  for (double l : sum) curve.relative_l1.push_back(target > 0 ? l / target : l);
  return curve;
}

widgets::InversionGridView toGridView(const InversionOverTraining& grid, bool exact, int top_k) {
  widgets::InversionGridView view;
  view.metric =
      exact ? QObject::tr("mean Hamming distance, exact") : QObject::tr("mean Hamming distance, top-%1").arg(top_k);
  for (int64_t layer : grid.layers) view.layers.push_back(static_cast<int>(layer));
  for (size_t c = 0; c < grid.steps.size(); ++c) {
    view.columns.push_back(grid.checkpoints[c].empty() ? QObject::tr("untrained") : QString::number(grid.steps[c]));
  }
  const auto& values = exact ? grid.hamming_exact : grid.hamming_top_k;
  for (size_t l = 0; l < grid.layers.size(); ++l) {
    QVector<double> row(view.columns.size(), std::numeric_limits<double>::quiet_NaN());
    for (size_t c = 0; c < values[l].size() && c < grid.results.size(); ++c) {
      // A cancelled column's unfinished layers are not scores.
      bool finished = false;
      for (const InversionResult& r : grid.results[c])
        finished = finished || (r.layer == grid.layers[l] && !r.cancelled);
      if (finished) row[static_cast<int>(c)] = values[l][c];
    }
    view.values.push_back(row);
  }
  return view;
}

}  // namespace mixerlab::gui
