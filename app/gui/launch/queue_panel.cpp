// The queue dock (see queue_panel.h).
#include "app/gui/launch/queue_panel.h"

#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QPushButton>
#include <QTableWidget>
#include <QTimer>
#include <QVBoxLayout>

#include "app/gui/launch/run_queue.h"
#include "app/gui/launch/run_time_estimate.h"
#include "app/gui/project/project_document.h"
#include "app/gui/runs/run_list_model.h"
#include "core/analysis/format.h"

namespace mixerlab::gui {

namespace {
QString durationText(double seconds) {
  return seconds < 0 ? QString("?") : QString::fromStdString(formatDuration(seconds));
}
}  // namespace

QueuePanel::QueuePanel(RunListModel* runs, ProjectDocument* document, QWidget* parent)
    : QWidget(parent), runs_(runs), document_(document), table_(new QTableWidget(0, 4, this)) {
  table_->setObjectName("queue-table");
  table_->setHorizontalHeaderLabels({"run", "action", "estimated time", "starts in"});
  table_->horizontalHeader()->setSectionResizeMode(QHeaderView::ResizeToContents);
  table_->horizontalHeader()->setStretchLastSection(true);
  table_->verticalHeader()->setVisible(false);
  table_->setSelectionBehavior(QAbstractItemView::SelectRows);
  table_->setSelectionMode(QAbstractItemView::SingleSelection);
  table_->setEditTriggers(QAbstractItemView::NoEditTriggers);
  up_ = new QPushButton("Up", this);
  down_ = new QPushButton("Down", this);
  remove_ = new QPushButton("Remove", this);
  up_->setObjectName("queue-up");
  down_->setObjectName("queue-down");
  remove_->setObjectName("queue-remove");
  summary_ = new QLabel(this);
  summary_->setObjectName("queue-summary");
  summary_->setWordWrap(true);
  connect(up_, &QPushButton::clicked, this, [this] { moveSelected(-1); });
  connect(down_, &QPushButton::clicked, this, [this] { moveSelected(+1); });
  connect(remove_, &QPushButton::clicked, this, [this] {
    if (queue_ && !selectedRunId().isEmpty()) queue_->remove(selectedRunId());
  });
  auto* buttons = new QHBoxLayout;
  buttons->addWidget(up_);
  buttons->addWidget(down_);
  buttons->addWidget(remove_);
  buttons->addStretch();
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->addWidget(table_, 1);
  layout->addLayout(buttons);
  layout->addWidget(summary_);
  auto* timer = new QTimer(this);
  connect(timer, &QTimer::timeout, this, &QueuePanel::refresh);
  timer->start(5000);  // the running run's remaining time moves
  // New measurements (a run reported its speed) change the estimates: refresh soon, coalesced.
  auto* soon = new QTimer(this);
  soon->setSingleShot(true);
  soon->setInterval(300);
  connect(soon, &QTimer::timeout, this, &QueuePanel::refresh);
  connect(runs_, &QAbstractItemModel::dataChanged, soon, [soon] {
    if (!soon->isActive()) soon->start();
  });
  refresh();
}

void QueuePanel::setQueue(RunQueue* queue) {
  queue_ = queue;
  if (queue) connect(queue, &RunQueue::queueChanged, this, &QueuePanel::refresh);
  refresh();
}

QString QueuePanel::selectedRunId() const {
  const auto rows = table_->selectionModel()->selectedRows();
  return rows.isEmpty() ? QString() : table_->item(rows.first().row(), 0)->text();
}

void QueuePanel::moveSelected(int delta) {
  const QString run_id = selectedRunId();
  if (!queue_ || run_id.isEmpty()) return;
  queue_->move(run_id, delta);
  for (int r = 0; r < table_->rowCount(); ++r) {  // keep the moved run selected
    if (table_->item(r, 0)->text() == run_id) table_->selectRow(r);
  }
}

void QueuePanel::refresh() {
  const QString selected = selectedRunId();
  const QVector<RunQueue::Waiting> waiting = queue_ ? queue_->waiting() : QVector<RunQueue::Waiting>();
  table_->setRowCount(waiting.size());
  const MachineSpeed speed = measuredMachineSpeed(*runs_);
  const ProjectConfig* project = document_->parsed();
  // The queue starts its first entry when the run it started (or one started by hand) ends.
  double starts_in_s = 0;
  bool known = true;
  if (queue_ && !queue_->current().isEmpty() && project) {
    const double left = estimatedRemainingSeconds(*project, *runs_, queue_->current(), speed);
    known = left >= 0;
    starts_in_s = std::max(left, 0.0);
  }
  for (int r = 0; r < waiting.size(); ++r) {
    const RunQueue::Waiting& w = waiting[r];
    const QString action = !w.fork_from.isEmpty() ? "fork" : w.resume ? "resume" : "train";
    // A resume continues its own folder; a train or fork starts the project run's budget afresh.
    const double duration_s = !project ? -1
                              : w.resume
                                  ? estimatedRemainingSeconds(*project, *runs_, w.run_id, speed)
                                  : estimatedRemainingSeconds(*project, *runs_, w.run, speed, /*from_scratch=*/true);
    const QStringList cells{w.run_id, action, durationText(duration_s), known ? durationText(starts_in_s) : "?"};
    for (int c = 0; c < cells.size(); ++c) table_->setItem(r, c, new QTableWidgetItem(cells[c]));
    if (duration_s < 0) known = false;
    starts_in_s += std::max(duration_s, 0.0);
  }
  for (int r = 0; r < table_->rowCount(); ++r) {
    if (table_->item(r, 0)->text() == selected) table_->selectRow(r);
  }
  QString summary = waiting.isEmpty() ? "No runs waiting. Run > Queue run (Ctrl+Shift+Q) adds the selected run."
                                      : QString::number(waiting.size()) + " waiting";
  if (!waiting.isEmpty()) {
    summary += speed.runs_measured > 0 ? QString(", estimates from this machine's measured %1 GFLOP/s (%2 runs)")
                                             .arg(speed.training_flops_per_s / 1e9, 0, 'f', 1)
                                             .arg(speed.runs_measured)
                                       : QString(": no run has trained here yet, so durations are unknown");
  }
  summary_->setText(summary);
  up_->setEnabled(!waiting.isEmpty());
  down_->setEnabled(!waiting.isEmpty());
  remove_->setEnabled(!waiting.isEmpty());
}

}  // namespace mixerlab::gui
