// The remote host form (see remote_host_dialog.h).
#include "app/gui/launch/remote_host_dialog.h"

#include <QDialogButtonBox>
#include <QFormLayout>
#include <QLabel>
#include <QLineEdit>
#include <QPushButton>
#include <QSpinBox>

#include "app/gui/common/app_settings.h"

namespace mixerlab::gui {

RemoteHostDialog::RemoteHostDialog(QWidget* parent) : QDialog(parent) {
  setWindowTitle("Add remote host");
  host_ = new QLineEdit(this);
  user_ = new QLineEdit(this);
  identity_ = new QLineEdit(this);
  folder_ = new QLineEdit(this);
  program_ = new QLineEdit("mixerlab", this);
  port_ = new QSpinBox(this);
  port_->setRange(1, 65535);
  port_->setValue(22);
  nproc_ = new QSpinBox(this);
  nproc_->setRange(1, 64);
  host_->setPlaceholderText("gpu-node.example.org");
  identity_->setPlaceholderText("~/.ssh/id_ed25519 (empty: ssh's default keys)");
  folder_->setPlaceholderText("/home/me/mixerlab-projects/demo (holds project.json)");
  auto* form = new QFormLayout(this);
  form->addRow(
      new QLabel("Runs start with `mixerlab remote` over SSH (key-based login) and are mirrored into this "
                 "project's runs folder while they train.",
                 this));
  form->addRow("Host", host_);
  form->addRow("User", user_);
  form->addRow("Port", port_);
  form->addRow("Private key", identity_);
  form->addRow("Remote folder", folder_);
  form->addRow("Remote mixerlab", program_);
  form->addRow("Ranks (GPUs) on the host", nproc_);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Ok | QDialogButtonBox::Cancel, this);
  form->addRow(buttons);
  connect(buttons, &QDialogButtonBox::accepted, this, &QDialog::accept);
  connect(buttons, &QDialogButtonBox::rejected, this, &QDialog::reject);
  auto validate = [this, buttons] {
    buttons->button(QDialogButtonBox::Ok)
        ->setEnabled(!host_->text().trimmed().isEmpty() && !folder_->text().trimmed().isEmpty());
  };
  connect(host_, &QLineEdit::textChanged, this, validate);
  connect(folder_, &QLineEdit::textChanged, this, validate);
  validate();
}

RemoteHostSettings RemoteHostDialog::host() const {
  RemoteHostSettings h;
  h.host = host_->text().trimmed();
  h.user = user_->text().trimmed();
  h.port = port_->value();
  h.identity = identity_->text().trimmed();
  h.folder = folder_->text();  // as typed: a folder may have spaces at its ends
  h.program = program_->text().trimmed().isEmpty() ? "mixerlab" : program_->text().trimmed();
  h.nproc = nproc_->value();
  return h;
}

void RemoteHostDialog::setHost(const RemoteHostSettings& h) {
  host_->setText(h.host);
  user_->setText(h.user);
  port_->setValue(h.port);
  identity_->setText(h.identity);
  folder_->setText(h.folder);
  program_->setText(h.program);
  nproc_->setValue(h.nproc);
}

void saveRemoteHost(const RemoteHostSettings& host) {
  AppSettings settings;
  QList<QVariantMap> hosts = settings.remoteHosts();
  hosts.erase(std::remove_if(hosts.begin(), hosts.end(),
                             [&](const QVariantMap& m) {
                               return RemoteHostSettings::fromMap(m).targetName() == host.targetName();
                             }),
              hosts.end());
  hosts << host.toMap();
  settings.setRemoteHosts(hosts);
}

}  // namespace mixerlab::gui
