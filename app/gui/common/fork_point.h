// Where "fork from here" on a point of the plot forks from: the run's newest complete checkpoint
// at or before the clicked step. Plain Qt types; the checkpoint listing is the core's.
#pragma once
#include <QString>
#include <QStringList>

namespace mixerlab::gui {

// The checkpoint folder (runs/<run>/checkpoints/step-N) with the largest N <= step; empty and
// *error naming the reason when the run has none that early.
QString checkpointAtOrBefore(const QString& run_directory, double step, QString* error);

// Every complete checkpoint folder of the run, oldest step first (what a fork can start from).
QStringList checkpointFolders(const QString& run_directory);

// The N of a ".../step-N" folder, -1 for any other name.
long long checkpointStep(const QString& checkpoint_folder);

}  // namespace mixerlab::gui
