// Slurm's compact lists, as it writes them into a job's environment: host lists such as
// "gpu[01-04,07],login2" (SLURM_JOB_NODELIST) and task counts per node such as "2(x3),1"
// (SLURM_TASKS_PER_NODE). A job's ranks meet at its first host, so that is what is read here.
#pragma once
#include <string>

namespace mixerlab {

// The first host of a host list: "gpu[01-04,07],login2" -> "gpu01" (zero padding kept),
// "rack[1-2]-n[5-6]" -> "rack1-n5". Throws MixerLabError naming the list when it is empty or its
// brackets do not close.
std::string firstSlurmHost(const std::string& node_list);

// The task count of the first node: "2(x3),1" -> 2, "4" -> 4. Throws MixerLabError naming the text
// when it does not start with a whole number >= 1.
int firstSlurmTaskCount(const std::string& tasks_per_node);

}  // namespace mixerlab
