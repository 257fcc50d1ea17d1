// fork + execve with everything prepared before fork, and the child handle (see subprocess.h).
#include "core/util/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <string_view>
#include <thread>

#include "core/util/error.h"
#include "kernels/environment/process_environment.h"

extern char** environ;  // POSIX: the program declares it itself

namespace mixerlab {
namespace fs = std::filesystem;

namespace {

// A file descriptor this process closes when the holder goes (the parent's side of a spawn).
class ScopedFd {
 public:
  ScopedFd() = default;
  ScopedFd(const ScopedFd&) = delete;
  ScopedFd& operator=(const ScopedFd&) = delete;
  ~ScopedFd() { reset(); }
  int get() const { return fd_; }
  int release() { return std::exchange(fd_, -1); }
  void reset(int fd = -1) {
    if (fd_ >= 0) ::close(fd_);
    fd_ = fd;
  }

 private:
  int fd_ = -1;
};

void closeFd(int* fd) {
  if (*fd >= 0) ::close(*fd);
  *fd = -1;
}

MixerLabError cannotRun(const std::string& program, int error, const std::string& detail = {}) {
  std::string fix;
  switch (error) {
    case ENOENT:
      fix = "check the path, or install " + program;
      break;
    case EACCES:
    case EPERM:
      fix = "make it executable (chmod +x " + program + ") or check the path";
      break;
    case ENOEXEC:
      fix = "it is not a program this machine can run: check the path";
      break;
    case EAGAIN:
    case ENOMEM:
      fix = "this machine is out of processes or memory: end some processes and try again";
      break;
    case EMFILE:
    case ENFILE:
      fix = "too many open files: raise the limit (ulimit -n)";
      break;
    default:
      break;
  }
  return MixerLabError("cannot run " + program + ": " + detail + std::strerror(error), fix);
}

// Moves a descriptor of ours off 0, 1 and 2 (where it lands when this process runs with a standard
// stream closed), so the child's dup2 onto 0..2 can never overwrite another of its sources.
int aboveStdio(int fd) {
  if (fd < 0 || fd > 2) return fd;
  const int moved = ::fcntl(fd, F_DUPFD_CLOEXEC, 3);
  const int error = errno;
  ::close(fd);
  errno = error;
  return moved;
}

void makePipe(const std::string& program, ScopedFd* read_end, ScopedFd* write_end) {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) throw cannotRun(program, errno, "no pipe to it: ");
  read_end->reset(aboveStdio(fds[0]));
  write_end->reset(aboveStdio(fds[1]));
  if (read_end->get() < 0 || write_end->get() < 0) throw cannotRun(program, errno, "no pipe to it: ");
}

int openForChild(const std::string& program, const fs::path& path, int flags, const char* role) {
  if (path.empty()) {
    throw MixerLabError("cannot run " + program + ": no file named for its " + role, "name the file in the spec");
  }
  const int fd = aboveStdio(::open(path.c_str(), flags | O_CLOEXEC, 0644));
  if (fd < 0) {
    throw MixerLabError(
        "cannot run " + program + ": cannot open " + path.string() + " for its " + role + ": " + std::strerror(errno),
        "check that the folder exists and can be written");
  }
  return fd;
}

// One output stream: `child_end` becomes the child's descriptor, `parent_end` (a pipe's read end)
// stays here. Both stay closed (-1) for kInherit.
void prepareOutput(const std::string& program, ChildOutput to, const fs::path& file, const char* role,
                   ScopedFd* child_end, ScopedFd* parent_end) {
  switch (to) {
    case ChildOutput::kInherit:
    case ChildOutput::kSameAsStdout:
      return;
    case ChildOutput::kPipe:
      makePipe(program, parent_end, child_end);
      return;
    case ChildOutput::kAppendToFile:
      child_end->reset(openForChild(program, file, O_WRONLY | O_CREAT | O_APPEND, role));
      return;
    case ChildOutput::kNull:
      child_end->reset(openForChild(program, "/dev/null", O_WRONLY, role));
      return;
  }
}

// The program's path: as given, or found in PATH (execvp's rules) when asked to search.
std::string resolveProgram(const SubprocessSpec& spec) {
  if (spec.program.empty()) throw MixerLabError("cannot run a program with no name", "name the program to run");
  if (!spec.search_path || spec.program.find('/') != std::string::npos) return spec.program;
  const std::string search =
      kernels::environmentValue(kernels::EnvironmentVariable::kSearchPath).value_or("/bin:/usr/bin");
  bool found_unexecutable = false;
  for (size_t start = 0;;) {
    const size_t end = search.find(':', start);
    const std::string folder = search.substr(start, end == std::string::npos ? std::string::npos : end - start);
    const std::string candidate = (folder.empty() ? "." : folder) + "/" + spec.program;
    struct stat info {};
    if (::stat(candidate.c_str(), &info) == 0 && S_ISREG(info.st_mode)) {
      if (::access(candidate.c_str(), X_OK) == 0) return candidate;
      found_unexecutable = true;
    }
    if (end == std::string::npos) break;
    start = end + 1;
  }
  if (found_unexecutable) throw cannotRun(spec.program, EACCES, "found in PATH, but ");
  throw MixerLabError("cannot run " + spec.program + ": not found in PATH (" + search + ")",
                      "install " + spec.program + ", or add the folder that holds it to PATH");
}

std::vector<std::string> argumentStrings(const SubprocessSpec& spec) {
  std::vector<std::string> strings{spec.argv0.empty() ? spec.program : spec.argv0};
  strings.insert(strings.end(), spec.args.begin(), spec.args.end());
  return strings;
}

// This process's environment with the spec's variables set on top (the last of a repeated name wins).
std::vector<std::string> environmentStrings(const SubprocessSpec& spec) {
  std::vector<std::string> overrides;
  for (auto it = spec.env.rbegin(); it != spec.env.rend(); ++it) {
    const std::string& name = it->first;
    if (name.empty() || name.find('=') != std::string::npos || name.find('\0') != std::string::npos) {
      throw MixerLabError("cannot run " + spec.program + ": '" + name + "' is no environment variable name",
                          "use a non-empty name without '='");
    }
    const bool repeated = std::any_of(overrides.begin(), overrides.end(), [&](const std::string& entry) {
      return entry.compare(0, name.size() + 1, name + "=") == 0;
    });
    if (!repeated) overrides.push_back(name + "=" + it->second);
  }
  std::vector<std::string> strings;
  for (char** entry = environ; entry != nullptr && *entry != nullptr; ++entry) {
    const std::string_view text(*entry);
    const std::string_view name = text.substr(0, text.find('='));
    const bool replaced = std::any_of(overrides.begin(), overrides.end(), [&](const std::string& set) {
      return set.size() > name.size() && set[name.size()] == '=' &&
             std::string_view(set).substr(0, name.size()) == name;
    });
    if (!replaced) strings.emplace_back(text);
  }
  strings.insert(strings.end(), overrides.begin(), overrides.end());
  return strings;
}

std::vector<char*> pointerArray(std::vector<std::string>& strings) {
  std::vector<char*> pointers;
  pointers.reserve(strings.size() + 1);
  for (std::string& s : strings) pointers.push_back(s.data());
  pointers.push_back(nullptr);
  return pointers;
}

// What the child reports through the close-on-exec pipe when it cannot reach its program.
struct ChildFailure {
  enum Stage : int { kRedirect = 1, kExec = 2 } stage;
  int error;
};

// Everything the child does between fork and exec, prepared by the parent: only plain data here.
struct ChildPlan {
  const char* path = nullptr;
  char* const* argv = nullptr;
  char* const* envp = nullptr;
  int stdio_source[3] = {-1, -1, -1};  // descriptors (all > 2) for the child's 0, 1, 2; -1: as inherited
  bool stderr_to_stdout = false;
  bool default_stop_signals = false;
  int parent_death_signal = 0;  // 0: none
  pid_t parent_pid = -1;        // this process, recorded before fork
  const int* inherited_fds = nullptr;
  size_t inherited_fd_count = 0;
  struct sigaction default_action {};
  sigset_t exec_mask{};  // the signal mask the program starts with
  int failure_fd = -1;   // the close-on-exec pipe's write end
};

[[noreturn]] void failInChild(const ChildPlan& plan, ChildFailure::Stage stage) {
  const ChildFailure failure{stage, errno};
  const ssize_t written = ::write(plan.failure_fd, &failure, sizeof failure);
  (void)written;  // nothing more a child can do; the parent then sees only the exit code
  ::_exit(127);
}

// The child, between fork and exec: async-signal-safe calls only (no allocation, no locks, no stdio,
// no setenv), because a lock another thread of the parent held at fork time is never released here.
[[noreturn]] void runChild(const ChildPlan& plan) {
  if (plan.parent_death_signal != 0) {
#ifdef __linux__
    ::prctl(PR_SET_PDEATHSIG, static_cast<unsigned long>(plan.parent_death_signal));
#endif
    // A parent that died between fork and prctl sends nothing: its orphan (adopted by another
    // process, so getppid changed) ends here instead of running on.
    if (::getppid() != plan.parent_pid) ::_exit(128 + plan.parent_death_signal);
  }
  // A handler of the parent must never run in the child: caught signals go back to their default
  // (all signals are blocked until the mask is set below).
  for (int sig = 1; sig < NSIG; ++sig) {
    struct sigaction current {};
    if (::sigaction(sig, nullptr, &current) != 0) continue;
    const bool caught =
        (current.sa_flags & SA_SIGINFO) != 0 || (current.sa_handler != SIG_DFL && current.sa_handler != SIG_IGN);
    const bool stop_signal = sig == SIGINT || sig == SIGTERM;
    if (caught || (plan.default_stop_signals && stop_signal)) ::sigaction(sig, &plan.default_action, nullptr);
  }
  for (size_t i = 0; i < plan.inherited_fd_count; ++i) {  // kept open across exec
    const int flags = ::fcntl(plan.inherited_fds[i], F_GETFD);
    if (flags < 0 || ::fcntl(plan.inherited_fds[i], F_SETFD, flags & ~FD_CLOEXEC) < 0) {
      failInChild(plan, ChildFailure::kRedirect);
    }
  }
  for (int target = 0; target < 3; ++target) {
    const int source = plan.stdio_source[target];
    if (source >= 0 && ::dup2(source, target) < 0) failInChild(plan, ChildFailure::kRedirect);
  }
  if (plan.stderr_to_stdout && ::dup2(STDOUT_FILENO, STDERR_FILENO) < 0) failInChild(plan, ChildFailure::kRedirect);
  ::sigprocmask(SIG_SETMASK, &plan.exec_mask, nullptr);
  ::execve(plan.path, plan.argv, plan.envp);
  failInChild(plan, ChildFailure::kExec);
}

// The parent-death signal and the descriptors to pass on, checked in the parent (the child cannot
// say what went wrong in words).
void checkChildOptions(const SubprocessSpec& spec) {
  if (spec.parent_death_signal < 0 || spec.parent_death_signal >= NSIG) {
    throw MixerLabError("cannot run " + spec.program + ": " + std::to_string(spec.parent_death_signal) +
                            " is no signal number for its parent-death signal",
                        "use a signal such as SIGKILL or SIGTERM, or 0 for none");
  }
#ifndef __linux__
  if (spec.parent_death_signal != 0) {
    throw MixerLabError("cannot run " + spec.program + ": a parent-death signal needs Linux",
                        "leave parent_death_signal at 0 on this system");
  }
#endif
  for (const int fd : spec.inherited_fds) {
    if (fd <= STDERR_FILENO || ::fcntl(fd, F_GETFD) < 0) {
      throw MixerLabError("cannot run " + spec.program + ": descriptor " + std::to_string(fd) +
                              " cannot be passed on (it is a standard stream or not open)",
                          "pass an open descriptor above 2");
    }
  }
}

ChildExit exitFromStatus(int status, const rusage& usage) {
  ChildExit exit;
  if (WIFEXITED(status)) exit.exit_code = WEXITSTATUS(status);
  if (WIFSIGNALED(status)) exit.signal = WTERMSIG(status);
  exit.max_rss_bytes = static_cast<int64_t>(usage.ru_maxrss) * 1024;
  return exit;
}

}  // namespace

