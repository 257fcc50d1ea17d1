// Runs this program (or any program) as a child process and collects what it wrote, how it ended
// and its peak resident memory (wait4's rusage). `bench train --grid` and `bench memory` run each
// cell this way, so a cell that runs out of memory or crashes ends only itself. POSIX only.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace mixerlab::cli {

struct ChildRun {
  int exit_code = -1;         // the exit status when it exited, else -1
  int signal = 0;             // the signal that ended it (0 when it exited)
  bool timed_out = false;     // it ran past the time limit and was killed (SIGKILL)
  std::string out, err;       // everything it wrote to stdout and stderr
  int64_t max_rss_bytes = 0;  // its peak resident set (ru_maxrss)
};

// Starts `program` with `args` (argv[1..]), waits until it ends or `timeout_s` passes (<= 0: no
// limit) and returns the outcome. Throws MixerLabError when it cannot be started.
ChildRun runChildProcess(const std::string& program, const std::vector<std::string>& args, double timeout_s);

// The path of the running executable (/proc/self/exe).
std::string ownExecutable();

}  // namespace mixerlab::cli
