// The Help menu (see help_menu.h).
#include "app/gui/shell/help_menu.h"

#include <algorithm>

#include <QAction>
#include <QCoreApplication>
#include <QDialog>
#include <QDialogButtonBox>
#include <QDir>
#include <QFileInfo>
#include <QHeaderView>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QTableWidget>
#include <QVBoxLayout>

#include "app/gui/shell/documentation_dock.h"
#include "core/runs/run_directory.h"

namespace mixerlab::gui {

namespace {
void collect(const QMenu* menu, const QString& path, QVector<QPair<QString, QString>>& out) {
  for (QAction* action : menu->actions()) {
    const QString name = path + " > " + action->text().remove('&');
    if (action->menu()) {
      collect(action->menu(), name, out);
    } else if (!action->shortcut().isEmpty()) {
      out.push_back({name, action->shortcut().toString(QKeySequence::NativeText)});
    }
  }
}

void showDialog(QMainWindow* window, const QString& title, QWidget* content) {
  QDialog dialog(window);
  dialog.setWindowTitle(title);
  auto* layout = new QVBoxLayout(&dialog);
  content->setParent(&dialog);
  layout->addWidget(content);
  auto* buttons = new QDialogButtonBox(QDialogButtonBox::Close, &dialog);
  QObject::connect(buttons, &QDialogButtonBox::rejected, &dialog, &QDialog::reject);
  layout->addWidget(buttons);
  dialog.resize(560, 480);
  dialog.exec();
}
}  // namespace

QVector<QPair<QString, QString>> shortcutTable(const QMenuBar* menus) {
  QVector<QPair<QString, QString>> out;
  for (QAction* top : menus->actions()) {
    if (top->menu()) collect(top->menu(), top->text().remove('&'), out);
  }
  return out;
}

QStringList documentationFiles() {
  const QString app_dir = QCoreApplication::applicationDirPath();
  const QStringList roots = {qEnvironmentVariable("MIXERLAB_DOCS_DIR"), app_dir + "/../share/doc/mixerlab",
                             QStringLiteral(MIXERLAB_CHECKOUT_DOCS)};
  for (const QString& root : roots) {
    if (root.isEmpty() || !QFileInfo(root + "/README.md").isFile()) continue;
    QStringList files{QFileInfo(root + "/README.md").absoluteFilePath()};
    for (const QFileInfo& doc : QDir(root + "/docs").entryInfoList({"*.md"}, QDir::Files, QDir::Name)) {
      files << doc.absoluteFilePath();
    }
    return files;
  }
  return {};
}

QString aboutText() {
  const auto env = environmentInfo("");
  const auto& libraries = env.at("libraries");
  const std::string blas = libraries.at("blas").get<std::string>();
  QStringList lines;
  lines << "MixerLab " + QString::fromStdString(toolVersion()) +
               (gitCommit().empty() ? QString() : " (" + QString::fromStdString(gitCommit()) + ")");
  lines << "A workbench for masked-mixer and transformer language-model research.";
  lines << "";
  lines << "Qt " + QString(qVersion());
  lines << "LibTorch " + QString::fromStdString(libraries.at("libtorch").get<std::string>());
  lines << "spdlog " + QString::fromStdString(libraries.at("spdlog").get<std::string>()) + ", nlohmann-json " +
               QString::fromStdString(libraries.at("nlohmann_json").get<std::string>());
  lines << "BLAS in use: " + QString::fromStdString(blas);
  if (isReferenceBlas(blas)) {
    lines << "  warning: this is the slow reference BLAS; install libopenblas0-pthread (about 20x faster training)";
  }
  lines << "CPU cores: " + QString::number(env.at("cpu_cores").get<unsigned>());
  lines << "";
  lines << "TinyStories samples in the demo: CDLA-Sharing 1.0, Eldan & Li (2023).";
  return lines.join('\n');
}

DocumentationDock* showDocumentation(QMainWindow* window) {
  auto* dock = window->findChild<DocumentationDock*>("documentation-dock");
  if (dock == nullptr) {
    dock = new DocumentationDock(documentationFiles(), window);
    window->addDockWidget(Qt::RightDockWidgetArea, dock);
    dock->setFloating(true);  // a window of its own until docked: nothing else shrinks on a small screen
    dock->resize(std::min(900, window->width()), std::min(700, window->height()));
    dock->move(window->geometry().center() - dock->rect().center());
  }
  dock->show();
  dock->raise();
  return dock;
}

void addHelpMenu(QMainWindow* window) {
  auto* help = window->menuBar()->addMenu("&Help");
  help->addAction("&Documentation", window, [window] { showDocumentation(window); })
      ->setShortcut(QKeySequence::HelpContents);
  help->addAction("&Keyboard shortcuts", window,
                  [window] {
                    const auto rows = shortcutTable(window->menuBar());
                    auto* table = new QTableWidget(rows.size(), 2);
                    table->setHorizontalHeaderLabels({"action", "keys"});
                    table->horizontalHeader()->setSectionResizeMode(QHeaderView::Stretch);
                    table->verticalHeader()->setVisible(false);
                    table->setEditTriggers(QAbstractItemView::NoEditTriggers);
                    for (int r = 0; r < rows.size(); ++r) {
                      table->setItem(r, 0, new QTableWidgetItem(rows[r].first));
                      table->setItem(r, 1, new QTableWidgetItem(rows[r].second));
                    }
                    showDialog(window, "Keyboard shortcuts", table);
                  })
      ->setShortcut(QKeySequence("Ctrl+/"));
  help->addAction("&About MixerLab", window, [window] { QMessageBox::about(window, "About MixerLab", aboutText()); });
}

}  // namespace mixerlab::gui
