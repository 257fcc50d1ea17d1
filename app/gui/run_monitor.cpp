// Run directory watcher (see run_monitor.h).
#include "app/gui/run_monitor.h"

#include <QDir>
#include <filesystem>

#include "core/models/model_registry.h"
#include "core/runs/metrics_log.h"
#include "core/runs/run_status.h"
#include "core/util/atomic_file.h"

#include <nlohmann/json.hpp>

namespace mixerlab::gui {

struct RunMonitor::Watched {
  explicit Watched(const std::filesystem::path& dir) : tail(dir / "metrics.jsonl") {}
  MetricsTail tail;
  QString last_state, last_reason;
  qint64 last_step = -1, last_tokens = 0;
  QString arch, device;  // read once from run.json
  double training_flops_per_token = 0;  // from the run's model config, for the FLOPs axis
  QByteArray run_config_json;
  double best_eval = -1, last_wall_s = 0, last_tokens_per_s = 0;
};

namespace {
// The architecture and device a run recorded in its run.json (written once at start).
template <typename Watched>
void readRunInfo(const std::filesystem::path& dir, Watched& watched) {
  try {
    const auto j = nlohmann::json::parse(readFile(dir / "run.json"));
    watched.arch = QString::fromStdString(j.at("model").value("arch", ""));
    watched.device = QString::fromStdString(j.at("environment").value("device", ""));
    watched.run_config_json = QByteArray::fromStdString(j.at("run").dump());
    watched.training_flops_per_token =
        estimateCost(ModelConfig::fromJson(j.at("model")), 1).training_flops_per_token;
  } catch (const std::exception&) {
    // not written yet (or being replaced): try again on the next poll
  }
}
}  // namespace

RunMonitor::RunMonitor(QString runs_directory, int interval_ms)
    : runs_directory_(std::move(runs_directory)), interval_ms_(interval_ms) {}

RunMonitor::~RunMonitor() = default;

void RunMonitor::start() {
  timer_ = new QTimer(this);
  connect(timer_, &QTimer::timeout, this, &RunMonitor::pollNow);
  timer_->start(interval_ms_);
  pollNow();
}

void RunMonitor::pollNow() {
  const QDir root(runs_directory_);
  for (const QString& name : root.entryList(QDir::Dirs | QDir::NoDotAndDotDot, QDir::Name)) {
    const std::filesystem::path dir = root.filePath(name).toStdString();
    auto& watched = runs_[name];
    if (!watched) watched = std::make_unique<Watched>(dir);
    RunSnapshot snap;
    snap.run = name;
    if (watched->device.isEmpty()) readRunInfo(dir, *watched);  // before the records: FLOPs need it
    const auto records = watched->tail.poll();
    snap.reset = watched->tail.wasReset();
    if (snap.reset) watched->best_eval = -1;
    for (const auto& r : records) {
      widgets::LossPoint p{static_cast<double>(r.step), static_cast<double>(r.tokens), r.wall_s, 0};
      p.flops = static_cast<double>(r.tokens) * watched->training_flops_per_token;
      if (r.train_loss) {
        p.loss = *r.train_loss;
        snap.new_train.push_back(p);
      }
      if (r.eval_loss) {
        p.loss = *r.eval_loss;
        snap.new_eval.push_back(p);
        if (watched->best_eval < 0 || *r.eval_loss < watched->best_eval) watched->best_eval = *r.eval_loss;
      }
      snap.tokens_per_s = r.tokens_per_s > 0 ? r.tokens_per_s : snap.tokens_per_s;
      snap.wall_s = r.wall_s;
    }
    snap.arch = watched->arch;
    snap.device = watched->device;
    snap.run_config_json = watched->run_config_json;
    const auto status = readRunStatus(dir);
    const RunStatus s = status ? status->resolvedForReader() : RunStatus{};
    snap.state = QString::fromStdString(runStateName(s.state));
    snap.reason = QString::fromStdString(s.reason);
    if (snap.reset) watched->last_step = -1;
    snap.step = records.empty() ? std::max<qint64>(watched->last_step, s.step) : records.back().step;
    snap.tokens = records.empty() ? std::max<qint64>(watched->last_tokens, s.tokens) : records.back().tokens;
    if (records.empty()) {
      snap.wall_s = watched->last_wall_s;
      snap.tokens_per_s = watched->last_tokens_per_s;
    }
    snap.best_eval_loss = watched->best_eval;
    const bool changed = !records.empty() || snap.reset || snap.state != watched->last_state ||
                         snap.reason != watched->last_reason || snap.step != watched->last_step;
    if (!changed) continue;
    watched->last_state = snap.state;
    watched->last_reason = snap.reason;
    watched->last_step = snap.step;
    watched->last_tokens = snap.tokens;
    watched->last_wall_s = snap.wall_s;
    watched->last_tokens_per_s = snap.tokens_per_s;
    Q_EMIT runUpdated(snap);
  }
}

}  // namespace mixerlab::gui
