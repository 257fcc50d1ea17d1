// Starts a program as a detached child without fork(): posix_spawn, which glibc runs as
// clone(CLONE_VM | CLONE_VFORK) + exec and which, unlike fork(), runs no pthread_atfork handlers.
// The workbench needs that: OpenBLAS's at-fork handler joins its worker threads, and when another
// thread of the GUI (an inversion, a generation) is inside a BLAS product those never finish, so
// QProcess::startDetached's fork() froze the whole workbench the moment the queue started a run.
// The child gets a session of its own (it outlives the GUI and its terminal), /dev/null on standard
// input, and the given files as standard output and error; a reaper thread waits for it, so an
// ended child leaves no zombie that would look alive to kill(pid, 0).
#pragma once

#include <QString>
#include <QStringList>

namespace mixerlab::gui {

struct DetachedSpawn {
  QString program;
  QStringList arguments;
  QString working_directory;  // empty: the GUI's
  QString standard_output;    // file to write (created or truncated); empty: /dev/null
  QString standard_error;     // likewise
};

// Starts it; returns an error message naming the program and the reason, empty on success, and the
// child's pid in *pid.
QString spawnDetached(const DetachedSpawn& spawn, qint64* pid);

}  // namespace mixerlab::gui
