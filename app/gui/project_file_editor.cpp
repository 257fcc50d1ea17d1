// Project file edits for the GUI (see project_file_editor.h).
#include "app/gui/project_file_editor.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonDocument>

#include <nlohmann/json.hpp>

#include "core/config/project_config.h"
#include "core/util/atomic_file.h"

namespace mixerlab::gui {

namespace {
nlohmann::json toJson(const QJsonValue& v) {
  return nlohmann::json::parse(QJsonDocument(QJsonArray{v}).toJson(QJsonDocument::Compact).toStdString()).at(0);
}

QJsonValue fromJson(const nlohmann::json& j) {
  return QJsonDocument::fromJson(QByteArray::fromStdString(nlohmann::json::array({j}).dump())).array().at(0);
}

// Validates with the core parser, then writes atomically.
QString writeValidated(const QString& project_file, const nlohmann::json& document) {
  try {
    parseProject(document, project_file.toStdString());
    writeFileAtomic(project_file.toStdString(), document.dump(2) + "\n");
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
  return {};
}
}  // namespace

QJsonArray readProjectRuns(const QString& project_file, QString* error) {
  try {
    const auto document = nlohmann::json::parse(readFile(project_file.toStdString()));
    return fromJson(document.value("runs", nlohmann::json::array())).toArray();
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
  }
  return {};
}

QString upsertProjectRun(const QString& project_file, const QJsonObject& run, const QString& replace_name) {
  nlohmann::json document;
  try {
    document = nlohmann::json::parse(readFile(project_file.toStdString()));
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
  const std::string target = (replace_name.isEmpty() ? run.value("name").toString() : replace_name).toStdString();
  auto& runs = document["runs"];
  bool replaced = false;
  for (auto& r : runs) {
    if (r.value("name", "") == target) {
      r = toJson(run);
      replaced = true;
    }
  }
  if (!replaced) runs.push_back(toJson(run));
  return writeValidated(project_file, document);
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
       {{{"name", "mixer"},
         {"model", {{"arch", "masked_mixer"}, {"d_model", 256}, {"n_layers", 4}, {"context_length", 128}}},
         {"train", {{"max_steps", 1000}, {"warmup_steps", 50}, {"eval_every", 100}}}}}}};
  const QString error = writeValidated(file, document);
  if (error.isEmpty() && project_file) *project_file = file;
  return error;
}

}  // namespace mixerlab::gui
