// Per-rank device choice (see rank_device.h).
#include "core/distributed/rank_device.h"

#include "core/util/error.h"

namespace mixerlab {

std::string rankDevice(const std::string& requested, int local_rank, int local_world_size, int64_t cuda_devices) {
  if (requested == "cpu") return "cpu";
  if (requested == "auto" && cuda_devices == 0) return "cpu";
  const std::string counts = std::to_string(local_world_size) + " ranks on this machine";
  if (requested.rfind("cuda:", 0) == 0) {
    if (local_world_size > 1) {
      throw MixerLabError("train.device \"" + requested + "\" puts all " + counts + " on one GPU",
                          "set train.device to \"cuda\" or \"auto\" so each rank takes the GPU of its LOCAL_RANK");
    }
    return requested;
  }
  if (requested != "auto" && requested != "cuda") {
    throw MixerLabError("unknown train.device \"" + requested + "\"", "use auto, cpu, cuda or cuda:N");
  }
  if (cuda_devices == 0) {
    throw MixerLabError("train.device \"cuda\" requested but this LibTorch build sees no CUDA GPU",
                        "set train.device to \"cpu\" or \"auto\", or build with a CUDA-enabled LibTorch");
  }
  if (local_world_size > cuda_devices || local_rank >= cuda_devices) {
    throw MixerLabError(counts + " but " + std::to_string(cuda_devices) + " GPU(s): each rank needs its own GPU",
                        "start at most " + std::to_string(cuda_devices) +
                            " ranks per machine (--nproc), or set "
                            "train.device \"cpu\"");
  }
  return "cuda:" + std::to_string(local_rank);
}

}  // namespace mixerlab
