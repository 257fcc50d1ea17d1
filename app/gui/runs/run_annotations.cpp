// Tags and notes per run (see run_annotations.h).
#include "app/gui/runs/run_annotations.h"

#include <QFile>
#include <QJsonArray>
#include <QJsonDocument>
#include <QJsonObject>
#include <QSaveFile>

namespace mixerlab::gui {

QString runAnnotationsPath(const QString& project_dir) { return project_dir + "/run_notes.json"; }

QMap<QString, RunAnnotation> readRunAnnotations(const QString& project_dir, QString* error) {
  QMap<QString, RunAnnotation> out;
  QFile file(runAnnotationsPath(project_dir));
  if (!file.exists()) return out;
  if (!file.open(QIODevice::ReadOnly)) {
    if (error) *error = "cannot read " + file.fileName() + ": " + file.errorString();
    return out;
  }
  QJsonParseError parse{};
  const QJsonDocument doc = QJsonDocument::fromJson(file.readAll(), &parse);
  if (!doc.isObject()) {
    if (error) *error = file.fileName() + " is not a JSON object (" + parse.errorString() + "): fix or delete it";
    return out;
  }
  const QJsonObject root = doc.object();
  for (auto it = root.begin(); it != root.end(); ++it) {
    const QJsonObject entry = it.value().toObject();
    RunAnnotation a;
    for (const QJsonValue& tag : entry.value("tags").toArray()) a.tags << tag.toString();
    a.notes = entry.value("notes").toString();
    out[it.key()] = a;
  }
  return out;
}

QString writeRunAnnotations(const QString& project_dir, const QMap<QString, RunAnnotation>& annotations) {
  QJsonObject root;
  for (auto it = annotations.cbegin(); it != annotations.cend(); ++it) {
    if (it->tags.isEmpty() && it->notes.isEmpty()) continue;
    QJsonObject entry;
    if (!it->tags.isEmpty()) entry["tags"] = QJsonArray::fromStringList(it->tags);
    if (!it->notes.isEmpty()) entry["notes"] = it->notes;
    root[it.key()] = entry;
  }
  QSaveFile file(runAnnotationsPath(project_dir));
  if (!file.open(QIODevice::WriteOnly)) return "cannot write " + file.fileName() + ": " + file.errorString();
  file.write(QJsonDocument(root).toJson(QJsonDocument::Indented));
  if (!file.commit()) return "cannot write " + file.fileName() + ": " + file.errorString();
  return {};
}

}  // namespace mixerlab::gui
