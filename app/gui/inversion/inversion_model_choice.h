// A model chosen for the inversion inspector: a checkpoint, pinned when chosen (a run folder means
// its latest checkpoint at that moment), or its untrained twin (the same config and tokenizer,
// freshly initialised, as the research compares every trained model with), and its depth (block
// count: layers 0..depth) read from the checkpoint's config. Reads only small files, so it runs on
// the GUI thread.
#pragma once
#include <QString>

#include "app/gui/common/checkpoint_choice.h"
#include "core/analysis/model_source.h"

namespace mixerlab::gui {

struct InversionModelChoice {
  CheckpointChoice checkpoint;
  bool untrained = false;
  int depth = 0;
  QString label() const;  // "mixer · step 300" or "mixer · untrained"
  ModelSource source() const;
};

// Resolves a run folder, its checkpoints/ folder or a checkpoint folder; `untrained` picks its
// twin. Returns an error message, empty on success.
QString chooseInversionModel(const QString& path, bool untrained, InversionModelChoice* choice);

}  // namespace mixerlab::gui
