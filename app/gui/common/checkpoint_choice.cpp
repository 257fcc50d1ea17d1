// Checkpoint choices for the model-comparing tabs (see checkpoint_choice.h).
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
    const fs::path run_dir = RunPaths::ofCheckpoint(dir).root;
    c.run_dir = QString::fromStdString(run_dir.string());
    c.run = QString::fromStdString(run_dir.filename().string());
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

QVector<CheckpointChoice> checkpointsOfRun(const QString& run_dir) {
  QVector<CheckpointChoice> out;
  if (run_dir.isEmpty()) return out;
  std::vector<fs::path> checkpoints;
  try {
    checkpoints = listCheckpoints(RunPaths{run_dir.toStdString()}.checkpoints());
  } catch (const std::exception&) {
    return out;  // an unreadable folder offers no checkpoint
  }
  for (const fs::path& checkpoint : checkpoints) {
    CheckpointChoice choice;
    if (chooseCheckpoint(QString::fromStdString(checkpoint.string()), &choice).isEmpty()) out.push_back(choice);
  }
  return out;
}

}  // namespace mixerlab::gui
