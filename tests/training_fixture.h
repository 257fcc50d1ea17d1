// A tiny project on the real demo corpus for training tests (vocab 512, small models), written
// into a scratch folder so each test trains and caches its own tokenizer, and the ways the tests
// train its runs.
#pragma once
#include <atomic>
#include <filesystem>
#include <fstream>
#include <initializer_list>
#include <string>
#include <utility>

#include <QString>
#include <nlohmann/json.hpp>

#include "core/config/project_config.h"
#include "core/runs/run_status.h"
#include "core/train/trainer.h"
#include "tests/test_support.h"

namespace mixerlab::testing {

// A project file's "corpus" entry for the demo stories (stories-b trains, stories-a evaluates),
// to start a project JSON with: "{" + demoCorpusJson() + ", ...}".
inline std::string demoCorpusJson() {
  const auto data = sourceDir() / "projects/demo/data";
  const nlohmann::json corpus = {{"train", (data / "stories-b.txt").string()},
                                 {"eval", (data / "stories-a.txt").string()},
                                 {"format", "blank_line"}};
  return "\"corpus\": " + corpus.dump();
}

inline std::filesystem::path writeTinyProject(const std::filesystem::path& dir, const std::string& extra_train = "",
                                              int64_t d_model = 32, int64_t context = 32) {
  const std::string json = "{" + demoCorpusJson() + R"(,
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

// Writes a copy of the demo project (projects/demo/project.json) to dir/project.json with its corpus
// paths made absolute and train_overrides merged into its training defaults, indented by `indent`.
inline std::filesystem::path writeDemoProjectCopy(const std::filesystem::path& dir,
                                                  const nlohmann::json& train_overrides = nlohmann::json::object(),
                                                  int indent = 2) {
  auto demo = nlohmann::json::parse(std::ifstream(sourceDir() / "projects/demo/project.json"));
  const auto data = sourceDir() / "projects/demo/data";
  demo["corpus"]["train"] = (data / "stories-b.txt").string();
  demo["corpus"]["eval"] = (data / "stories-a.txt").string();
  if (!train_overrides.empty()) demo["defaults"]["train"].merge_patch(train_overrides);
  writeText(dir / "project.json", demo.dump(indent));
  return dir / "project.json";
}

// Trains `run` into run_dir, resuming from its latest checkpoint when asked; with stop_after_step > 0
// the run is asked to stop once it reports that step (the stop writes its own checkpoint).
inline TrainOutcome trainTinyRun(const ProjectConfig& project, RunConfig run, const std::filesystem::path& run_dir,
                                 bool resume = false, int64_t stop_after_step = 0) {
  std::atomic<bool> stop{false};
  TrainRequest r;
  r.project = &project;
  r.run = std::move(run);
  r.run_dir = run_dir;
  r.resume = resume;
  r.stop_requested = &stop;
  r.on_progress = [&](const TrainProgress& p) {
    if (stop_after_step > 0 && p.step >= stop_after_step) stop = true;
  };
  return trainRun(r);
}

// Trains the named runs of `project` to the end, each into dir/runs/<name>. Empty when every run
// finished; otherwise names the first that did not and the state it ended in (for QCOMPARE).
inline QString trainRunsToTheEnd(const ProjectConfig& project, const std::filesystem::path& dir,
                                 std::initializer_list<const char*> names) {
  for (const char* name : names) {
    const TrainOutcome outcome = trainTinyRun(project, project.run(name), dir / "runs" / name);
    if (outcome.state != RunState::Finished) {
      return QString("run %1 ended %2: %3")
          .arg(name, QString::fromStdString(runStateName(outcome.state)), QString::fromStdString(outcome.reason));
    }
  }
  return QString();
}

}  // namespace mixerlab::testing
