// Builds the Scaling tab's data from the run list: the overlaid runs' eval points by training
// FLOPs, grouped by architecture, by architecture and width, or by every setting but the seed, each
// group with its Pareto frontier and power-law fit (core/runs/compute_points.h, power_law_fit.h).
#pragma once
#include <QVariantMap>
#include <QVector>
#include <functional>

#include "widgets/plots/compute_frontier_view.h"

namespace mixerlab::gui {

class RunListModel;

// The key a run is grouped under, from its flattened settings ("model.arch" -> "llama", ...).
QString frontierGroupKey(const QVariantMap& settings, widgets::FrontierGrouping grouping);

// `shown(run)`: whether a run is drawn (its checkbox and the table's filter); empty: the checkbox alone.
QVector<widgets::FrontierGroup> computeFrontierGroups(const RunListModel& runs, widgets::FrontierGrouping grouping,
                                                      const std::function<bool(const QString&)>& shown = {});

}  // namespace mixerlab::gui
