// Help > Documentation inside the workbench: the README and docs/*.md rendered as Markdown in a dock,
// with a search field that narrows the list to the documents holding the words and finds them in
// the open one. Links between the documents open in the dock; other links go to the desktop. It
// needs no desktop launcher (the old menu item only handed files to one, and without one
// did nothing).
#pragma once
#include <QDockWidget>
#include <QStringList>

class QLabel;
class QLineEdit;
class QListWidget;
class QTextBrowser;
class QUrl;

namespace mixerlab::gui {

class DocumentationDock : public QDockWidget {
  Q_OBJECT
 public:
  // `files`: absolute paths of the Markdown files, README first (documentationFiles()).
  explicit DocumentationDock(const QStringList& files, QWidget* parent = nullptr);

  QStringList shownDocuments() const;           // file names in the list, as filtered by the search
  QString currentDocument() const;              // the open one's file name ("" when none)
  bool openDocument(const QString& file_name);  // false when no listed file has that name
  void search(const QString& words);            // as typing into the search field
  bool findNext();                              // the search's next match in the open document
  QTextBrowser* browser() const { return browser_; }

 private:
  void openLink(const QUrl& url);
  void showFile(int index);

  QStringList files_;
  QStringList texts_;  // each file's Markdown, read once (the search scans them on every keystroke)
  QLineEdit* search_ = nullptr;
  QListWidget* list_ = nullptr;
  QTextBrowser* browser_ = nullptr;
  QLabel* note_ = nullptr;
  int current_ = -1;
  QString before_search_;  // the document open when the search text was first typed
};

}  // namespace mixerlab::gui
