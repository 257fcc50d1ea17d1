// The open project, its validated view and its undoable edits (see project_document.h).
#include "app/gui/project/project_document.h"

#include <QFileInfo>
#include <QJsonArray>
#include <QRegularExpression>
#include <QUndoStack>

#include "app/gui/common/json_bridge.h"
#include "app/gui/project/project_edit_command.h"
#include "app/gui/project/project_file.h"
#include "core/config/project_config.h"
#include "core/config/project_text_edit.h"
#include "core/util/atomic_file.h"

namespace mixerlab::gui {

ProjectDocument::ProjectDocument(QObject* parent) : QObject(parent), undo_stack_(new QUndoStack(this)) {}

ProjectDocument::~ProjectDocument() = default;

QString ProjectDocument::open(const QString& project_file) {
  const QString path = QFileInfo(project_file).absoluteFilePath();
  ProjectSnapshot loaded;
  try {
    if (!QFileInfo::exists(path)) return "project file " + path + " does not exist";
    const std::string text = readFile(path.toStdString());  // read once: the view and the JSON agree
    // A project whose corpus is not downloaded yet (e.g. the paper presets) still opens, lists its
    // runs and can be edited; training it fails with the trainer's message naming the file.
    loaded.parsed =
        std::make_shared<const ProjectConfig>(parseProjectText(text, path.toStdString(), CorpusFiles::MayBeMissing));
    loaded.file_text = QByteArray::fromStdString(text);
    loaded.json = toQtObject(nlohmann::json::parse(text));
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
  file_path_ = path;
  current_ = loaded;
  undo_stack_->clear();
  Q_EMIT opened();
  return {};
}

QString ProjectDocument::name() const { return isOpen() ? QString::fromStdString(parsed()->name) : QString(); }

QString ProjectDocument::runsDirectory() const {
  return isOpen() ? QString::fromStdString(parsed()->defaultRunsDirectory().string()) : QString();
}

QVector<ProjectRunSummary> ProjectDocument::runs() const {
  QVector<ProjectRunSummary> out;
  if (!isOpen()) return out;
  for (const auto& run : parsed()->runs)
    out.push_back({QString::fromStdString(run.name), QString::fromStdString(run.model.arch)});
  return out;
}

QStringList ProjectDocument::runNames() const {
  QStringList names;
  for (const auto& run : runs()) names << run.name;
  return names;
}

int ProjectDocument::runIndex(const QString& run_name) const {
  const QJsonArray runs = current_.json.value("runs").toArray();
  for (int i = 0; i < runs.size(); ++i) {
    if (runs[i].toObject().value("name").toString() == run_name) return i;
  }
  return -1;
}

QJsonObject ProjectDocument::run(const QString& run_name) const {
  const int index = runIndex(run_name);
  return index < 0 ? QJsonObject() : current_.json.value("runs").toArray().at(index).toObject();
}

QJsonObject ProjectDocument::resolvedRun(const QString& run_name, QString* error) const {
  if (!isOpen()) {
    if (error) *error = "no project is open";
    return {};
  }
  try {
    return toQtObject(parsed()->run(run_name.toStdString()).toJson());
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
    return {};
  }
}

QString ProjectDocument::prepare(const QJsonObject& json, ProjectSnapshot* snapshot,
                                 const std::string& file_text) const {
  const nlohmann::json document = toNlohmann(json);
  try {
    snapshot->parsed = std::make_shared<const ProjectConfig>(
        parseProject(document, file_path_.toStdString(), CorpusFiles::MayBeMissing));
  } catch (const std::exception& e) {
    return QString::fromStdString(e.what());
  }
  snapshot->json = json;
  // The spliced text must say exactly what `json` says; if it ever did not, write the whole
  // document in MixerLab's format instead (never a file that differs from what was validated).
  bool spliced_ok = !file_text.empty();
  if (spliced_ok) {
    try {
      spliced_ok = nlohmann::json::parse(file_text) == document;
    } catch (const std::exception&) {
      spliced_ok = false;
    }
  }
  snapshot->file_text = QByteArray::fromStdString(spliced_ok ? file_text : projectFileText(document));
  return {};
}

QString ProjectDocument::edit(const QJsonObject& json, const QString& undo_text, const std::string& file_text) {
  if (!isOpen()) return "open a project first";
  ProjectSnapshot after;
  QString error = prepare(json, &after, file_text);
  if (error.isEmpty()) error = writeProjectFile(file_path_, after.file_text.toStdString());
  if (!error.isEmpty()) return error;
  ProjectSnapshot before = current_;
  current_ = after;
  undo_stack_->push(new ProjectEditCommand(this, std::move(before), std::move(after), undo_text));
  Q_EMIT edited();
  return {};
}

void ProjectDocument::restore(const ProjectSnapshot& snapshot) {
  const QString error = writeProjectFile(file_path_, snapshot.file_text.toStdString());
  if (!error.isEmpty()) {
    Q_EMIT writeFailed(error);
    return;
  }
  current_ = snapshot;
  Q_EMIT edited();
}

namespace {
// A run as the file shows it: name, then model (arch first), train, then anything else.
nlohmann::ordered_json orderedRun(const QJsonObject& run) {
  const nlohmann::json plain = toNlohmann(run);
  nlohmann::ordered_json out = nlohmann::ordered_json::object();
  if (plain.contains("name")) out["name"] = plain.at("name");
  if (plain.contains("model")) {
    const nlohmann::json& model = plain.at("model");
    nlohmann::ordered_json ordered_model = nlohmann::ordered_json::object();
    if (model.is_object() && model.contains("arch")) ordered_model["arch"] = model.at("arch");
    if (model.is_object()) {
      for (const auto& [key, value] : model.items()) {
        if (key != "arch") ordered_model[key] = nlohmann::ordered_json::parse(value.dump());
      }
    }
    out["model"] = model.is_object() ? ordered_model : nlohmann::ordered_json::parse(model.dump());
  }
  for (const auto& [key, value] : plain.items()) {
    if (!out.contains(key)) out[key] = nlohmann::ordered_json::parse(value.dump());
  }
  return out;
}

std::string fileTextOrEmpty(const std::optional<std::string>& spliced) { return spliced ? *spliced : std::string(); }
}  // namespace

QString ProjectDocument::addRun(const QJsonObject& run, const QString& undo_text) {
  QJsonObject json = current_.json;
  QJsonArray runs = json.value("runs").toArray();
  runs.append(run);
  json["runs"] = runs;
  return edit(json, undo_text.isEmpty() ? "add run " + run.value("name").toString() : undo_text,
              fileTextOrEmpty(spliceAddRun(current_.file_text.toStdString(), orderedRun(run))));
}

QString ProjectDocument::checkNewRuns(const QVector<QJsonObject>& runs) const {
  if (!isOpen()) return "open a project first";
  QJsonObject json = current_.json;
  QJsonArray all = json.value("runs").toArray();
  for (const QJsonObject& run : runs) all.append(run);
  json["runs"] = all;
  ProjectSnapshot unused;
  QString error = prepare(json, &unused);
  // "<file>: runs[7].model.d_model: ..." names a run the file does not have yet: name it instead.
  const int first_new = static_cast<int>(all.size() - runs.size());
  const QRegularExpression where("^.*?runs\\[(\\d+)\\]\\.");
  if (const auto match = where.match(error); match.hasMatch() && match.captured(1).toInt() >= first_new) {
    const int k = match.captured(1).toInt() - first_new;
    error = (runs.size() == 1 ? QString() : runs[k].value("name").toString() + ": ") + error.mid(match.capturedEnd());
  }
  return error;
}

QString ProjectDocument::replaceRun(const QString& run_name, const QJsonObject& run) {
  const int index = runIndex(run_name);
  if (index < 0) return "the project has no run named \"" + run_name + "\"";
  QJsonObject json = current_.json;
  QJsonArray runs = json.value("runs").toArray();
  runs[index] = run;
  json["runs"] = runs;
  return edit(json, "edit run " + run_name,
              fileTextOrEmpty(spliceReplaceRun(current_.file_text.toStdString(), index, orderedRun(run))));
}

QString ProjectDocument::duplicateRun(const QString& run_name, const QString& new_name) {
  const int index = runIndex(run_name);
  if (index < 0) return "the project has no run named \"" + run_name + "\"";
  QJsonObject copy = run(run_name);
  copy["name"] = new_name;
  return addRun(copy, "duplicate run " + run_name + " as " + new_name);
}

QString ProjectDocument::removeRun(const QString& run_name) {
  const int index = runIndex(run_name);
  if (index < 0) return "the project has no run named \"" + run_name + "\"";
  QJsonObject json = current_.json;
  QJsonArray runs = json.value("runs").toArray();
  runs.removeAt(index);
  json["runs"] = runs;
  return edit(json, "remove run " + run_name,
              fileTextOrEmpty(spliceRemoveRun(current_.file_text.toStdString(), index)));
}

QString ProjectDocument::replaceSettings(const QJsonObject& settings) {
  if (!isOpen()) return "open a project first";
  QJsonObject json = settings;
  json.remove("runs");
  json["runs"] = current_.json.value("runs");
  // Only the settings' text changes: the runs keep their bytes (prepare() falls back to MixerLab's
  // own format if the splice ever disagreed with `json`).
  std::string text;
  try {
    const auto original = nlohmann::ordered_json::parse(current_.file_text.toStdString());
    const auto updated = keepKeyOrder(original, nlohmann::ordered_json::parse(toNlohmann(json).dump()));
    text = fileTextOrEmpty(spliceReplaceDocument(current_.file_text.toStdString(), updated));
  } catch (const std::exception&) {
    text.clear();
  }
  return edit(json, "edit project settings", text);
}

}  // namespace mixerlab::gui
