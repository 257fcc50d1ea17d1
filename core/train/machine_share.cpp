// Other processes' CPU use while a run trains (see machine_share.h).
#include "core/train/machine_share.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <vector>

namespace mixerlab {

std::optional<MachineTicks> parseMachineTicks(const std::string& proc_stat) {
  std::istringstream in(proc_stat);
  std::string label;
  if (!(in >> label) || label != "cpu") return std::nullopt;
  // user nice system idle iowait irq softirq steal [guest guest_nice]
  std::vector<uint64_t> fields;
  uint64_t value = 0;
  while (fields.size() < 8 && in >> value) fields.push_back(value);
  if (fields.size() < 4) return std::nullopt;
  fields.resize(8, 0);
  MachineTicks ticks;
  ticks.busy = fields[0] + fields[1] + fields[2] + fields[5] + fields[6] + fields[7];
  ticks.total = ticks.busy + fields[3] + fields[4];
  return ticks;
}

std::optional<uint64_t> parseProcessTicks(const std::string& proc_self_stat) {
  const size_t close = proc_self_stat.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream in(proc_self_stat.substr(close + 1));
  // Field 3 (state) is the first after the name; utime and stime are fields 14 and 15.
  std::string field;
  for (int index = 3; index < 14; ++index) {
    if (!(in >> field)) return std::nullopt;
  }
  uint64_t utime = 0, stime = 0;
  if (!(in >> utime >> stime)) return std::nullopt;
  return utime + stime;
}

std::optional<double> otherCpuCores(const MachineTicks& before, const MachineTicks& after, uint64_t own_before,
                                    uint64_t own_after, int cpus, int local_peers) {
  if (after.total <= before.total || cpus <= 0) return std::nullopt;
  const double elapsed_per_cpu = static_cast<double>(after.total - before.total) / cpus;
  const double busy = after.busy >= before.busy ? static_cast<double>(after.busy - before.busy) : 0.0;
  const double own = own_after >= own_before ? static_cast<double>(own_after - own_before) : 0.0;
  const double others = busy - own * (1 + std::max(0, local_peers));
  return std::max(0.0, others / elapsed_per_cpu);
}

namespace {
std::string readWhole(const char* path) {
  std::ifstream in(path);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}
}  // namespace

MachineShareSampler::MachineShareSampler(int local_peers) : local_peers_(std::max(0, local_peers)) {
  const long online = sysconf(_SC_NPROCESSORS_ONLN);
  cpus_ = online > 0 ? static_cast<int>(online) : 1;
  last_ = read();
}

std::optional<MachineShareSampler::Sample> MachineShareSampler::read() {
  const auto machine = parseMachineTicks(readWhole("/proc/stat"));
  const auto own = parseProcessTicks(readWhole("/proc/self/stat"));
  if (!machine || !own) return std::nullopt;
  return Sample{*machine, *own};
}

std::optional<double> MachineShareSampler::sample() {
  const auto now = read();
  if (!now || !last_) {
    last_ = now;
    return std::nullopt;
  }
  const auto cores = otherCpuCores(last_->machine, now->machine, last_->own, now->own, cpus_, local_peers_);
  if (cores) last_ = now;  // too short an interval: measured over a longer one next time
  return cores;
}

}  // namespace mixerlab
