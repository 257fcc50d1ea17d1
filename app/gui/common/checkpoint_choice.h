// A checkpoint chosen for a column of the Generate, Inspect or Retrieve tab, pinned when chosen: a
// run folder means its latest checkpoint at that moment, so a run that trains on does not change a
// comparison under the user. Also lists the project's runs that have a checkpoint and every
// checkpoint of a run, for the "Add run" menu (checkpoint_picker.h). Reads only small files
// (latest.json, config.json), so it runs on the GUI thread.
#pragma once
#include <QString>
#include <QVector>

namespace mixerlab::gui {

struct CheckpointChoice {
  QString checkpoint_dir;  // the resolved checkpoint folder (runs/<run>/checkpoints/step-N)
  QString run_dir;         // the run folder that holds it (runs/<run>)
  QString run;             // the run folder's name
  QString step;            // e.g. "step 12"
  QString architecture;    // the model's arch from the checkpoint's config
  QString label() const { return run + " \u00b7 " + step; }
};

// Resolves a run folder, its checkpoints/ folder or a checkpoint folder. Returns an error message,
// empty on success.
QString chooseCheckpoint(const QString& path, CheckpointChoice* choice);

// The run folders under `runs_directory` that hold a checkpoint (their latest), sorted by name.
QVector<CheckpointChoice> runsWithCheckpoints(const QString& runs_directory);

// Every complete step-N checkpoint of the run folder `run_dir`, oldest first.
QVector<CheckpointChoice> checkpointsOfRun(const QString& run_dir);

}  // namespace mixerlab::gui