SubprocessSpec commandSpec(const std::vector<std::string>& argv) {
  SubprocessSpec spec;
  if (!argv.empty()) {
    spec.program = argv.front();
    spec.args.assign(argv.begin() + 1, argv.end());
  }
  spec.search_path = true;
  spec.stdin_from = ChildInput::kNull;
  return spec;
}

std::string describeExit(const ChildExit& exit) {
  if (exit.signal != 0) {
    return "was killed by signal " + std::to_string(exit.signal) + " (" + ::strsignal(exit.signal) + ")";
  }
  if (exit.exit_code < 0) return "ended, but its exit status was lost (another part of the program reaped it)";
  return "exited with code " + std::to_string(exit.exit_code);
}

Subprocess spawn(const SubprocessSpec& spec) {
  const std::string path = resolveProgram(spec);
  std::vector<std::string> argument_strings = argumentStrings(spec);
  std::vector<std::string> environment_strings = environmentStrings(spec);
  const std::vector<char*> argv = pointerArray(argument_strings);
  const std::vector<char*> envp = pointerArray(environment_strings);
  if (spec.stdout_to == ChildOutput::kSameAsStdout) {
    throw MixerLabError("cannot run " + spec.program + ": its stdout cannot go \"where stdout goes\"",
                        "use kSameAsStdout for stderr only");
  }
  checkChildOptions(spec);

  ScopedFd stdin_source, stdout_source, stderr_source, stdout_read, stderr_read, failure_read, failure_write;
  if (spec.stdin_from == ChildInput::kNull) {
    stdin_source.reset(openForChild(spec.program, "/dev/null", O_RDONLY, "standard input"));
  }
  prepareOutput(spec.program, spec.stdout_to, spec.stdout_file, "standard output", &stdout_source, &stdout_read);
  prepareOutput(spec.program, spec.stderr_to, spec.stderr_file, "standard error", &stderr_source, &stderr_read);
  makePipe(spec.program, &failure_read, &failure_write);

  ChildPlan plan;
  plan.path = path.c_str();
  plan.argv = argv.data();
  plan.envp = envp.data();
  plan.stdio_source[0] = stdin_source.get();
  plan.stdio_source[1] = stdout_source.get();
  plan.stdio_source[2] = stderr_source.get();
  plan.stderr_to_stdout = spec.stderr_to == ChildOutput::kSameAsStdout;
  plan.default_stop_signals = spec.default_stop_signals;
  plan.parent_death_signal = spec.parent_death_signal;
  plan.parent_pid = ::getpid();
  plan.inherited_fds = spec.inherited_fds.data();
  plan.inherited_fd_count = spec.inherited_fds.size();
  plan.default_action.sa_handler = SIG_DFL;
  sigemptyset(&plan.default_action.sa_mask);
  plan.failure_fd = failure_write.get();

  // No signal handler may run in the child before it has reset them: block everything around fork.
  sigset_t all_signals, previous_mask;
  sigfillset(&all_signals);
  ::pthread_sigmask(SIG_SETMASK, &all_signals, &previous_mask);
  plan.exec_mask = previous_mask;
  if (spec.default_stop_signals) {
    sigdelset(&plan.exec_mask, SIGINT);
    sigdelset(&plan.exec_mask, SIGTERM);
  }
  const pid_t pid = ::fork();
  const int fork_error = errno;
  if (pid == 0) runChild(plan);
  ::pthread_sigmask(SIG_SETMASK, &previous_mask, nullptr);
  if (pid < 0) throw cannotRun(spec.program, fork_error, "no new process: ");

  Subprocess child;
  child.pid_ = pid;
  child.stdout_fd_ = stdout_read.release();
  child.stderr_fd_ = stderr_read.release();
  failure_write.reset();  // the child holds its copy until exec closes it
  stdin_source.reset();
  stdout_source.reset();
  stderr_source.reset();

  ChildFailure failure{};
  size_t received = 0;
  while (received < sizeof failure) {
    const ssize_t n =
        ::read(failure_read.get(), reinterpret_cast<char*>(&failure) + received, sizeof failure - received);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    received += static_cast<size_t>(n);
  }
  if (received == sizeof failure) {  // it never became the program: reap it, then say why
    child.wait();
    if (failure.stage == ChildFailure::kRedirect) {
      throw cannotRun(spec.program, failure.error, "its standard streams could not be redirected: ");
    }
    throw cannotRun(spec.program, failure.error);
  }
  return child;
}

