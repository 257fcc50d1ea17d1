// Which device a data-parallel rank trains on, from the run's train.device and the rank's place on
// its machine (LOCAL_RANK): each rank of a GPU node takes its own GPU, as torchrun jobs do, because
// NCCL refuses two ranks on one GPU. Pure, so the rules are tested without a GPU.
#pragma once
#include <cstdint>
#include <string>

namespace mixerlab {

// "cpu" stays "cpu"; "auto" is "cuda:<local_rank>" when this machine has a GPU for every local rank,
// "cpu" when it has none; "cuda" is "cuda:<local_rank>"; an explicit "cuda:N" is kept when this
// machine runs one rank, else refused. Throws MixerLabError (naming the counts and the fix) when
// the ranks on this machine outnumber its GPUs.
std::string rankDevice(const std::string& requested, int local_rank, int local_world_size, int64_t cuda_devices);

}  // namespace mixerlab
