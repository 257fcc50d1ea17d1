// Broadcast of a data-parallel run's start from rank 0 (see data_parallel_start.h).
#include "core/train/data_parallel_start.h"

#include <sstream>

#include <torch/torch.h>

namespace mixerlab {

// Length first, then the bytes as a uint8 tensor.
void broadcastBytes(ProcessGroup& group, std::string& bytes) {
  at::Tensor length = torch::tensor({static_cast<int64_t>(bytes.size())}, torch::kInt64);
  group.broadcast(length, 0);
  at::Tensor buffer = torch::zeros({length.item<int64_t>()}, torch::kUInt8);
  if (group.rank() == 0) std::memcpy(buffer.data_ptr(), bytes.data(), bytes.size());
  if (buffer.numel() > 0) group.broadcast(buffer, 0);
  bytes.assign(reinterpret_cast<const char*>(buffer.data_ptr()), static_cast<size_t>(buffer.numel()));
}

void synchronizeRunStart(ProcessGroup& group, LanguageModel& model, torch::optim::Optimizer& optimizer,
                         TrainerState& state) {
  torch::NoGradGuard no_grad;
  for (auto& p : model.parameters()) {
    at::Tensor data = p.detach();
    group.broadcast(data, 0);
  }
  for (auto& b : model.buffers()) {
    at::Tensor data = b.detach();
    group.broadcast(data, 0);
  }
  std::string optimizer_bytes;
  if (group.rank() == 0) {
    std::ostringstream out;
    torch::serialize::OutputArchive archive;
    optimizer.save(archive);
    archive.save_to(out);
    optimizer_bytes = out.str();
  }
  broadcastBytes(group, optimizer_bytes);
  std::string state_json = group.rank() == 0 ? state.toJson().dump() : std::string();
  broadcastBytes(group, state_json);
  if (group.rank() != 0) {
    std::istringstream in(optimizer_bytes);
    torch::serialize::InputArchive archive;
    archive.load_from(in);
    optimizer.load(archive);
    state = TrainerState::fromJson(nlohmann::json::parse(state_json));
  }
}

double maxWeightDifferenceFromRank0(ProcessGroup& group, LanguageModel& model) {
  torch::NoGradGuard no_grad;
  double local = 0;
  for (auto& p : model.parameters()) {
    at::Tensor rank0 = p.detach().clone();
    group.broadcast(rank0, 0);
    local = std::max(local, (rank0 - p.detach()).abs().max().item<double>());
  }
  at::Tensor worst = torch::tensor({local}, torch::kFloat64);
  group.allReduceMax(worst);
  return worst.item<double>();
}

bool anyRank(ProcessGroup& group, bool flag) {
  at::Tensor t = torch::tensor({flag ? 1.0f : 0.0f});
  group.allReduceMax(t);
  return t.item<float>() > 0;
}

double meanOverRanks(ProcessGroup& group, double value) {
  at::Tensor t = torch::tensor({value}, torch::kFloat64);
  group.allReduceSum(t);
  return t.item<double>() / group.worldSize();
}

}  // namespace mixerlab