Subprocess::Subprocess(Subprocess&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      stdout_fd_(std::exchange(other.stdout_fd_, -1)),
      stderr_fd_(std::exchange(other.stderr_fd_, -1)),
      exit_(std::exchange(other.exit_, std::nullopt)) {}

Subprocess& Subprocess::operator=(Subprocess&& other) noexcept {
  if (this != &other) {
    Subprocess gone(std::move(*this));  // ends the child this handle held
    pid_ = std::exchange(other.pid_, -1);
    stdout_fd_ = std::exchange(other.stdout_fd_, -1);
    stderr_fd_ = std::exchange(other.stderr_fd_, -1);
    exit_ = std::exchange(other.exit_, std::nullopt);
  }
  return *this;
}

Subprocess::~Subprocess() {
  closePipes();
  if (pid_ > 0 && !exit_) {
    sendSignal(SIGKILL);
    wait();
  }
}

void Subprocess::closePipes() {
  closeFd(&stdout_fd_);
  closeFd(&stderr_fd_);
}

ChildExit Subprocess::wait() {
  if (exit_ || pid_ <= 0) return exit_.value_or(ChildExit{});
  int status = 0;
  rusage usage{};
  pid_t reaped = -1;
  while ((reaped = ::wait4(pid_, &status, 0, &usage)) < 0 && errno == EINTR) {
  }
  exit_ = reaped == pid_ ? exitFromStatus(status, usage) : ChildExit{};  // ECHILD: reaped elsewhere
  return *exit_;
}

std::optional<ChildExit> Subprocess::tryWait() {
  if (exit_ || pid_ <= 0) return exit_;
  int status = 0;
  rusage usage{};
  const pid_t reaped = ::wait4(pid_, &status, WNOHANG, &usage);
  if (reaped == 0 || (reaped < 0 && errno == EINTR)) return std::nullopt;
  exit_ = reaped == pid_ ? exitFromStatus(status, usage) : ChildExit{};
  return exit_;
}

bool Subprocess::sendSignal(int signal) {
  if (pid_ <= 0 || exit_) return false;
  return ::kill(pid_, signal) == 0;
}

CapturedRun Subprocess::collect(double timeout_s) {
  using Clock = std::chrono::steady_clock;
  const bool limited = timeout_s > 0;
  const auto deadline = Clock::now() + std::chrono::duration_cast<Clock::duration>(
                                           std::chrono::duration<double>(limited ? timeout_s : 0));
  CapturedRun run;
  if (pid_ <= 0) return run;  // no child
  int* fds[2] = {&stdout_fd_, &stderr_fd_};
  std::string* sinks[2] = {&run.out, &run.err};
  std::vector<char> buffer(65536);
  // One poll of the open pipes (up to wait_ms); reads what is there. False when nothing happened.
  const auto readPipes = [&](int wait_ms) {
    pollfd polled[2] = {{*fds[0], POLLIN, 0}, {*fds[1], POLLIN, 0}};  // poll skips a negative fd
    if (::poll(polled, 2, wait_ms) <= 0) return false;
    for (int i = 0; i < 2; ++i) {
      if (polled[i].fd < 0 || !(polled[i].revents & (POLLIN | POLLHUP | POLLERR))) continue;
      const ssize_t n = ::read(polled[i].fd, buffer.data(), buffer.size());
      if (n > 0) {
        sinks[i]->append(buffer.data(), static_cast<size_t>(n));
      } else if (n == 0 || errno != EINTR) {
        closeFd(fds[i]);  // end of the stream
      }
    }
    return true;
  };
  constexpr int64_t kSliceMs = 100;  // how often a child whose pipes stay open is checked for its end
  while (!tryWait()) {
    const int64_t left_ms =
        limited ? std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count() : kSliceMs;
    if (left_ms <= 0) {
      sendSignal(SIGKILL);
      run.timed_out = true;
      break;
    }
    const int slice_ms = static_cast<int>(std::clamp<int64_t>(left_ms, 1, kSliceMs));
    if (stdout_fd_ >= 0 || stderr_fd_ >= 0) {
      readPipes(slice_ms);
    } else if (!limited) {
      wait();
    } else {
      std::this_thread::sleep_for(std::chrono::milliseconds(std::min(slice_ms, 10)));
    }
  }
  // It has ended: all it wrote is in the pipes now. A grandchild that holds them open is not waited
  // for, and one that keeps writing is read for a bounded while only (a pipe holds 64 KiB to 1 MiB).
  for (int reads = 0; reads < 1024 && !run.timed_out && (stdout_fd_ >= 0 || stderr_fd_ >= 0) && readPipes(0); ++reads) {
  }
  closePipes();
  static_cast<ChildExit&>(run) = wait();
  return run;
}

CapturedRun runToEnd(const SubprocessSpec& spec, double timeout_s) { return spawn(spec).collect(timeout_s); }

int runCapture(const std::vector<std::string>& argv, std::string* output) {
  SubprocessSpec spec = commandSpec(argv);
  spec.stdout_to = ChildOutput::kPipe;
  spec.stderr_to = ChildOutput::kSameAsStdout;
  Subprocess child;
  try {
    child = spawn(spec);
  } catch (const MixerLabError& e) {
    output->append(e.what()).append("\n");
    return 127;  // a shell's "command not found"
  }
  const CapturedRun run = child.collect(0);
  output->append(run.out);
  return run.shellCode();
}

std::string replaceProcessImage(const SubprocessSpec& spec) {
  try {
    const std::string path = resolveProgram(spec);
    std::vector<std::string> argument_strings = argumentStrings(spec);
    std::vector<std::string> environment_strings = environmentStrings(spec);
    const std::vector<char*> argv = pointerArray(argument_strings);
    const std::vector<char*> envp = pointerArray(environment_strings);
    ::execve(path.c_str(), argv.data(), envp.data());
    return cannotRun(spec.program, errno).what();
  } catch (const MixerLabError& e) {
    return e.what();
  }
}

bool processAlive(int64_t pid) { return pid > 0 && (::kill(static_cast<pid_t>(pid), 0) == 0 || errno == EPERM); }

std::string currentExecutable() {
  char path[4096];
  const ssize_t n = ::readlink("/proc/self/exe", path, sizeof path - 1);
  return std::string(path, static_cast<size_t>(std::max<ssize_t>(n, 0)));
}

}  // namespace mixerlab
