// A tiny project on the real demo corpus for training tests (vocab 512, small models), written
// into a scratch folder so each test trains and caches its own tokenizer.
#pragma once
#include <filesystem>
#include <string>

#include <nlohmann/json.hpp>

#include "tests/test_support.h"

namespace mixerlab::testing {

inline std::filesystem::path writeTinyProject(const std::filesystem::path& dir, const std::string& extra_train = "",
                                              int64_t d_model = 32, int64_t context = 32) {
  const auto data = sourceDir() / "projects/demo/data";
  const std::string json = R"({
    "corpus": {"train": ")" +
                           (data / "stories-b.txt").string() + R"(", "eval": ")" + (data / "stories-a.txt").string() +
                           R"(", "format": "blank_line"},
    "tokenizer": {"vocab_size": 512},
    "defaults": {
      "model": {"d_model": )" +
                           std::to_string(d_model) + R"(, "n_layers": 2, "context_length": )" +
                           std::to_string(context) + R"(},
      "train": {"batch_size": 4, "learning_rate": 0.003, "warmup_steps": 3, "max_steps": 12, "schedule_steps": 12,
                "eval_every": 4, "eval_batches": 2, "log_every": 1, "checkpoint_every": 4, "batch_mode": "packed",
                "device": "cpu", "threads": 2}
    },
    "runs": [
      {"name": "mixer", "model": {"arch": "masked_mixer"}},
      {"name": "llama", "model": {"arch": "llama", "n_heads": 4}}
    ]
  })";
  // extra_train (", \"key\": value, ...") overrides the defaults above: merged, since a project file
  // with a key given twice is refused.
  nlohmann::json project = nlohmann::json::parse(json);
  if (!extra_train.empty()) {
    const auto extra = nlohmann::json::parse("{" + extra_train.substr(extra_train.find(',') + 1) + "}");
    project["defaults"]["train"].merge_patch(extra);
  }
  writeText(dir / "project.json", project.dump(2));
  return dir / "project.json";
}

}  // namespace mixerlab::testing
