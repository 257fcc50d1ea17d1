// The checkpoint-column picker of the model-comparing tabs (see checkpoint_picker.h).
#include "app/gui/common/checkpoint_picker.h"

#include <QFileDialog>
#include <QHBoxLayout>
#include <QMenu>
#include <QPushButton>
#include <QToolButton>

namespace mixerlab::gui {

CheckpointPicker::CheckpointPicker(const CheckpointPickerOptions& options, AddColumn add, ColumnKeys column_keys,
                                   QWidget* parent)
    : QWidget(parent), options_(options), add_(std::move(add)), column_keys_(std::move(column_keys)) {
  auto* layout = new QHBoxLayout(this);
  layout->setContentsMargins(0, 0, 0, 0);
  add_run_ = new QToolButton(this);
  add_run_->setObjectName(options_.add_run_object_name);
  add_run_->setText(tr("Add run"));
  add_run_->setToolTip(options_.offers_untrained
                           ? tr("Add a run of the open project: its latest checkpoint, any of its checkpoints, or its "
                                "untrained twin")
                           : tr("Add a run of the open project: its latest checkpoint or any of its checkpoints"));
  add_run_->setPopupMode(QToolButton::InstantPopup);
  auto* menu = new QMenu(add_run_);
  connect(menu, &QMenu::aboutToShow, this, &CheckpointPicker::fillRunMenu);
  add_run_->setMenu(menu);
  add_folder_ = new QPushButton(options_.add_folder_text, this);
  add_folder_->setObjectName(options_.add_folder_object_name);
  add_folder_->setToolTip(options_.add_folder_tooltip);
  connect(add_folder_, &QPushButton::clicked, this, &CheckpointPicker::onAddFolder);
  layout->addWidget(add_run_);
  layout->addWidget(add_folder_);
  refresh();
}

void CheckpointPicker::setRunsDirectory(const QString& runs_directory) { runs_directory_ = runs_directory; }

QMenu* CheckpointPicker::runMenu() const { return add_run_->menu(); }

QString CheckpointPicker::add(const ColumnRequest& request) {
  const QString error = add_(request);
  if (!error.isEmpty()) Q_EMIT refused(error);
  return error;
}

QString CheckpointPicker::roomError() const {
  return hasRoom() ? QString()
                   : tr("at most %1 %2: remove one first").arg(options_.max_columns).arg(options_.columns_noun);
}

bool CheckpointPicker::hasRoom() const { return column_keys_().size() < options_.max_columns; }

QString CheckpointPicker::refusal(const QString& key, const QString& label) const {
  if (const QString full = roomError(); !full.isEmpty()) return full;
  if (column_keys_().contains(key)) {
    return tr("%1 is already one of the %2: remove it first, or pick another checkpoint")
        .arg(label, options_.columns_noun);
  }
  return {};
}

QString CheckpointPicker::choose(const ColumnRequest& request, CheckpointColumn* column) const {
  if (const QString full = roomError(); !full.isEmpty()) return full;
  if (request.untrained && !options_.offers_untrained) {
    return tr("%1 takes trained checkpoints only: drop \"%2\" from %3")
        .arg(options_.tab_name, QString(kUntrainedPrefix), request.path);
  }
  CheckpointColumn chosen;
  if (const QString error = chooseCheckpointColumn(request.path, request.untrained, &chosen); !error.isEmpty())
    return error;
  if (const QString refused = refusal(chosen.key(), chosen.label()); !refused.isEmpty()) return refused;
  *column = chosen;
  return {};
}

void CheckpointPicker::setBusy(bool busy) {
  busy_ = busy;
  refresh();
}

void CheckpointPicker::refresh() {
  const bool can_add = !busy_ && hasRoom();
  add_run_->setEnabled(can_add);
  add_folder_->setEnabled(can_add);
}

void CheckpointPicker::fillRunMenu() {
  QMenu* menu = runMenu();
  menu->clear();
  // clear() leaves the "Any checkpoint" submenus of the last time: they are the menu's children.
  qDeleteAll(menu->findChildren<QMenu*>(QString(), Qt::FindDirectChildrenOnly));
  const QVector<CheckpointChoice> runs = runsWithCheckpoints(runs_directory_);
  if (runs.isEmpty()) {
    menu->addAction(runs_directory_.isEmpty() ? tr("(open a project to list its runs)")
                                              : tr("(no run of the project has a checkpoint yet)"))
        ->setEnabled(false);
    return;
  }
  // A model the tab already shows stays listed, greyed out, so the menu does not shift under the mouse.
  auto offer = [this](QMenu* into, const QString& text, const CheckpointChoice& checkpoint, bool untrained) {
    CheckpointColumn column;
    column.checkpoint = checkpoint;
    column.untrained = untrained;
    const bool shown = column_keys_().contains(column.key());
    const ColumnRequest request{checkpoint.checkpoint_dir, untrained};
    QAction* action =
        into->addAction(shown ? tr("%1  (already shown)").arg(text) : text, this, [this, request]() { add(request); });
    action->setEnabled(!shown);
  };
  menu->addSection(tr("Latest checkpoint"));
  for (const CheckpointChoice& run : runs) offer(menu, tr("%1  (%2)").arg(run.label(), run.architecture), run, false);
  menu->addSection(tr("Any checkpoint"));
  for (const CheckpointChoice& run : runs) {
    QMenu* steps = menu->addMenu(tr("%1  (%2)").arg(run.run, run.architecture));
    steps->setObjectName("checkpoints_of_" + run.run);
    const QString latest = run.checkpoint_dir;
    // Filled when opened: a run may keep many checkpoints, each with a config to read.
    connect(steps, &QMenu::aboutToShow, this, [offer, steps, run_dir = run.run_dir, latest]() {
      steps->clear();
      for (const CheckpointChoice& checkpoint : checkpointsOfRun(run_dir)) {
        const bool is_latest = checkpoint.checkpoint_dir == latest;
        offer(steps, is_latest ? tr("%1 (latest)").arg(checkpoint.step) : checkpoint.step, checkpoint, false);
      }
    });
  }
  if (!options_.offers_untrained) return;
  menu->addSection(tr("Untrained twin (same config, fresh init)"));
  for (const CheckpointChoice& run : runs) {
    offer(menu, tr("%1 \u00b7 untrained  (%2)").arg(run.run, run.architecture), run, true);
  }
}

void CheckpointPicker::onAddFolder() {
  const QString folder = QFileDialog::getExistingDirectory(this, options_.folder_dialog_title, runs_directory_);
  if (!folder.isEmpty()) add({folder, false});
}

}  // namespace mixerlab::gui
