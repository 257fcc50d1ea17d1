// Run-setup schema, validation and cost preview over the core (see run_config_schema.h).
#include "app/gui/project/run_config_schema.h"

#include <QStringList>
#include <algorithm>
#include <cmath>

#include "app/gui/common/form_field.h"
#include "app/gui/common/json_bridge.h"
#include "app/gui/project/project_file.h"
#include "core/analysis/format.h"
#include "core/config/config_schema.h"
#include "core/config/project_config.h"
#include "core/config/run_defaults.h"
#include "core/models/model_registry.h"
#include "core/train/device.h"
#include "core/util/error.h"
#include "widgets/tables/run_comparison.h"

namespace mixerlab::gui {

using widgets::FieldSpec;

namespace {

QString str(const std::string& s) { return QString::fromStdString(s); }

// A core field description as the form's plain FieldSpec, family options grouped apart.
FieldSpec formField(const mixerlab::FieldSpec& spec) {
  FieldSpec f = toFormField(spec);
  if (spec.key.rfind("model.options.", 0) == 0) f.group = "Family options: " + f.group;
  return f;
}

// Parses the project with `run` as its only run; throws what parseProject throws.
ProjectConfig parseWithRun(const QJsonObject& run, const ProjectSource& project) {
  if (!project.error.isEmpty()) throw MixerLabError(project.error.toStdString());
  nlohmann::json document = toNlohmann(project.document);
  document["runs"] = nlohmann::json::array({toNlohmann(run)});
  return parseProject(document, project.file.toStdString(), CorpusFiles::MayBeMissing);
}

// "file: runs[0].model.d_model: expected ..." -> {"model.d_model", "expected ..."}.
QPair<QString, QString> splitError(const MixerLabError& e, const QString& project_file) {
  QString problem = str(e.problem());
  const QString fix = str(e.fix());
  if (problem.startsWith(project_file + ": ")) problem = problem.mid(project_file.size() + 2);
  QString key;
  const QString run_prefix = "runs[0].";
  if (problem.startsWith(run_prefix)) {
    const int colon = problem.indexOf(": ");
    if (colon > 0) {
      key = problem.mid(run_prefix.size(), colon - run_prefix.size());
      problem = problem.mid(colon + 2);
    }
  } else if (problem.startsWith("runs[0]: ")) {
    problem = problem.mid(9);
  }
  if (!fix.isEmpty()) problem += " (fix: " + fix + ")";
  return {key, problem};
}

QString count(double n) { return str(formatCount(n)); }
QString flops(double v) { return str(formatFlops(v)); }
QString bytes(double v) { return str(formatBytes(v)); }

}  // namespace

QVector<FieldSpec> runSchema() {
  QVector<FieldSpec> out;
  for (const auto& spec : runFieldSpecs()) {
    FieldSpec f = formField(spec);
    // A key that families declare differently (gpt's dropout 0.1, transformer_autoencoder's 0.0)
    // is one field with a default per family.
    auto same = std::find_if(out.begin(), out.end(), [&](const FieldSpec& o) { return o.key == f.key; });
    if (f.key == "train.device") {  // a choice of what this machine has, not free text
      f.type = FieldSpec::Choice;
      f.choices.clear();
      for (const auto& device : availableDevices()) f.choices << str(device);
      f.help += "; listed: the devices LibTorch sees on this machine";
    }
    if (same == out.end()) {
      out.push_back(f);
      continue;
    }
    for (const auto& arch : f.visible_for_arch) {
      same->visible_for_arch << arch;
      if (f.default_value != same->default_value) same->default_for_arch.insert(arch, f.default_value);
    }
    same->help += "; " + f.visible_for_arch.join(", ") + ": " + f.help;
    same->min = std::min(same->min, f.min);
    same->max = std::max(same->max, f.max);
  }
  return out;
}

ProjectSource readProjectSource(const QString& project_file) {
  ProjectSource source;
  source.file = project_file;
  const nlohmann::json document = readProjectJson(project_file, &source.error);
  if (source.error.isEmpty()) source.document = toQtObject(document);
  return source;
}

QMap<QString, QString> validateRun(const QJsonObject& run, const QString& project_file) {
  return validateRun(run, readProjectSource(project_file));
}
QString costPreview(const QJsonObject& run, const QString& project_file) {
  return costPreview(run, readProjectSource(project_file));
}
QJsonObject withProjectDefaults(const QJsonObject& run, const QString& project_file) {
  return withProjectDefaults(run, readProjectSource(project_file));
}
QJsonObject resolvedRun(const QJsonObject& run, const QString& project_file, QString* error) {
  return resolvedRun(run, readProjectSource(project_file), error);
}

QMap<QString, QString> validateRun(const QJsonObject& run, const ProjectSource& project) {
  // The parser stops at the first problem. To show every problem at once, the field it named is
  // set back to what it would inherit and the run is checked again, until it passes or a problem
  // names no field (or one already reported).
  QMap<QString, QString> errors;
  QJsonObject remaining = run;
  for (int attempt = 0; attempt < 32; ++attempt) {
    try {
      parseWithRun(remaining, project);
      return errors;
    } catch (const MixerLabError& e) {
      const auto [key, message] = splitError(e, project.file);
      if (errors.contains(key)) return errors;
      errors.insert(key, message);
      if (key.isEmpty() || key == "name" || key == "model.arch") return errors;
      widgets::ConfigForm::removeValueAt(remaining, key);
    } catch (const std::exception& e) {
      errors.insert(QString(), QString::fromStdString(e.what()));
      return errors;
    }
  }
  return errors;
}

QJsonObject settingsThatDiffer(const QJsonObject& run, const QJsonObject& inherited) {
  QJsonObject out{{"name", run.value("name")}};
  widgets::ConfigForm::setValueAt(out, "model.arch", widgets::ConfigForm::valueAt(run, "model.arch"));
  const auto flat = widgets::flattenConfig(run);
  const auto base = widgets::flattenConfig(inherited);
  for (auto it = flat.cbegin(); it != flat.cend(); ++it) {
    if (it.key() == "name") continue;
    const QJsonValue mine = it.value(), theirs = base.value(it.key());
    if (!sameSettingValue(mine, theirs)) widgets::ConfigForm::setValueAt(out, it.key(), mine);
  }
  return out;
}

QString wallTimeEstimate(const QJsonObject& run, const ProjectSource& project, double training_flops_per_s,
                         int runs_measured) {
  if (training_flops_per_s <= 0)
    return "estimated wall time: no measured run yet (train a run here to measure this machine)";
  RunConfig rc;
  try {
    rc = parseWithRun(run, project).runs.at(0);
  } catch (const std::exception&) {
    return {};
  }
  const TrainConfig& t = rc.train;
  const double tokens_per_step = double(t.batch_size) * double(t.grad_accum_steps) * double(rc.model.context_length);
  double tokens = t.max_steps > 0 ? t.max_steps * tokens_per_step : 0;
  if (t.max_tokens > 0) tokens = tokens > 0 ? std::min(tokens, double(t.max_tokens)) : double(t.max_tokens);
  double seconds =
      tokens > 0 ? tokens * estimateCost(rc.model, t.batch_size).training_flops_per_token / training_flops_per_s : -1;
  if (t.max_wall_s > 0) seconds = seconds < 0 ? t.max_wall_s : std::min(seconds, t.max_wall_s);
  if (seconds < 0) return {};
  return QString("estimated wall time: %1 (this machine's measured %2 GFLOP/s over %3 runs; evals not counted)")
      .arg(str(formatDuration(seconds)))
      .arg(training_flops_per_s / 1e9, 0, 'f', 1)
      .arg(runs_measured);
}

QString costPreview(const QJsonObject& run, const ProjectSource& project) {
  RunConfig rc;
  try {
    rc = parseWithRun(run, project).runs.at(0);
  } catch (const std::exception&) {
    return "(no preview: fix the highlighted settings)";
  }
  const ModelCost c = estimateCost(rc.model, rc.train.batch_size);
  const double tokens_per_step =
      static_cast<double>(rc.train.batch_size) * rc.train.grad_accum_steps * rc.model.context_length;
  const double state = c.weight_bytes + c.gradient_bytes + c.optimizer_bytes;
  QStringList lines;
  auto line = [&](const QString& label, const QString& value) { lines << label.leftJustified(20) + value; };
  line("Parameters", count(c.parameters) + " (" + str(formatMetric(c.parameters)) + ")");
  line("Forward FLOPs", flops(c.forward_flops_per_token) + " / token");
  line("Training FLOPs", flops(c.training_flops_per_token) + " / token, " +
                             flops(c.training_flops_per_token * tokens_per_step) + " / step (" +
                             count(tokens_per_step) + " tokens)");
  if (rc.train.max_steps > 0) {
    line("Training budget", flops(c.training_flops_per_token * tokens_per_step * rc.train.max_steps) + " for " +
                                count(rc.train.max_steps) + " steps");
  }
  line("Activations", bytes(c.activation_bytes) + " (batch " + count(rc.train.batch_size) + " x " +
                          count(rc.model.context_length) + " tokens, fp32)");
  line("Weights", bytes(c.weight_bytes));
  line("Gradients", bytes(c.gradient_bytes));
  line("AdamW moments", bytes(c.optimizer_bytes));
  line("Training memory", bytes(state + c.activation_bytes) + " (weights + gradients + AdamW + activations)");
  return lines.join('\n');
}

QJsonObject withProjectDefaults(const QJsonObject& run, const ProjectSource& project) {
  if (!project.document.value("defaults").isObject()) return run;
  const nlohmann::json document = toNlohmann(project.document);
  const nlohmann::json run_json = toNlohmann(run);
  QJsonObject out = run;
  for (const QString section : {"model", "train"}) {
    if (run.contains(section) && !run.value(section).isObject()) continue;  // the validator reports it
    const QJsonObject merged =
        toQtObject(runSectionWithDefaults(document.at("defaults"), run_json, section.toStdString()));
    if (!merged.isEmpty()) out.insert(section, merged);
  }
  return out;
}

QJsonObject resolvedRun(const QJsonObject& run, const ProjectSource& project, QString* error) {
  try {
    return toQtObject(parseWithRun(run, project).runs.at(0).toJson());
  } catch (const std::exception& e) {
    if (error) *error = QString::fromStdString(e.what());
    return {};
  }
}

QJsonObject projectRun(const QString& project_file, const QString& run_name) {
  QString error;
  const nlohmann::json document = readProjectJson(project_file, &error);
  if (!error.isEmpty() || !document.contains("runs") || !document.at("runs").is_array()) return {};
  for (const auto& r : document.at("runs")) {
    if (r.is_object() && r.value("name", std::string()) == run_name.toStdString()) return toQtObject(r);
  }
  return {};
}

}  // namespace mixerlab::gui
