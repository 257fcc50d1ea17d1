// Checkpoint choices for the generation panel (see checkpoint_choice.h).
#include "app/gui/common/checkpoint_choice.h"

#include <filesystem>

#include "core/runs/run_directory.h"
#include "core/train/checkpoint.h"
#include "core/util/error.h"

namespace mixerlab::gui {
namespace fs = std::filesystem;

QString chooseCheckpoint(const QString& path, CheckpointChoice* choice) {
  try {
    const fs::path dir = fs::absolute(resolveCheckpointDir(path.toStdString())).lexically_normal();
    const nlohmann::json config = readCheckpointConfig(dir);
    CheckpointChoice c;
    c.checkpoint_dir = QString::fromStdString(dir.string());
    c.run = QString::fromStdString(RunPaths::ofCheckpoint(dir).root.filename().string());
    const std::string folder = dir.filename().string();
    c.step = QString::fromStdString(folder);
    if (folder.rfind("step-", 0) == 0)
      c.step = "step " + QString::number(QString::fromStdString(folder.substr(5)).toLongLong());
    c.architecture = QString::fromStdString(config.value("model", nlohmann::json::object()).value("arch", "?"));
    *choice = c;
    return {};
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
}

QVector<CheckpointChoice> runsWithCheckpoints(const QString& runs_directory) {
  QVector<CheckpointChoice> out;
  if (runs_directory.isEmpty()) return out;
  for (const fs::path& run : listRunDirectories(runs_directory.toStdString())) {
    if (!latestCheckpoint(RunPaths{run}.checkpoints())) continue;
    CheckpointChoice choice;
    if (chooseCheckpoint(QString::fromStdString(run.string()), &choice).isEmpty()) out.push_back(choice);
  }
  return out;
}

}  // namespace mixerlab::gui
