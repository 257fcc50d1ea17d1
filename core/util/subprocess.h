// The one place MixerLab starts other programs (fork + execve): bench cells, the rank processes of
// `mixerlab launch`, ssh for remote runs and probes, and the one-time OpenMP re-exec
// (core/util/openmp_wait.h). No other file calls fork or exec.
//
// Why one owner: MixerLab forks from multi-threaded processes (LibTorch's thread pools, Qt, the GUI's
// background jobs). fork copies only the calling thread; a lock another thread held at that moment
// (the environment's, stdio's, a logger's) stays locked forever in the child, so a child that calls
// setenv, fprintf or anything that allocates before exec can hang with no owner to release it.
// Everything the child needs (argv, the merged environment, the program's resolved path, the files
// its streams go to) is therefore prepared here in the parent before fork, and between fork and exec
// the child makes only async-signal-safe calls (sigaction, sigprocmask, dup2, fcntl, prctl, getppid,
// execve, write, _exit). An exec failure travels back through a close-on-exec pipe as errno, and the PARENT words
// the error: "cannot run PROGRAM: reason (fix: ...)". POSIX only; no Qt, no torch.
#pragma once
#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace mixerlab {

enum class ChildInput {
  kInherit,  // this process's standard input
  kNull,     // /dev/null: the child reads end-of-file at once and never waits for a terminal
};

enum class ChildOutput {
  kInherit,       // this process's stream
  kPipe,          // a pipe back to this process (Subprocess::stdoutFd/stderrFd; collect() reads it)
  kAppendToFile,  // SubprocessSpec::stdout_file / stderr_file, created when missing, written at its end
  kNull,          // /dev/null
  kSameAsStdout,  // stderr only: wherever stdout goes, as one interleaved stream
};

struct SubprocessSpec {
  std::string program;            // a path; with search_path, a bare name (no '/') is looked up in PATH
  std::vector<std::string> args;  // argv[1..]
  std::string argv0;              // argv[0] as the child sees it; empty: program
  bool search_path = false;       // look `program` up in this process's PATH (as execvp does)
  // NAME=value pairs the child's environment gets on top of this process's (replacing a variable of
  // the same name); this process's own environment is never changed.
  std::vector<std::pair<std::string, std::string>> env;
  ChildInput stdin_from = ChildInput::kInherit;
  ChildOutput stdout_to = ChildOutput::kInherit;
  ChildOutput stderr_to = ChildOutput::kInherit;
  std::filesystem::path stdout_file, stderr_file;  // for kAppendToFile
  // SIGINT and SIGTERM at their default action and unblocked in the child, even when this process
  // ignores or blocks them (a supervisor that forwards them, a parent started under nohup).
  bool default_stop_signals = false;
  // The signal the child gets when this process dies, even by SIGKILL (Linux's parent-death signal,
  // PR_SET_PDEATHSIG, kept across exec); 0: none, the child outlives this process. A child whose
  // parent died before the signal was armed exits at once. Linux sends it when the THREAD that called
  // spawn ends, so spawn from a thread that lives as long as the child should (the main thread).
  int parent_death_signal = 0;
  // Descriptors of this process (each above 2, normally close-on-exec) that the child keeps open
  // under the same numbers, e.g. one end of a socket pair to report to this process.
  std::vector<int> inherited_fds;
};

// A command line as a spec: argv[0] is looked up in PATH, the rest are its arguments, and its
// standard input is /dev/null (it never waits for a terminal). Outputs are inherited until set.
SubprocessSpec commandSpec(const std::vector<std::string>& argv);

struct ChildExit {
  int exit_code = -1;         // the exit status when it exited, else -1
  int signal = 0;             // the signal that ended it (0 when it exited)
  int64_t max_rss_bytes = 0;  // its peak resident set (wait4's ru_maxrss)

  bool succeeded() const { return signal == 0 && exit_code == 0; }
  int shellCode() const { return signal != 0 ? 128 + signal : exit_code; }  // as a shell's $? says it
};

// "exited with code 3" / "was killed by signal 9 (Killed)".
std::string describeExit(const ChildExit& exit);

// What collect() gathered: how the child ended, and everything it wrote to its piped streams.
struct CapturedRun : ChildExit {
  bool timed_out = false;  // it ran past the time limit and was killed (SIGKILL)
  std::string out, err;    // what it wrote to stdout and stderr (those that were kPipe)
};

// A started child process. Move-only; the handle that still owns an unfinished child when it is
// destroyed kills it (SIGKILL) and reaps it, so no child outlives an exception, and no zombie stays.
class Subprocess {
 public:
  Subprocess() = default;
  Subprocess(Subprocess&& other) noexcept;
  Subprocess& operator=(Subprocess&& other) noexcept;
  Subprocess(const Subprocess&) = delete;
  Subprocess& operator=(const Subprocess&) = delete;
  ~Subprocess();

  pid_t pid() const { return pid_; }           // kept after the child was reaped (for messages)
  int stdoutFd() const { return stdout_fd_; }  // the read end of a kPipe stdout, else -1
  int stderrFd() const { return stderr_fd_; }  // the read end of a kPipe stderr, else -1
  bool finished() const { return exit_.has_value(); }

  // Blocks until the child ends (EINTR-safe) and reaps it; later calls return the same outcome.
  ChildExit wait();
  // The outcome when the child has ended (it is reaped then), else nullopt at once.
  std::optional<ChildExit> tryWait();
  // Sends `signal` unless the child was already reaped (its pid may belong to another process by
  // then); false when it was not sent.
  bool sendSignal(int signal);
  // Reads both piped streams until they close, while the child runs, without letting either pipe
  // fill up; then reaps it. Past `timeout_s` (<= 0: no limit) the child is killed (SIGKILL) and the
  // result says timed_out. Output a grandchild writes after the child ended is not waited for.
  CapturedRun collect(double timeout_s);

 private:
  friend Subprocess spawn(const SubprocessSpec& spec);
  void closePipes();

  pid_t pid_ = -1;
  int stdout_fd_ = -1, stderr_fd_ = -1;
  std::optional<ChildExit> exit_;
};

// Starts the child. Throws MixerLabError naming the program and the reason when it cannot be
// started (not found, not executable, an output file that cannot be opened, no more processes).
Subprocess spawn(const SubprocessSpec& spec);

// spawn(spec).collect(timeout_s): runs it to its end.
CapturedRun runToEnd(const SubprocessSpec& spec, double timeout_s);

// Runs argv (no shell; argv[0] looked up in PATH, stdin /dev/null) to its end with its standard
// output and error captured together in `output`; returns its exit code (128 + signal when it was
// killed). A program that cannot be started gives 127 with the reason appended to `output`, as a
// shell would: never an exception (hardware probes run `nvidia-smi` where there is none).
int runCapture(const std::vector<std::string>& argv, std::string* output);

// Replaces this process's image with spec's program (execve: same pid, nothing returns on success).
// Only program, args, argv0, search_path and env apply; the streams and signals stay as they are.
// Returns only when it failed, with the reason ("cannot run ...").
std::string replaceProcessImage(const SubprocessSpec& spec);

// The path of the running executable (/proc/self/exe); empty when it cannot be read.
std::string currentExecutable();

// True while process `pid` (> 0) exists on this host, also when it belongs to another user.
bool processAlive(int64_t pid);

}  // namespace mixerlab
