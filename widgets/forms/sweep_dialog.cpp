// The sweep editor (see sweep_dialog.h).
#include "widgets/forms/sweep_dialog.h"

#include <QCheckBox>
#include <QColor>
#include <QComboBox>
#include <QCompleter>
#include <QDialogButtonBox>
#include <QHBoxLayout>
#include <QHeaderView>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QPushButton>
#include <QTableWidget>
#include <QVBoxLayout>

namespace mixerlab::widgets {

SweepDialog::SweepDialog(const QJsonObject& base_run, const QStringList& known_keys, QWidget* parent)
    : QDialog(parent), base_(base_run), known_keys_(known_keys) {
  setWindowTitle("Sweep from " + base_run.value("name").toString());
  axes_table_ = new QTableWidget(0, 2, this);
  axes_table_->setObjectName("sweep-axes");
  axes_table_->setHorizontalHeaderLabels({"field", "values (comma-separated)"});
  axes_table_->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
  axes_table_->verticalHeader()->setVisible(false);
  mode_box_ = new QComboBox(this);
  mode_box_->setObjectName("sweep-mode");
  mode_box_->addItem("Grid: every combination", static_cast<int>(SweepMode::Grid));
  mode_box_->addItem("List: i-th values together", static_cast<int>(SweepMode::List));
  queue_box_ = new QCheckBox("Queue the runs", this);
  queue_box_->setChecked(true);
  preview_ = new QListWidget(this);
  preview_->setObjectName("sweep-preview");
  error_label_ = new QLabel(this);
  error_label_->setStyleSheet("color: #b00020");
  error_label_->setMinimumHeight(error_label_->fontMetrics().height() * 2);  // no layout jump
  error_label_->setWordWrap(true);
  auto* add = new QPushButton("Add field", this);
  auto* remove = new QPushButton("Remove field", this);
  connect(add, &QPushButton::clicked, this, [this] { addAxisRow(); });
  connect(remove, &QPushButton::clicked, this, [this] {
    axes_table_->removeRow(axes_table_->currentRow() >= 0 ? axes_table_->currentRow() : axes_table_->rowCount() - 1);
    replan();
  });
  connect(axes_table_, &QTableWidget::cellChanged, this, [this] { replan(); });
  connect(mode_box_, &QComboBox::currentIndexChanged, this, [this] { replan(); });
  buttons_ = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  buttons_->button(QDialogButtonBox::Ok)->setText("Create runs");
  connect(buttons_, &QDialogButtonBox::accepted, this, &SweepDialog::create);
  connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);

  auto* row = new QHBoxLayout;
  row->addWidget(add);
  row->addWidget(remove);
  row->addStretch();
  row->addWidget(new QLabel("mode:", this));
  row->addWidget(mode_box_);
  auto* layout = new QVBoxLayout(this);
  layout->addWidget(new QLabel("Fields of " + base_run.value("name").toString() +
                                   " to vary (e.g. model.d_model = 256, 512 and train.learning_rate = 1e-3, 3e-4):",
                               this));
  layout->addWidget(axes_table_, 1);
  layout->addLayout(row);
  layout->addWidget(new QLabel("Runs to create:", this));
  layout->addWidget(preview_, 1);
  layout->addWidget(error_label_);
  layout->addWidget(queue_box_);
  layout->addWidget(buttons_);
  resize(620, 520);
  addAxisRow();
}

void SweepDialog::addAxisRow(const QString& key, const QString& values) {
  const QSignalBlocker quiet(axes_table_);
  const int r = axes_table_->rowCount();
  axes_table_->insertRow(r);
  axes_table_->setItem(r, 0, new QTableWidgetItem(key));
  axes_table_->setItem(r, 1, new QTableWidgetItem(values));
  // Completion of the field names from the run's settings.
  auto* editor = new QLineEdit(key, axes_table_);
  auto* completer = new QCompleter(known_keys_, editor);
  completer->setFilterMode(Qt::MatchContains);
  editor->setCompleter(completer);
  editor->setPlaceholderText("model.d_model");
  axes_table_->setCellWidget(r, 0, editor);
  connect(editor, &QLineEdit::textChanged, this, [this, editor](const QString& text) {
    for (int i = 0; i < axes_table_->rowCount(); ++i) {
      if (axes_table_->cellWidget(i, 0) == editor) axes_table_->item(i, 0)->setText(text);
    }
  });
  replan();
}

