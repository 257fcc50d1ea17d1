// Detached children without fork() (see detached_spawn.h).
#include "app/gui/launch/detached_spawn.h"

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace mixerlab::gui {

namespace {

// posix_spawn's attribute and file-action objects, destroyed on every path.
struct SpawnSetup {
  posix_spawnattr_t attr;
  posix_spawn_file_actions_t actions;
  SpawnSetup() {
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_init(&actions);
  }
  ~SpawnSetup() {
    posix_spawn_file_actions_destroy(&actions);
    posix_spawnattr_destroy(&attr);
  }
  SpawnSetup(const SpawnSetup&) = delete;
  SpawnSetup& operator=(const SpawnSetup&) = delete;
};

std::string pathOrNull(const QString& path) { return path.isEmpty() ? "/dev/null" : path.toStdString(); }

}  // namespace

QString spawnDetached(const DetachedSpawn& spawn, qint64* pid) {
  const std::string program = spawn.program.toStdString();
  std::vector<std::string> args{program};
  for (const QString& argument : spawn.arguments) args.push_back(argument.toStdString());
  std::vector<char*> argv;
  for (std::string& argument : args) argv.push_back(argument.data());
  argv.push_back(nullptr);
  const std::string directory = spawn.working_directory.toStdString();
  const std::string out = pathOrNull(spawn.standard_output), err = pathOrNull(spawn.standard_error);

  SpawnSetup setup;
  int failed = 0;  // the first setup call's error number; the calls are independent, so all are made
  const auto note = [&failed](int result) {
    if (failed == 0) failed = result;
  };
  if (!directory.empty()) note(posix_spawn_file_actions_addchdir_np(&setup.actions, directory.c_str()));
  note(posix_spawn_file_actions_addopen(&setup.actions, 0, "/dev/null", O_RDONLY, 0));
  note(posix_spawn_file_actions_addopen(&setup.actions, 1, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644));
  note(posix_spawn_file_actions_addopen(&setup.actions, 2, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644));
  // A session of its own, an empty signal mask (GUI threads may block signals) and default actions
  // for the signals a run handles or is stopped with.
  sigset_t empty, defaults;
  sigemptyset(&empty);
  sigemptyset(&defaults);
  for (const int signal_number : {SIGPIPE, SIGINT, SIGTERM, SIGHUP, SIGCHLD}) sigaddset(&defaults, signal_number);
  note(posix_spawnattr_setsigmask(&setup.attr, &empty));
  note(posix_spawnattr_setsigdefault(&setup.attr, &defaults));
  note(posix_spawnattr_setflags(&setup.attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF));
  if (failed != 0) {
    return "could not prepare to start " + spawn.program + ": " + QString::fromLocal8Bit(std::strerror(failed));
  }

  pid_t child = 0;
  failed = posix_spawn(&child, program.c_str(), &setup.actions, &setup.attr, argv.data(), environ);
  if (failed != 0) return "could not start " + spawn.program + ": " + QString::fromLocal8Bit(std::strerror(failed));
  std::thread([child] {
    while (waitpid(child, nullptr, 0) < 0 && errno == EINTR) {
    }
  }).detach();
  if (pid != nullptr) *pid = child;
  return {};
}

}  // namespace mixerlab::gui
