// What the GUI knows about one run directory at a moment: status plus the metrics that arrived
// since the previous snapshot. Plain data the RunMonitor reports from its thread to the GUI thread.
#pragma once
#include <QMap>
#include <QString>
#include <QVector>

#include "core/runs/run_status.h"
#include "widgets/plots/loss_series.h"

namespace mixerlab::gui {

struct RunSnapshot {
  QString run;  // run-id (folder name)
  RunState state = RunState::Pending;
  QString reason;
  QString status_stamp;        // status.json's updated_at the state was read from ("" when there is none)
  QString arch, device;        // from run.json (empty until the run has written it)
  QByteArray run_config_json;  // run.json's "run" object (name, model, train), for comparisons
  qint64 step = 0, tokens = 0;
  double wall_s = 0, tokens_per_s = 0;
  double best_eval_loss = -1;  // < 0: none yet
  bool reset = false;          // the metrics log shrank (resume): drop earlier points first
  QVector<widgets::LossPoint> new_train, new_eval;
  QMap<QString, QVector<widgets::LossPoint>> new_metrics;  // lr, tokens_per_s, grad_norm, any other
};

}  // namespace mixerlab::gui
