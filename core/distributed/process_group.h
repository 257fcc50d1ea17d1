// The c10d process group of a data-parallel job (PyTorch's own distributed engine, never a
// home-made protocol): a TCPStore rendezvous at MASTER_ADDR:MASTER_PORT (rank 0 serves it) and a
// Gloo group for CPU tensors. c10d types stay in the .cpp, so including this costs nothing.
// Collectives must be called in the same order on every rank.
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

class ProcessGroup {
 public:
  // Joins the job: blocks until every rank has reached the rendezvous (or `timeout` passes, then
  // throws MixerLabError naming the address). GLOO_SOCKET_IFNAME picks the network interface.
  static std::unique_ptr<ProcessGroup> join(const DistributedEnv& env,
                                            std::chrono::milliseconds timeout = std::chrono::minutes(5));
  virtual ~ProcessGroup() = default;

  virtual int rank() const = 0;
  virtual int worldSize() const = 0;
  virtual std::string backendName() const = 0;  // "gloo"
  virtual void broadcast(at::Tensor& tensor, int root) = 0;
  virtual void allReduceSum(at::Tensor& tensor) = 0;
  virtual void allReduceMax(at::Tensor& tensor) = 0;
  virtual std::unique_ptr<PendingCollective> allReduceSumAsync(at::Tensor& tensor) = 0;
  virtual void barrier() = 0;
};

}  // namespace mixerlab
