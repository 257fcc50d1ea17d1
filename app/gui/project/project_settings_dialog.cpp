// The project-settings dialog (see project_settings_dialog.h).
#include "app/gui/project/project_settings_dialog.h"

#include <QDialogButtonBox>
#include <QFileDialog>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QPushButton>
#include <QScrollArea>
#include <QVBoxLayout>

#include "app/gui/common/screen_fit.h"
#include "app/gui/project/project_settings_schema.h"
#include "widgets/forms/config_form.h"

namespace mixerlab::gui {

ProjectSettingsDialog::ProjectSettingsDialog(const ProjectSource& project, QWidget* parent)
    : QDialog(parent), project_(project), initial_(projectSettingsOf(project.document)) {
  setWindowTitle(tr("Project settings — %1").arg(QFileInfo(project.file).fileName()));
  auto* layout = new QVBoxLayout(this);
  auto* intro = new QLabel(tr("Project: %1. Paths are relative to its folder. A setting left at its default is "
                              "not written to the file; hover a field for what it means.")
                               .arg(project.file),
                           this);
  intro->setWordWrap(true);
  layout->addWidget(intro);
  auto* browse_row = new QHBoxLayout;
  const struct {
    const char* key;
    QString text, title;
  } browsers[] = {
      {"corpus.train", tr("Choose training text..."), tr("Choose the training text")},
      {"corpus.eval", tr("Choose eval text..."), tr("Choose the evaluation text")},
      {"tokenizer.file", tr("Choose tokenizer file..."), tr("Choose a SentencePiece .model or tokenizer.json")}};
  for (const auto& b : browsers) {
    auto* button = new QPushButton(b.text, this);
    button->setObjectName(QString("browse-") + b.key);
    const QString key = b.key, title = b.title;
    connect(button, &QPushButton::clicked, this, [this, key, title] { browse(key, title); });
    browse_row->addWidget(button);
  }
  browse_row->addStretch(1);
  layout->addLayout(browse_row);
  form_ = new widgets::ConfigForm;
  form_->setSchema(projectSettingsSchema());
  form_->setValues(initial_);
  form_->setPreviewTitle(tr("Check"), 4);  // the fields get the room; the problems list scrolls
  auto* scroll = new QScrollArea(this);
  scroll->setWidgetResizable(true);
  scroll->setFrameShape(QFrame::NoFrame);
  scroll->setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  scroll->setWidget(form_);
  layout->addWidget(scroll, 1);
  layout->addWidget(form_->releaseSummaryPanel());  // every problem stays in view
  buttons_ = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  layout->addWidget(buttons_);
  connect(buttons_, &QDialogButtonBox::accepted, this, [this] {
    if (isValid()) accept();
  });
  connect(buttons_, &QDialogButtonBox::rejected, this, &QDialog::reject);
  connect(form_, &widgets::ConfigForm::valuesChanged, this, [this] { revalidate(); });
  resizeWithinScreen(*this, QSize(1000, 820));
  revalidate();
}

QJsonObject ProjectSettingsDialog::settings() const {
  return settingsToSave(form_->values(), initial_, projectSettingsSchema());
}

QPushButton* ProjectSettingsDialog::okButton() const { return buttons_->button(QDialogButtonBox::Ok); }

void ProjectSettingsDialog::choosePath(const QString& key, const QString& file) {
  QJsonObject values = form_->values();
  widgets::ConfigForm::setValueAt(values, key, projectRelativePath(QFileInfo(project_.file).absolutePath(), file));
  form_->setValues(values);
  revalidate();
}

void ProjectSettingsDialog::browse(const QString& key, const QString& title) {
  const QString folder = QFileInfo(project_.file).absolutePath();
  const QString file = QFileDialog::getOpenFileName(this, title, folder, tr("All files (*)"));
  if (!file.isEmpty()) choosePath(key, file);
}

void ProjectSettingsDialog::revalidate() {
  errors_ = validateProjectSettings(settings(), project_);
  form_->setFieldErrors(errors_);
  form_->setPreviewText(errors_.isEmpty() ? tr("The settings are valid for every run of the project.")
                                          : tr("Fix the problems listed to save the settings."));
  okButton()->setEnabled(errors_.isEmpty());
}

}  // namespace mixerlab::gui
