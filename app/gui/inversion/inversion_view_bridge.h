// Converts the core's inversion results into the plain data the inversion widgets draw: a model's
// recovered tokens as a diff row, its Hamming distances per layer as a chart series, its descent as
// a loss curve, and an over-training grid as a heatmap.
#pragma once
#include <QString>
#include <vector>

#include "core/analysis/inversion.h"
#include "core/analysis/inversion_over_training.h"
#include "widgets/inversion/inversion_heatmap.h"
#include "widgets/inversion/inversion_layer_chart.h"
#include "widgets/inversion/inversion_loss_plot.h"
#include "widgets/inversion/inversion_token_view.h"

namespace mixerlab::gui {

widgets::InversionDiffRow toDiffRow(const InversionResult& result, const QString& model, int top_k);

// The model's finished layers (cancelled ones left out: their descent stopped early).
widgets::InversionLayerSeries toLayerSeries(const std::vector<InversionResult>& results, const QString& model);

// The descent at one layer, relative to the summed |target| (empty curve when the layer is absent).
widgets::InversionLossCurve toLossCurve(const std::vector<InversionResult>& results, int layer, const QString& model,
                                        const QColor& colour);

// Rows = layers, columns = "untrained" then the steps; columns not reached are NaN.
widgets::InversionGridView toGridView(const InversionOverTraining& grid, bool exact, int top_k);

}  // namespace mixerlab::gui
