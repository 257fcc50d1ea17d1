// Where "fork from here" on a point of the plot forks from: the run's newest complete checkpoint
// at or before the clicked step. Plain Qt types; the checkpoint listing is the core's.
#pragma once
#include <QString>

namespace mixerlab::gui {

// The checkpoint folder (runs/<run>/checkpoints/step-N) with the largest N <= step; empty and
// *error naming the reason when the run has none that early.
QString checkpointAtOrBefore(const QString& run_directory, double step, QString* error);

}  // namespace mixerlab::gui
