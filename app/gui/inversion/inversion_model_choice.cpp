// Models for the inversion inspector (see inversion_model_choice.h).
#include "app/gui/inversion/inversion_model_choice.h"

#include "core/train/checkpoint.h"

namespace mixerlab::gui {

QString InversionModelChoice::label() const {
  return untrained ? checkpoint.run + " \u00b7 untrained" : checkpoint.label();
}

ModelSource InversionModelChoice::source() const {
  const std::string dir = checkpoint.checkpoint_dir.toStdString();
  return untrained ? ModelSource::untrainedLike(dir) : ModelSource::checkpoint(dir);
}

QString chooseInversionModel(const QString& path, bool untrained, InversionModelChoice* choice) {
  CheckpointChoice checkpoint;
  const QString error = chooseCheckpoint(path, &checkpoint);
  if (!error.isEmpty()) return error;
  try {
    const nlohmann::json config = readCheckpointConfig(checkpoint.checkpoint_dir.toStdString());
    InversionModelChoice c;
    c.checkpoint = checkpoint;
    c.untrained = untrained;
    c.depth = config.at("model").value("n_layers", 0);
    *choice = c;
    return {};
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
}

}  // namespace mixerlab::gui
