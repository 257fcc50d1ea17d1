// RunSetupDialog (see run_setup_dialog.h). Validation and the cost preview are pure config parsing
// and arithmetic (no model is built), so they run synchronously on every edit.
#include "app/gui/project/run_setup_dialog.h"

#include <QComboBox>
#include <QDialogButtonBox>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>

#include "app/gui/common/fork_point.h"
#include "app/gui/common/json_bridge.h"
#include "app/gui/common/screen_fit.h"
#include "app/gui/project/run_config_schema.h"
#include "widgets/forms/config_form.h"
#include "widgets/tables/run_comparison.h"

namespace mixerlab::gui {

RunSetupDialog::RunSetupDialog(const QString& project_file, const QJsonObject& initial_run, QWidget* parent)
    : RunSetupDialog(readProjectSource(project_file), initial_run, parent) {}

RunSetupDialog::RunSetupDialog(const ProjectSource& project, const QJsonObject& initial_run, QWidget* parent)
    : QDialog(parent), project_(project), initial_run_(initial_run) {
  const QString project_file = project.file;
  setWindowTitle(tr("Run setup — %1").arg(QFileInfo(project_file).fileName()));
  auto* layout = new QVBoxLayout(this);
  auto* intro = new QLabel(tr("Project: %1. Settings left at the project's defaults are shown filled in; "
                              "hover a field for what it means.")
                               .arg(project_file),
                           this);
  intro->setWordWrap(true);
  layout->addWidget(intro);
  form_ = new widgets::ConfigForm;
  form_->setSchema(runSchema());
  form_->setValues(withProjectDefaults(initial_run, project_));
  auto* scroll = new QScrollArea(this);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  scroll->setWidget(form_);
  layout->addWidget(scroll, 1);
  layout->addWidget(form_->releaseSummaryPanel());  // the preview and every problem stay in view
  buttons_ = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  sweep_button_ = buttons_->addButton(tr("Sweep…"), QDialogButtonBox::ActionRole);
  sweep_button_->setToolTip(tr("Make several runs from this one, varying fields over lists of values"));
  connect(sweep_button_, &QPushButton::clicked, this, [this] {
    if (!isValid()) return;
    sweep_requested_ = true;
    accept();
  });
  layout->addWidget(buttons_);
  connect(buttons_, &QDialogButtonBox::accepted, this, [this] {
    if (isValid()) accept();
  });
  connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(form_, &widgets::ConfigForm::valuesChanged, this, [this] { revalidate(); });
  resizeWithinScreen(*this, QSize(1040, 860));
  revalidate();
}

QJsonObject RunSetupDialog::fullRun() const { return form_->values(); }

QJsonObject RunSetupDialog::run() const {
  using widgets::ConfigForm;
  const QJsonObject full = form_->values();
  const QString arch = ConfigForm::valueAt(full, "model.arch").toString();
  QJsonObject out = initial_run_;  // keys the form does not cover stay as written
  QJsonObject skeleton{{"name", full.value("name")}};
  ConfigForm::setValueAt(skeleton, "model.arch", arch);
  const QJsonObject inherited = withProjectDefaults(skeleton, project_);
  for (const widgets::FieldSpec& field : runSchema()) {
    const QJsonValue value = ConfigForm::valueAt(full, field.key);
    const bool was_set = !ConfigForm::valueAt(initial_run_, field.key).isUndefined();
    QJsonValue default_value = ConfigForm::valueAt(inherited, field.key);
    if (default_value.isUndefined()) default_value = QJsonValue::fromVariant(field.defaultFor(arch));
    const bool keep = field.key == "name" || field.key == "model.arch" ||
                      (!value.isUndefined() && (was_set || !sameSettingValue(value, default_value)));
    if (keep) {
      ConfigForm::setValueAt(out, field.key, value);
    } else {
      ConfigForm::removeValueAt(out, field.key);  // not shown for this architecture, or inherited
    }
  }
  QJsonObject model = out.value("model").toObject();  // no empty sections left behind
  if (model.value("options").isObject() && model.value("options").toObject().isEmpty()) model.remove("options");
  if (out.contains("model")) out["model"] = model;
  if (out.value("train").isObject() && out.value("train").toObject().isEmpty()) out.remove("train");
  return out;
}

QPushButton* RunSetupDialog::okButton() const { return buttons_->button(QDialogButtonBox::Ok); }

void RunSetupDialog::setMachineSpeed(double training_flops_per_s, int runs_measured) {
  machine_flops_per_s_ = training_flops_per_s;
  runs_measured_ = runs_measured;
  revalidate();
}

void RunSetupDialog::setReservedNames(const QStringList& names) {
  reserved_names_ = names;
  revalidate();
}

void RunSetupDialog::setFork(const QString& parent, const QStringList& checkpoint_folders, const QString& selected) {
  fork_parent_ = parent;
  fork_parent_run_ = form_->values();
  setWindowTitle(tr("Fork %1").arg(parent));
  fork_checkpoint_ = new QComboBox(this);
  fork_checkpoint_->setObjectName("fork-checkpoint");
  for (const QString& folder : checkpoint_folders) {
    fork_checkpoint_->addItem(tr("step %1").arg(checkpointStep(folder)), folder);
  }
  const int at = fork_checkpoint_->findData(selected);
  fork_checkpoint_->setCurrentIndex(at >= 0 ? at : fork_checkpoint_->count() - 1);  // else the latest
  auto* row = new QHBoxLayout;
  row->addWidget(new QLabel(tr("Start from %1's checkpoint:").arg(parent), this));
  row->addWidget(fork_checkpoint_);
  row->addWidget(new QLabel(tr("(the weights come from it; the training settings below may change)"), this));
  row->addStretch();
  qobject_cast<QVBoxLayout*>(layout())->insertLayout(1, row);
  if (sweep_button_) sweep_button_->hide();
  okButton()->setText(tr("Fork and train"));
  revalidate();
}

QString RunSetupDialog::forkCheckpoint() const {
  return fork_checkpoint_ ? fork_checkpoint_->currentData().toString() : QString();
}

void RunSetupDialog::revalidate() {
  const QJsonObject current = run();
  errors_ = validateRun(current, project_);
  if (fork_checkpoint_) {
    if (fork_checkpoint_->count() == 0) {
      errors_.insert("name", tr("%1 has no complete checkpoint to fork from yet").arg(fork_parent_));
    }
    const auto parent = widgets::flattenConfig(fork_parent_run_);
    const auto now = widgets::flattenConfig(form_->values());
    for (auto it = now.cbegin(); it != now.cend(); ++it) {
      if (!it.key().startsWith("model.") || parent.value(it.key()) == it.value()) continue;
      errors_.insert(it.key(), tr("a fork keeps %1's model (its weights come from the checkpoint): set it back to %2")
                                   .arg(fork_parent_, parent.value(it.key()).toVariant().toString()));
    }
  }
  const QString name = current.value("name").toString();
  if (errors_.isEmpty() && reserved_names_.contains(name)) {
    errors_.insert("name", tr("the project already has a run named \"%1\"").arg(name));
  }
  form_->setFieldErrors(errors_);
  const QString wall_time = wallTimeEstimate(current, project_, machine_flops_per_s_, runs_measured_);
  form_->setPreviewText(costPreview(current, project_) + (wall_time.isEmpty() ? QString() : "\n" + wall_time));
  okButton()->setEnabled(errors_.isEmpty());
  if (sweep_button_) sweep_button_->setEnabled(errors_.isEmpty());
}

}  // namespace mixerlab::gui
