// "Add remote host…": a form for one SSH launch target (host, user, port, key, remote folder,
// remote mixerlab program, ranks on the host). OK saves it with the others (AppSettings) and the
// target selector lists it as "ssh: user@host".
#pragma once
#include <QDialog>

#include "app/gui/launch/run_launcher.h"

class QLineEdit;
class QSpinBox;

namespace mixerlab::gui {

class RemoteHostDialog : public QDialog {
  Q_OBJECT
 public:
  explicit RemoteHostDialog(QWidget* parent = nullptr);
  RemoteHostSettings host() const;
  void setHost(const RemoteHostSettings& host);

 private:
  QLineEdit *host_, *user_, *identity_, *folder_, *program_;
  QSpinBox *port_, *nproc_;
};

// Adds (or replaces, by target name) a saved remote host.
void saveRemoteHost(const RemoteHostSettings& host);

}  // namespace mixerlab::gui
