// Project files on disk (see project_file.h).
#include "app/gui/project/project_file.h"

#include <QDir>
#include <QFileInfo>

#include "app/gui/project/project_settings_schema.h"
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
  const auto arm = [](ResearchArm which, nlohmann::json model) {
    model["arch"] = researchArmArchitecture(which);
    return nlohmann::json{{"name", researchArmName(which)}, {"model", model}};
  };
  // The research's pair at the demo's laptop size; the budget sits in the defaults, so the
  // project settings change it for both runs.
  nlohmann::json document = {
      {"name", QFileInfo(folder).fileName().toStdString()},
      {"corpus",
       {{"train", projectRelativePath(folder, corpus_file).toStdString()},
        {"eval_fraction", CorpusConfig{}.eval_fraction}}},
      {"tokenizer", {{"vocab_size", kNewProjectVocabulary}}},
      {"defaults",
       {{"model", {{"context_length", 128}}},
        {"train",
         {{"max_steps", kNewProjectSteps}, {"warmup_steps", 30}, {"eval_every", 50}, {"checkpoint_every", 50}}}}},
      {"runs",
       {arm(ResearchArm::kMixer, {{"d_model", 256}, {"n_layers", 4}}),
        arm(ResearchArm::kTransformer, {{"d_model", 128}, {"n_layers", 4}, {"n_heads", 4}})}}};
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
