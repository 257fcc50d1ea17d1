// A column's model (see checkpoint_column.h).
#include "app/gui/common/checkpoint_column.h"

#include <filesystem>

#include "core/train/checkpoint.h"

namespace mixerlab::gui {

QString CheckpointColumn::label() const {
  return untrained ? checkpoint.run + " \u00b7 untrained" : checkpoint.label();
}

ModelSource CheckpointColumn::source() const {
  const std::string dir = checkpoint.checkpoint_dir.toStdString();
  return untrained ? ModelSource::untrainedLike(dir) : ModelSource::checkpoint(dir);
}

QString CheckpointColumn::key() const {
  if (!untrained) return checkpoint.checkpoint_dir;
  const bool in_a_run =
      std::filesystem::path(checkpoint.checkpoint_dir.toStdString()).parent_path().filename() == "checkpoints";
  return "untrained:" + (in_a_run ? checkpoint.run_dir : checkpoint.checkpoint_dir);
}

QString chooseCheckpointColumn(const QString& path, bool untrained, CheckpointColumn* column) {
  CheckpointChoice checkpoint;
  const QString error = chooseCheckpoint(path, &checkpoint);
  if (!error.isEmpty()) return error;
  try {
    const std::string dir = checkpoint.checkpoint_dir.toStdString();
    const nlohmann::json config = readCheckpointConfig(dir);
    if (!config.contains("model") || !config["model"].is_object()) {
      return QString::fromStdString(checkpointConfigFile(dir).string() +
                                    " has no \"model\" section: use a checkpoint written by mixerlab train");
    }
    CheckpointColumn c;
    c.checkpoint = checkpoint;
    c.untrained = untrained;
    c.depth = config.at("model").value("n_layers", 0);
    *column = c;
    return {};
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
}

}  // namespace mixerlab::gui
