// The small model configurations the model tests build: one place that says which ModelConfig
// fields a test picks, so each test only adds what it varies (heads, kernel, objective, options).
#pragma once
#include <string>
#include <utility>

#include <nlohmann/json.hpp>

#include "core/models/model_config.h"

namespace mixerlab::testing {

// arch with the given sizes and options; every other field keeps ModelConfig's default.
inline ModelConfig tinyModelConfig(const std::string& arch, int64_t vocab_size, int64_t d_model, int64_t n_layers,
                                   int64_t context_length, nlohmann::json options = nlohmann::json::object()) {
  ModelConfig c;
  c.arch = arch;
  c.vocab_size = vocab_size;
  c.d_model = d_model;
  c.n_layers = n_layers;
  c.context_length = context_length;
  c.options = std::move(options);
  return c;
}

}  // namespace mixerlab::testing
