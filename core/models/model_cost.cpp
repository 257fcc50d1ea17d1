// JSON form of ModelCost (see model_cost.h).
#include "core/models/model_cost.h"

namespace mixerlab {

nlohmann::json ModelCost::toJson() const {
  nlohmann::json layer_list = nlohmann::json::array();
  for (const auto& l : layers) {
    layer_list.push_back({{"name", l.name},
                          {"parameters", l.parameters},
                          {"forward_flops_per_token", l.forward_flops_per_token},
                          {"activation_bytes", l.activation_bytes}});
  }
  return {{"parameters", parameters},
          {"forward_flops_per_token", forward_flops_per_token},
          {"training_flops_per_token", training_flops_per_token},
          {"activation_bytes", activation_bytes},
          {"weight_bytes", weight_bytes},
          {"gradient_bytes", gradient_bytes},
          {"optimizer_bytes", optimizer_bytes},
          {"batch_size", batch_size},
          {"formula", formula},
          {"layers", layer_list}};
}

}  // namespace mixerlab
