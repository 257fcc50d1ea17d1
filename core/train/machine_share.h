// Whether a run had the machine to itself: between two log records, the CPU time every process of
// the machine used (/proc/stat) less what this process used (/proc/self/stat), in cores. A run
// logged beside other work trains slower for reasons that are not its own, so a comparison at equal
// wall clock can say which runs shared the machine. The trainer logs it as the metric
// "other_cpu_cores"; the other ranks of a data-parallel run on the same machine are taken out, as
// each uses about what this rank does. Linux only: elsewhere, or when /proc cannot be read, nothing
// is logged.
#pragma once
#include <cstdint>
#include <optional>
#include <string>

namespace mixerlab {

// Machine-wide CPU ticks from /proc/stat's aggregate "cpu" line: busy (user, nice, system, irq,
// softirq, steal) and total (busy plus idle and iowait). Guest time is inside user already.
struct MachineTicks {
  uint64_t busy = 0, total = 0;
};
std::optional<MachineTicks> parseMachineTicks(const std::string& proc_stat);
// This process's user plus system ticks from the text of /proc/self/stat (fields 14 and 15, counted
// after the command name's closing parenthesis, which may itself hold spaces and parentheses).
std::optional<uint64_t> parseProcessTicks(const std::string& proc_self_stat);

// Cores' worth of CPU the other processes used between two samples: (machine busy - own - peers)
// over the elapsed ticks per CPU, never below 0. `local_peers`: other ranks of this run on the
// machine, each counted as using what this process used. nullopt when no time passed.
std::optional<double> otherCpuCores(const MachineTicks& before, const MachineTicks& after, uint64_t own_before,
                                    uint64_t own_after, int cpus, int local_peers);

class MachineShareSampler {
 public:
  explicit MachineShareSampler(int local_peers = 0);  // takes the first sample
  // Other processes' CPU use since the previous call (or construction), in cores; nullopt when it
  // cannot be measured here.
  std::optional<double> sample();

 private:
  struct Sample {
    MachineTicks machine;
    uint64_t own = 0;
  };
  static std::optional<Sample> read();
  std::optional<Sample> last_;
  int local_peers_ = 0;
  int cpus_ = 1;
};

}  // namespace mixerlab
