// Project-settings schema, validation and saving over the core (see project_settings_schema.h).
#include "app/gui/project/project_settings_schema.h"

#include <QDir>
#include <QFileInfo>
#include <QJsonArray>
#include <QRegularExpression>
#include <QSet>

#include "app/gui/common/form_field.h"
#include "app/gui/common/json_bridge.h"
#include "core/config/config_schema.h"
#include "core/config/project_config.h"
#include "core/util/error.h"
#include "widgets/forms/config_form.h"

namespace mixerlab::gui {

using widgets::ConfigForm;
using widgets::FieldSpec;

namespace {

QSet<QString> schemaKeys() {
  static const QSet<QString> keys = [] {
    QSet<QString> out;
    for (const FieldSpec& f : projectSettingsSchema()) out.insert(f.key);
    return out;
  }();
  return keys;
}

// A parser error as (settings key, message). "<file>: corpus.eval: ..." names its field;
// "<file>: runs[2].train.batch_size: ..." is a default of the settings when they set one, else a
// problem of that run (named) that the settings cause or keep.
QPair<QString, QString> settingsError(const MixerLabError& e, const ProjectSource& project,
                                      const QJsonObject& settings) {
  QString problem = QString::fromStdString(e.problem());
  if (problem.startsWith(project.file + ": ")) problem = problem.mid(project.file.size() + 2);
  const QString fix = QString::fromStdString(e.fix());
  const QString message_end = fix.isEmpty() ? QString() : " (fix: " + fix + ")";
  const int colon = problem.indexOf(": ");
  const QString where = colon > 0 ? problem.left(colon) : QString();
  const QString what = colon > 0 ? problem.mid(colon + 2) : problem;
  if (schemaKeys().contains(where)) return {where, what + message_end};
  static const QRegularExpression run_field("^runs\\[(\\d+)\\](?:\\.(.*))?$");
  if (const auto match = run_field.match(where); match.hasMatch()) {
    const QString field = match.captured(2);
    const QString default_key = "defaults." + field;
    if (!field.isEmpty() && !ConfigForm::valueAt(settings, default_key).isUndefined() &&
        schemaKeys().contains(default_key)) {
      return {default_key, what + message_end};
    }
    const QJsonArray runs = project.document.value("runs").toArray();
    const int index = match.captured(1).toInt();
    const QString name = index < runs.size() ? runs[index].toObject().value("name").toString() : QString();
    return {
        QString(),
        QString("run \"%1\"%2: %3%4").arg(name, field.isEmpty() ? QString() : " (" + field + ")", what, message_end)};
  }
  return {QString(), problem + message_end};
}

// Removes the objects left empty by removed keys (deepest first), unless `initial` had them.
void dropEmptySections(QJsonObject& object, const QJsonObject& initial) {
  for (const QString& key : object.keys()) {
    if (!object.value(key).isObject()) continue;
    QJsonObject child = object.value(key).toObject();
    dropEmptySections(child, initial.value(key).toObject());
    if (child.isEmpty() && !initial.contains(key)) {
      object.remove(key);
    } else {
      object.insert(key, child);
    }
  }
}

}  // namespace

QVector<FieldSpec> projectSettingsSchema() {
  QVector<FieldSpec> out = toFormFields(projectFieldSpecs());
  for (FieldSpec& f : out) {
    // The parser fills these in when the file leaves them out; the form shows them empty.
    if (f.key == "name") f.help += " (empty: the project folder's name)";
  }
  for (const auto& spec : runFieldSpecs()) {
    FieldSpec f = toFormField(spec);
    const bool every_family = f.visible_for_arch.isEmpty();
    const bool training = f.key.startsWith("train.");
    if (!every_family || !(training || f.key == "model.context_length")) continue;
    f.key = "defaults." + f.key;
    f.group = (training ? "Defaults for every run: " : "Defaults for every run: model ") + f.group;
    f.help = "inherited by every run that does not set it; " + f.help;
    out.push_back(f);
  }
  return out;
}

QJsonObject projectSettingsOf(const QJsonObject& document) {
  QJsonObject settings = document;
  settings.remove("runs");
  return settings;
}

QMap<QString, QString> validateProjectSettings(const QJsonObject& settings, const ProjectSource& project) {
  // The parser stops at the first problem; to show them all, the field it named is left out (its
  // default) and the settings are checked again, until they pass or a problem names no field.
  QMap<QString, QString> errors;
  if (!project.error.isEmpty()) {
    errors.insert(QString(), project.error);
    return errors;
  }
  QJsonObject remaining = settings;
  for (int attempt = 0; attempt < 32; ++attempt) {
    QJsonObject document = remaining;
    document["runs"] = project.document.value("runs");
    try {
      parseProject(toNlohmann(document), project.file.toStdString(), CorpusFiles::MustExist);
      return errors;
    } catch (const MixerLabError& e) {
      const auto [key, message] = settingsError(e, project, remaining);
      if (errors.contains(key)) return errors;
      errors.insert(key, message);
      if (key.isEmpty()) return errors;
      if (key == "corpus.train") {  // required: the rest is checked with the file's own training text
        const QJsonValue own = ConfigForm::valueAt(project.document, key);
        if (own.isUndefined() || own == ConfigForm::valueAt(remaining, key)) return errors;
        ConfigForm::setValueAt(remaining, key, own);
        continue;
      }
      ConfigForm::removeValueAt(remaining, key);
    } catch (const std::exception& e) {
      errors.insert(QString(), QString::fromStdString(e.what()));
      return errors;
    }
  }
  return errors;
}

QJsonObject settingsToSave(const QJsonObject& form_values, const QJsonObject& initial,
                           const QVector<FieldSpec>& schema) {
  QJsonObject out = form_values;
  for (const FieldSpec& f : schema) {
    const QJsonValue now = ConfigForm::valueAt(form_values, f.key);
    if (now.isUndefined() || !ConfigForm::valueAt(initial, f.key).isUndefined()) continue;
    const QJsonValue fallback = QJsonValue::fromVariant(f.default_value);
    if (sameSettingValue(now, fallback)) ConfigForm::removeValueAt(out, f.key);
  }
  // An emptied optional text (no eval file, no ready-made tokenizer) is left out, not written as "".
  for (const FieldSpec& f : schema) {
    const QJsonValue now = ConfigForm::valueAt(out, f.key);
    if (f.type == FieldSpec::Text && now.isString() && now.toString().isEmpty()) ConfigForm::removeValueAt(out, f.key);
  }
  dropEmptySections(out, initial);
  return out;
}

QString projectRelativePath(const QString& project_folder, const QString& file) {
  const QString absolute = QFileInfo(file).absoluteFilePath();
  const QString relative = QDir(QFileInfo(project_folder).absoluteFilePath()).relativeFilePath(absolute);
  return relative.startsWith("..") || QFileInfo(relative).isAbsolute() ? absolute : relative;
}

}  // namespace mixerlab::gui
