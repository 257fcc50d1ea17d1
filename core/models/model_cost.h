// Analytic cost of a model: parameters, FLOPs per token and activation memory, per layer and in
// total. Used by `mixerlab info` and the GUI's live cost preview. Formulas are stated in `formula`.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace mixerlab {

struct LayerCost {
  std::string name;
  int64_t parameters = 0;
  double forward_flops_per_token = 0;  // multiply-adds counted as 2 FLOPs, matrix products only
  double activation_bytes = 0;         // saved for backward, for the whole batch, fp32
};

struct ModelCost {
  std::vector<LayerCost> layers;
  int64_t parameters = 0;
  double forward_flops_per_token = 0;
  double training_flops_per_token = 0;  // forward + backward = 3 x forward
  double activation_bytes = 0;          // sum over layers for batch_size sequences of context_length
  double weight_bytes = 0;              // fp32 weights
  double gradient_bytes = 0;
  double optimizer_bytes = 0;  // AdamW: two fp32 moments per parameter
  int64_t batch_size = 1;
  std::string formula;  // the formulas used, in words

  nlohmann::json toJson() const;
};

}  // namespace mixerlab