void SweepDialog::setAxes(const QVector<QPair<QString, QString>>& axes) {
  axes_table_->setRowCount(0);
  for (const auto& [key, values] : axes) addAxisRow(key, values);
  replan();
}

void SweepDialog::setMode(SweepMode mode) { mode_box_->setCurrentIndex(mode == SweepMode::Grid ? 0 : 1); }

void SweepDialog::setRunCheck(SweepRunCheck check) {
  run_check_ = std::move(check);
  replan();
}

void SweepDialog::setCreate(SweepCreate create) { create_ = std::move(create); }

SweepDraft SweepDialog::draft() const {
  SweepDraft d;
  for (int r = 0; r < axes_table_->rowCount(); ++r) {
    const QString key = axes_table_->item(r, 0) ? axes_table_->item(r, 0)->text() : QString();
    const QString values = axes_table_->item(r, 1) ? axes_table_->item(r, 1)->text() : QString();
    d.axes.append({key, values});
  }
  d.mode = static_cast<SweepMode>(mode_box_->currentData().toInt());
  d.queue = queue_box_->isChecked();
  return d;
}

void SweepDialog::setDraft(const SweepDraft& draft) {
  setMode(draft.mode);
  queue_box_->setChecked(draft.queue);
  setAxes(draft.axes);
}

void SweepDialog::create() {
  if (!create_) {
    accept();
    return;
  }
  const QString error = create_(planned_, queueRuns());
  if (error.isEmpty()) {
    accept();
    return;
  }
  error_ = error;
  error_label_->setText("Not created: " + error);
}

bool SweepDialog::queueRuns() const { return queue_box_->isChecked(); }

void SweepDialog::replan() {
  QVector<SweepAxis> axes;
  for (int r = 0; r < axes_table_->rowCount(); ++r) {
    const QString key = axes_table_->item(r, 0) ? axes_table_->item(r, 0)->text().trimmed() : QString();
    const QString values = axes_table_->item(r, 1) ? axes_table_->item(r, 1)->text() : QString();
    if (key.isEmpty() && values.trimmed().isEmpty()) continue;  // an empty row is not an error
    axes << SweepAxis{key, parseSweepValues(values)};
  }
  error_.clear();
  planned_ = planSweep(base_, axes, static_cast<SweepMode>(mode_box_->currentData().toInt()), &error_);
  QString note = error_;
  for (const SweepAxis& axis : axes) {  // the project parser decides; this only warns early
    if (note.isEmpty() && !axis.key.isEmpty() && !known_keys_.isEmpty() && !known_keys_.contains(axis.key))
      note = "note: " + axis.key + " is not among this run's current settings (the completion list has them)";
  }
  preview_->clear();
  bool all_valid = true;
  for (const QJsonObject& run : planned_) {
    const QString name = run.value("name").toString();
    const QString problem = run_check_ ? run_check_(run) : QString();
    auto* item = new QListWidgetItem(problem.isEmpty() ? name : name + "  \u2014 " + problem, preview_);
    if (problem.isEmpty()) continue;
    item->setForeground(QColor(0xb0, 0x00, 0x20));
    item->setToolTip(problem);
    if (all_valid) {  // the first problem, in full, under the preview
      error_ = name + ": " + problem;
      note = error_;
    }
    all_valid = false;
  }
  error_label_->setText(note);
  buttons_->button(QDialogButtonBox::Ok)->setEnabled(!planned_.isEmpty() && all_valid);
  buttons_->button(QDialogButtonBox::Ok)->setText(QString("Create %1 runs").arg(planned_.size()));
}

}  // namespace mixerlab::widgets
