// Archiving and deleting a run's folder from the runs table. Archive moves runs/<run> to
// <project folder>/archive/<run> (a free name: <run>-2, -3, ... when taken), so its files stay and the
// run leaves the table; delete removes the folder. Both take the run's lock first (the one a
// training process holds), so a running run is refused, never moved or deleted under its trainer.
#pragma once
#include <QString>

namespace mixerlab::gui {

// Returns the error (naming the run and the fix), empty on success; *archived_to is the new folder.
QString archiveRunFolder(const QString& runs_directory, const QString& run, const QString& archive_directory,
                         QString* archived_to = nullptr);
QString deleteRunFolder(const QString& runs_directory, const QString& run);

}  // namespace mixerlab::gui
