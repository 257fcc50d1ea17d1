// Project files on disk (see project_file.h).
#include "app/gui/project/project_file.h"

#include <QDir>
#include <QFileInfo>

#include "core/config/project_config.h"
#include "core/models/model_registry.h"
#include "core/util/atomic_file.h"
#include "core/util/json_document.h"

namespace mixerlab::gui {

nlohmann::json readProjectJson(const QString& project_file, QString* error) {
  std::string text;
  try {
    text = readFile(project_file.toStdString());
  } catch (const std::exception&) {
    *error = "cannot read project file " + project_file;
    return {};
  }
  try {
    // Converting a value nested deeper to Qt's JSON would overflow the stack.
    checkJsonDepth(text, project_file.toStdString());
    return nlohmann::json::parse(text);
  } catch (const std::exception& e) {
    *error = "project file " + project_file + " is not valid JSON: " + e.what();
    return {};
  }
}

std::string projectFileText(const nlohmann::json& document) { return document.dump(2) + "\n"; }

QString writeProjectFile(const QString& project_file, const std::string& text) {
  try {
    writeFileAtomic(project_file.toStdString(), text);
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}

QString createProject(const QString& folder, const QString& corpus_file, QString* project_file) {
  QDir().mkpath(folder);
  const QString file = QDir(folder).filePath("project.json");
  if (QFileInfo::exists(file)) return file + " already exists: open it instead";
  nlohmann::json document = {
      {"name", QFileInfo(folder).fileName().toStdString()},
      {"corpus", {{"train", QFileInfo(corpus_file).absoluteFilePath().toStdString()}, {"eval_fraction", 0.05}}},
      {"tokenizer", {{"vocab_size", 4096}}},
      {"runs",
       {{{"name", researchArmName(ResearchArm::kMixer)},
         {"model",
          {{"arch", researchArmArchitecture(ResearchArm::kMixer)},
           {"d_model", 256},
           {"n_layers", 4},
           {"context_length", 128}}},
         {"train", {{"max_steps", 1000}, {"warmup_steps", 50}, {"eval_every", 100}}}}}}};
  try {
    parseProject(document, file.toStdString());
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
  const QString error = writeProjectFile(file, projectFileText(document));
  if (error.isEmpty() && project_file) *project_file = file;
  return error;
}

}  // namespace mixerlab::gui
