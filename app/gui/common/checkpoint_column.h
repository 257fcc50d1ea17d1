// One column of a model-comparing tab (Generate, Inspect, Retrieve): a checkpoint, pinned when
// chosen (a run folder means its latest checkpoint at that moment), or its untrained twin (the
// same config and tokenizer, freshly initialised, as the research compares every trained model
// with), and its depth (block count: layers 0..depth) read from the checkpoint's config. Its key
// tells two columns of the same model apart from two different ones: the CheckpointPicker refuses
// a second column with a key already shown. Reads only small files, so it runs on the GUI thread.
#pragma once
#include <QString>

#include "app/gui/common/checkpoint_choice.h"
#include "core/analysis/model_source.h"

namespace mixerlab::gui {

struct CheckpointColumn {
  CheckpointChoice checkpoint;
  bool untrained = false;
  int depth = 0;
  QString label() const;  // "mixer · step 300" or "mixer · untrained"
  ModelSource source() const;
  // A trained column: its checkpoint folder. An untrained twin: "untrained:" and its run folder
  // (every checkpoint of a run has the same config, so the same twin), or the checkpoint folder
  // for a checkpoint that is not in a run's checkpoints/ folder.
  QString key() const;
};

// Resolves a run folder, its checkpoints/ folder or a checkpoint folder; `untrained` picks its
// twin. Returns an error message, empty on success.
QString chooseCheckpointColumn(const QString& path, bool untrained, CheckpointColumn* column);

}  // namespace mixerlab::gui
