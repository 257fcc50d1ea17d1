// What `mixerlab reproduce` runs at each scale to test the paper's three claims (equal-compute loss,
// inversion by layer, retrieval top-1): the training runs (families x seeds at equal compute, plus
// the embedding-init variants the inversion claim needs), the inversion and retrieval jobs, and the
// paper's figures each claim is compared with. The plan is data: the runner executes it, plan.json
// records it, and the report reads it back.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>
#include "core/models/research_arm.h"

#include <nlohmann/json.hpp>

namespace mixerlab {

enum class ReproduceScale { kTiny, kSmall, kPaper };
std::string scaleName(ReproduceScale scale);
ReproduceScale parseScale(const std::string& name);  // throws MixerLabError listing the scales

struct PlannedRun {
  std::string name;                       // run name in the generated project (runs/<name>)
  std::string group;                      // the seed group: runs that differ only in seed share it
  ResearchArm arm = ResearchArm::kMixer;  // which side of each claim it is on ("family" in plan files)
  std::string embedding_init;             // "N(0,1)" or "N(0,0.02)"
  bool equal_compute = true;              // part of the equal-compute comparison (false: an init variant)
  uint64_t seed = 0;
  nlohmann::json model;   // the project's run.model
  nlohmann::json train;   // the project's run.train overrides (budget included)
  std::string paper_row;  // reported_numbers.json row to show beside it ("" = none)
};

struct InversionJob {
  std::string run;
  bool trained = true;  // false: the run's untrained twin (same config, fresh init)
};

struct ReproducePlan {
  ReproduceScale scale = ReproduceScale::kTiny;
  std::string summary;      // one paragraph: what runs and how long it takes where
  nlohmann::json project;   // the generated project file (corpus, tokenizer, defaults, runs)
  double budget_flops = 0;  // training FLOPs per equal-compute run; 0: the presets' wall-clock budget
  std::vector<PlannedRun> runs;
  std::vector<InversionJob> inversion;
  int64_t inversion_texts = 4;  // the first N eval documents
  int64_t inversion_iterations = 500;
  std::vector<std::string> retrieval_runs;  // embedding models for the retrieval claim
  int64_t retrieval_pairs = 1000;           // synthetic (summary, story) pairs
  int64_t retrieval_context = 32;
  int64_t retrieval_epochs = 20;
  double retrieval_learning_rate = 1e-4;
  int64_t retrieval_layers = 8;
  nlohmann::json paper;  // reported_numbers.json (claims and numbers), copied in

  const PlannedRun& run(const std::string& name) const;  // throws MixerLabError when unknown
  nlohmann::json toJson() const;
  static ReproducePlan fromJson(const nlohmann::json& j);
};

// `projects_dir` holds demo/ (tiny, small: the bundled TinyStories sample) and paper/ (the presets,
// reported_numbers.json and, for --scale paper, the TinyStories files). Training budgets are filled
// in from each model's analytic cost so every equal-compute run spends budget_flops.
ReproducePlan planReproduction(ReproduceScale scale, const std::filesystem::path& projects_dir);

}  // namespace mixerlab
