// Run-setup schema, validation and cost preview over the core (see run_config_schema.h).
#include "app/gui/run_config_schema.h"

#include <QJsonDocument>
#include <QLocale>
#include <QStringList>
#include <cmath>
#include <fstream>
#include <sstream>

#include "app/gui/json_bridge.h"
#include "app/gui/project_file.h"
#include "core/config/project_config.h"
#include "core/config/run_defaults.h"
#include "core/models/state_space/mamba.h"
#include "core/models/mixers/mixer_options.h"
#include "core/models/model_registry.h"
#include "core/util/error.h"

namespace mixerlab::gui {

using widgets::FieldSpec;

namespace {

QStringList knownArchs(const QStringList& wanted) {
  QStringList out;
  for (const auto& a : architectures()) {
    if (wanted.contains(QString::fromStdString(a.name))) out << QString::fromStdString(a.name);
  }
  return out;
}

FieldSpec field(const QString& key, const QString& label, FieldSpec::Type type, const QVariant& def,
                const QString& group, const QString& help, double min = 0, double max = 0,
                const QStringList& choices = {}, const QStringList& archs = {}) {
  FieldSpec f;
  f.key = key;
  f.label = label;
  f.type = type;
  f.default_value = def;
  f.group = group;
  f.help = help;
  f.min = min;
  f.max = max;
  f.choices = choices;
  f.visible_for_arch = archs;
  return f;
}

QString str(const std::string& s) { return QString::fromStdString(s); }

// Parses the project with `run` as its only run; throws what parseProject throws.
ProjectConfig parseWithRun(const QJsonObject& run, const QString& project_file) {
  QString error;
  nlohmann::json document = readProjectJson(project_file, &error);
  if (!error.isEmpty()) throw MixerLabError(error.toStdString());
  document["runs"] = nlohmann::json::array({toNlohmann(run)});
  return parseProject(document, project_file.toStdString());
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

QString count(double n) { return QLocale(QLocale::English).toString(static_cast<qlonglong>(std::llround(n))); }

// Three significant digits in fixed notation ("5.51 MFLOP", "130 MiB", "0.986 GiB").
QString scaled(double v, const QStringList& units, double step) {
  int i = 0;
  while (std::fabs(v) >= 1000.0 && i + 1 < units.size()) {
    v /= step;
    ++i;
  }
  const double a = std::fabs(v);
  const int decimals = i == 0 && std::floor(v) == v ? 0 : a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
  return (QString::number(v, 'f', decimals) + " " + units[i]).trimmed();
}

QString flops(double v) { return scaled(v, {"FLOP", "KFLOP", "MFLOP", "GFLOP", "TFLOP", "PFLOP", "EFLOP"}, 1000.0); }
QString bytes(double v) { return scaled(v, {"B", "KiB", "MiB", "GiB", "TiB"}, 1024.0); }

}  // namespace

QVector<FieldSpec> runSchema() {
  const ModelConfig m;
  const TrainConfig t;
  const MixerOptions mo;
  const MambaOptions mb;
  QStringList archs;
  for (const auto& a : architectures()) archs << str(a.name);
  const QStringList transformers =
      knownArchs({"llama", "gpt", "transfixer", "transformer_autoencoder", "bidirectional_transformer"});
  const QStringList mixers = knownArchs({"masked_mixer", "mixer_autoencoder", "bidirectional_mixer"});
  const QStringList mixer_blocks = knownArchs({"masked_mixer", "mixer_autoencoder"});
  const QStringList causal = knownArchs({"masked_mixer", "llama", "gpt", "transfixer", "mamba"});
  const QStringList autoencoders = knownArchs({"mixer_autoencoder", "transformer_autoencoder"});
  QStringList not_mamba = archs;
  not_mamba.removeAll("mamba");
  const auto I = FieldSpec::Integer, N = FieldSpec::Number, B = FieldSpec::Boolean, C = FieldSpec::Choice,
             X = FieldSpec::Text;
  const QString A = "Architecture", O = "Family options", T = "Training", G = "Budget";
  const double big = 9.2e18;
  return {
      field("name", "Run name", X, "", "Run", "letters, digits, '-', '_' and '.' (it names the run's folder)"),
      field("model.arch", "Architecture", C, str(m.arch), A, "the model family (docs/architectures.md)", 0, 0, archs),
      field("model.d_model", "d_model (D)", I, qint64(m.d_model), A, "hidden size", 1, 1 << 20),
      field("model.n_layers", "Layers (N)", I, qint64(m.n_layers), A, "blocks (per stack for autoencoders)", 1, 4096),
      field("model.n_heads", "Attention heads", I, qint64(m.n_heads), A, "must divide d_model", 1, 4096, {}, transformers),
      field("model.context_length", "Context length (T)", I, qint64(m.context_length), A,
            "tokens per sequence; the mixer's mixing weights are [T, T, k]", 2, 1 << 20),
      field("model.ff_mult", "Feed-forward multiplier", I, qint64(m.ff_mult), A, "feed-forward width = ff_mult x D",
            1, 64, {}, not_mamba),
      field("model.kernel_size", "Mixing kernel size (k)", I, qint64(m.kernel_size), A, "token-mixing conv kernel", 1,
            64, {}, mixers),
      field("model.tie_weights", "Tie embedding and head", B, m.tie_weights, A, "share the embedding with the LM head"),
      field("model.objective", "Objective", C, str(m.objective), A, "training objective (spec section 6)", 0, 0,
            {"next_token", "multi_token", "one_step_completion"}, causal),
      field("model.mtp_tokens", "Multi-token passes", I, qint64(m.mtp_tokens), A, "passes for multi_token", 2, 16, {},
            causal),
      field("model.options.mixing", "Token mixing", C, str(mo.mixing), O, "flat, expanded or multi_head", 0, 0,
            {"flat", "expanded", "multi_head"}, mixer_blocks),
      field("model.options.expansion", "Expansion (e)", I, qint64(mo.expansion), O, "for mixing = expanded", 1, 16, {},
            mixer_blocks),
      field("model.options.mixing_heads", "Mixing heads", I, qint64(mo.mixing_heads), O,
            "for mixing = multi_head; must divide d_model", 1, 1024, {}, mixer_blocks),
      field("model.options.mixing_weights", "Mixing weights", C, str(mo.mixing_weights), O,
            "masked, softmax or softmax_compat", 0, 0, {"masked", "softmax", "softmax_compat"}, mixer_blocks),
      field("model.options.dropout", "Dropout", N, 0.1, O, "embedding, attention and residual dropout", 0, 0.9, {},
            knownArchs({"gpt"})),
      field("model.options.conv_placement", "Conv placement", C, "after_attention", O,
            "where the masked conv sits in each layer", 0, 0, {"after_attention", "parallel", "before_attention"},
            knownArchs({"transfixer"})),
      field("model.options.conv_kernel_size", "Conv kernel size", I, 1, O, "k of the masked conv", 1, 64, {},
            knownArchs({"transfixer"})),
      field("model.options.d_state", "State size (N)", I, qint64(mb.d_state), O, "SSM state per channel", 1, 1024, {},
            knownArchs({"mamba"})),
      field("model.options.d_conv", "Conv kernel (time)", I, qint64(mb.d_conv), O, "causal depthwise conv kernel", 1,
            64, {}, knownArchs({"mamba"})),
      field("model.options.expand", "Inner expansion", I, qint64(mb.expand), O, "inner width = expand x D", 1, 16, {},
            knownArchs({"mamba"})),
      field("model.options.scan", "Scan", C, str(mb.scan), O, "selective-scan implementation", 0, 0,
            {"parallel", "chunked", "sequential"}, knownArchs({"mamba"})),
      field("model.options.bottleneck", "Bottleneck divisor", I, 0, O, "c > 1 compresses the embedding to D/c", 0,
            1 << 20, {}, autoencoders),
      field("train.batch_size", "Batch size", I, qint64(t.batch_size), T, "sequences per micro-batch", 1, 1 << 20),
      field("train.learning_rate", "Learning rate", N, t.learning_rate, T, "peak AdamW learning rate", 0, 10),
      field("train.schedule", "Schedule", C, str(t.schedule), T, "decay after warm-up", 0, 0,
            {"linear", "cosine", "constant"}),
      field("train.warmup_steps", "Warm-up steps", I, qint64(t.warmup_steps), T, "linear warm-up", 0, big),
      field("train.seed", "Seed", I, qint64(t.seed), T, "initialisation and data order", 0, big),
      field("train.device", "Device", X, str(t.device), T, "auto, cpu, cuda or cuda:N"),
      field("train.batch_mode", "Batch mode", C, str(t.batch_mode), T, "padded: one document per row; packed", 0, 0,
            {"padded", "packed"}),
      field("train.padding_side", "Padding side", C, str(t.padding_side), T, "padded mode", 0, 0, {"left", "right"}),
      field("train.max_steps", "Max steps", I, qint64(t.max_steps), G, "0 = no step budget", 0, big),
      field("train.max_tokens", "Max tokens", I, qint64(t.max_tokens), G, "0 = no token budget", 0, big),
      field("train.max_wall_s", "Max wall time (s)", N, t.max_wall_s, G, "0 = no time budget", 0, 1e9),
  };
}

QMap<QString, QString> validateRun(const QJsonObject& run, const QString& project_file) {
  try {
    parseWithRun(run, project_file);
    return {};
  } catch (const MixerLabError& e) {
    const auto [key, message] = splitError(e, project_file);
    return {{key, message}};
  } catch (const std::exception& e) {
    return {{QString(), QString::fromStdString(e.what())}};
  }
}

QString costPreview(const QJsonObject& run, const QString& project_file) {
  RunConfig rc;
  try {
    rc = parseWithRun(run, project_file).runs.at(0);
  } catch (const std::exception&) {
    return "(no preview: fix the highlighted settings)";
  }
  const ModelCost c = estimateCost(rc.model, rc.train.batch_size);
  const double tokens_per_step =
      static_cast<double>(rc.train.batch_size) * rc.train.grad_accum_steps * rc.model.context_length;
  const double state = c.weight_bytes + c.gradient_bytes + c.optimizer_bytes;
  QStringList lines;
  auto line = [&](const QString& label, const QString& value) { lines << label.leftJustified(20) + value; };
  line("Parameters", count(c.parameters) + " (" + scaled(c.parameters, {"", "K", "M", "G", "T"}, 1000.0) + ")");
  line("Forward FLOPs", flops(c.forward_flops_per_token) + " / token");
  line("Training FLOPs", flops(c.training_flops_per_token) + " / token, " +
                             flops(c.training_flops_per_token * tokens_per_step) + " / step (" + count(tokens_per_step) +
                             " tokens)");
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

QJsonObject withProjectDefaults(const QJsonObject& run, const QString& project_file) {
  QString error;
  const nlohmann::json document = readProjectJson(project_file, &error);
  if (!error.isEmpty() || !document.contains("defaults") || !document.at("defaults").is_object()) return run;
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

QJsonObject resolvedRun(const QJsonObject& run, const QString& project_file, QString* error) {
  try {
    return toQtObject(parseWithRun(run, project_file).runs.at(0).toJson());
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
