// See documentation_dock.h.
#include "app/gui/shell/documentation_dock.h"

#include <QDesktopServices>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QHBoxLayout>
#include <QLabel>
#include <QLineEdit>
#include <QListWidget>
#include <QSplitter>
#include <QTextBrowser>
#include <QTextDocument>
#include <QUrl>
#include <QVBoxLayout>

namespace mixerlab::gui {

namespace {
QString readText(const QString& path) {
  QFile file(path);
  if (!file.open(QIODevice::ReadOnly)) return {};
  return QString::fromUtf8(file.readAll());
}
}  // namespace

DocumentationDock::DocumentationDock(const QStringList& files, QWidget* parent)
    : QDockWidget(tr("Documentation"), parent), files_(files) {
  setObjectName("documentation-dock");
  auto* body = new QWidget(this);
  auto* layout = new QVBoxLayout(body);
  layout->setContentsMargins(4, 4, 4, 4);
  search_ = new QLineEdit(body);
  search_->setObjectName("documentation-search");
  search_->setPlaceholderText(tr("Search the documentation (Enter: next match)"));
  search_->setClearButtonEnabled(true);
  layout->addWidget(search_);
  note_ = new QLabel(body);
  note_->setObjectName("documentation-note");
  note_->setWordWrap(true);
  layout->addWidget(note_);
  auto* split = new QSplitter(Qt::Horizontal, body);
  list_ = new QListWidget(split);
  list_->setObjectName("documentation-list");
  browser_ = new QTextBrowser(split);
  browser_->setObjectName("documentation-text");
  browser_->setOpenLinks(false);  // links between the documents are followed here, others outside
  split->addWidget(list_);
  split->addWidget(browser_);
  split->setStretchFactor(1, 1);
  split->setSizes({150, 450});
  layout->addWidget(split, 1);
  setWidget(body);

  for (const QString& file : files_) {
    auto* item = new QListWidgetItem(QFileInfo(file).fileName(), list_);
    item->setData(Qt::UserRole, file);
    texts_ << readText(file);
  }
  if (files_.isEmpty()) {
    note_->setText(
        tr("No documentation found: set MIXERLAB_DOCS_DIR to a MixerLab checkout or install the "
           "package's share/doc/mixerlab."));
  } else {
    note_->hide();
  }
  connect(list_, &QListWidget::currentRowChanged, this, [this](int row) {
    if (row < 0) return;
    showFile(files_.indexOf(list_->item(row)->data(Qt::UserRole).toString()));
    if (!search_->text().isEmpty()) findNext();
  });
  connect(search_, &QLineEdit::textChanged, this, &DocumentationDock::search);
  connect(search_, &QLineEdit::returnPressed, this, [this] { findNext(); });
  connect(browser_, &QTextBrowser::anchorClicked, this, &DocumentationDock::openLink);
  if (!files_.isEmpty()) list_->setCurrentRow(0);
}

void DocumentationDock::showFile(int index) {
  if (index < 0 || index >= files_.size() || index == current_) return;
  current_ = index;
  const QString path = files_[index];
  browser_->setSearchPaths({QFileInfo(path).absolutePath()});  // the figures next to the text
  browser_->document()->setBaseUrl(QUrl::fromLocalFile(path));
  browser_->setMarkdown(texts_[index]);
  setWindowTitle(tr("Documentation: %1").arg(QFileInfo(path).fileName()));
}

QStringList DocumentationDock::shownDocuments() const {
  QStringList out;
  for (int i = 0; i < list_->count(); ++i) {
    if (!list_->item(i)->isHidden()) out << list_->item(i)->text();
  }
  return out;
}

QString DocumentationDock::currentDocument() const {
  return current_ < 0 ? QString() : QFileInfo(files_[current_]).fileName();
}

bool DocumentationDock::openDocument(const QString& file_name) {
  for (int i = 0; i < list_->count(); ++i) {
    if (list_->item(i)->text() == file_name) {
      list_->item(i)->setHidden(false);
      list_->setCurrentRow(i);
      return true;
    }
  }
  return false;
}

void DocumentationDock::search(const QString& words) {
  if (search_->text() != words) {
    search_->setText(words);  // comes back here through textChanged
    return;
  }
  const QString needle = words.trimmed();
  // Typing selects the first document holding each prefix; the document open before the search is
  // remembered, so words no document holds leave the reader where they were.
  if (needle.isEmpty()) {
    before_search_.clear();
  } else if (before_search_.isEmpty()) {
    before_search_ = currentDocument();
  }
  int first_shown = -1;
  for (int i = 0; i < list_->count(); ++i) {
    const int file = files_.indexOf(list_->item(i)->data(Qt::UserRole).toString());
    const bool match = needle.isEmpty() || texts_.value(file).contains(needle, Qt::CaseInsensitive);
    list_->item(i)->setHidden(!match);
    if (match && first_shown < 0) first_shown = i;
  }
  note_->setVisible(!needle.isEmpty() && first_shown < 0);
  if (!needle.isEmpty() && first_shown < 0) {
    note_->setText(tr("No document mentions \"%1\".").arg(needle));
    for (int i = 0; i < list_->count() && currentDocument() != before_search_; ++i) {
      if (list_->item(i)->text() == before_search_) list_->setCurrentRow(i);  // stays out of the narrowed list
    }
  }
  if (needle.isEmpty() || first_shown < 0) return;
  const int current_row = list_->currentRow();
  if (current_row < 0 || list_->item(current_row)->isHidden()) {
    list_->setCurrentRow(first_shown);  // shows it and finds the first match
  } else {
    browser_->moveCursor(QTextCursor::Start);
    findNext();
  }
}

bool DocumentationDock::findNext() {
  const QString needle = search_->text().trimmed();
  if (needle.isEmpty()) return false;
  if (browser_->find(needle)) return true;
  browser_->moveCursor(QTextCursor::Start);  // wrap around
  return browser_->find(needle);
}

void DocumentationDock::openLink(const QUrl& url) {
  const QUrl resolved = browser_->document()->baseUrl().resolved(url);
  if (resolved.isLocalFile() && resolved.toLocalFile().endsWith(".md")) {
    const QString target = QFileInfo(resolved.toLocalFile()).absoluteFilePath();
    const int index = files_.indexOf(target);
    if (index >= 0 && openDocument(QFileInfo(target).fileName())) {
      if (!url.fragment().isEmpty()) browser_->scrollToAnchor(url.fragment());
      return;
    }
  }
  QDesktopServices::openUrl(resolved.isLocalFile() ? resolved : url);  // sources, figures, the web
}

}  // namespace mixerlab::gui
