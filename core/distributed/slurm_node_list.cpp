// Reading Slurm's host lists and task counts (see slurm_node_list.h).
#include "core/distributed/slurm_node_list.h"

#include <cctype>

#include "core/util/error.h"

namespace mixerlab {

std::string firstSlurmHost(const std::string& node_list) {
  const auto malformed = [&node_list](const std::string& why) {
    return MixerLabError("Slurm host list \"" + node_list + "\" " + why,
                         "run inside a Slurm job (srun), or set MASTER_ADDR to rank 0's host");
  };
  std::string host;
  for (size_t i = 0; i < node_list.size(); ++i) {
    const char c = node_list[i];
    if (c == ',') break;  // the first host ends at a comma outside brackets
    if (c != '[') {
      host += c;
      continue;
    }
    const size_t close = node_list.find(']', i);
    if (close == std::string::npos) throw malformed("has a '[' that does not close");
    // The range's first element, up to its ',' or '-': "01-04,07" -> "01".
    const std::string inside = node_list.substr(i + 1, close - i - 1);
    const std::string first = inside.substr(0, inside.find_first_of(",-"));
    if (first.empty()) throw malformed("has an empty range");
    host += first;
    i = close;
  }
  if (host.empty()) throw malformed("names no host");
  return host;
}

int firstSlurmTaskCount(const std::string& tasks_per_node) {
  size_t digits = 0;
  while (digits < tasks_per_node.size() && std::isdigit(static_cast<unsigned char>(tasks_per_node[digits])) &&
         digits < 7)
    ++digits;
  const int count = digits == 0 ? 0 : std::stoi(tasks_per_node.substr(0, digits));
  if (count < 1) {
    throw MixerLabError("Slurm task count \"" + tasks_per_node + "\" does not start with a whole number >= 1",
                        "run inside a Slurm job (srun), or set LOCAL_WORLD_SIZE");
  }
  return count;
}

}  // namespace mixerlab
