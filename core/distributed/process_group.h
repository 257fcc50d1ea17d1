// The c10d process group of a data-parallel job (PyTorch's own distributed engine, never a
// home-made protocol): a TCPStore rendezvous at MASTER_ADDR:MASTER_PORT (rank 0 serves it), then
// NCCL when every rank trains on its own GPU and this LibTorch has NCCL, else Gloo; one code path
// above it. c10d types stay in the .cpp, so including this costs nothing. Collectives must be
// called in the same order on every rank; CPU tensors given to an NCCL group are staged through
// the rank's GPU.
#pragma once
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <ATen/core/Tensor.h>

#include "core/distributed/distributed_env.h"

namespace mixerlab {

// A started asynchronous collective; wait() blocks until its result is in the tensor.
class PendingCollective {
 public:
  virtual ~PendingCollective() = default;
  virtual void wait() = 0;
};

struct JoinOptions {
  std::chrono::milliseconds timeout = std::chrono::minutes(5);
  int cuda_device = -1;          // this rank's GPU index (rank_device.h), or -1 when it trains on the CPU
  std::string backend = "auto";  // "auto", "gloo" or "nccl"
};

// True when this build's LibTorch has CUDA and NCCL (the CMake option MIXERLAB_WITH_NCCL).
bool ncclBuiltIn();
// This rank's vote: "nccl" when it trains on a GPU and NCCL is built in, else "gloo".
std::string backendVote(const JoinOptions& options);
// The backend every rank uses, from all the ranks' votes: NCCL only when every rank voted for it.
// `requested` "gloo" or "nccl" overrides; "nccl" with a rank that cannot use it throws MixerLabError.
std::string agreedBackend(const std::vector<std::string>& votes, const std::string& requested = "auto");

class ProcessGroup {
 public:
  // Joins the job: blocks until every rank has reached the rendezvous (or the timeout passes, then
  // throws MixerLabError naming the address), then the ranks agree on the backend through the store.
  // GLOO_SOCKET_IFNAME picks Gloo's network interface (NCCL_SOCKET_IFNAME NCCL's).
  static std::unique_ptr<ProcessGroup> join(const DistributedEnv& env, const JoinOptions& options = {});
  virtual ~ProcessGroup() = default;

  virtual int rank() const = 0;
  virtual int worldSize() const = 0;
  virtual std::string backendName() const = 0;  // "gloo" or "nccl"
  virtual void broadcast(at::Tensor& tensor, int root) = 0;
  virtual void allReduceSum(at::Tensor& tensor) = 0;
  virtual void allReduceMax(at::Tensor& tensor) = 0;
  virtual std::unique_ptr<PendingCollective> allReduceSumAsync(at::Tensor& tensor) = 0;
  virtual void barrier() = 0;
};

}  // namespace mixerlab
