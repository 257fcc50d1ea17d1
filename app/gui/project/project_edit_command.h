// One undoable edit of the project file: the document's state before and after. The edit is
// already validated and written when the command is pushed, so its first redo does nothing;
// later undos and redos write the file back to the exact text it had.
#pragma once
#include <QUndoCommand>

#include "app/gui/project/project_document.h"

namespace mixerlab::gui {

class ProjectEditCommand : public QUndoCommand {
 public:
  ProjectEditCommand(ProjectDocument* document, ProjectSnapshot before, ProjectSnapshot after, const QString& text);
  void undo() override;
  void redo() override;

 private:
  ProjectDocument* document_;
  ProjectSnapshot before_, after_;
  bool pushed_ = false;
};

}  // namespace mixerlab::gui
