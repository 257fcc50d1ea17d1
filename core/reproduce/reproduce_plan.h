// What `mixerlab reproduce` runs at each scale to test the research's claims (research_claims.h):
// the training runs (every compared family at the same widths and seeds at equal compute, the
// autoencoders and bidirectional models, the embedding-init variants the inversion claim needs),
// the inversion, retrieval and InfoNCE jobs, and the paper's figures each claim is compared with.
// The plan is data: the runner executes it, plan.json records it, and the report reads it back.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>
#include "core/models/research_arm.h"

#include <nlohmann/json.hpp>

namespace mixerlab {

enum class ReproduceScale { kTiny, kSmall, kGpu, kPaper };
inline constexpr ReproduceScale kReproduceScales[] = {ReproduceScale::kTiny, ReproduceScale::kSmall,
                                                      ReproduceScale::kGpu, ReproduceScale::kPaper};
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
  std::string label;      // modelLabel() of the resolved config: what the report expects run.json to say
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
  // The retrieval model's training: the research's (RetrievalTrainSettings::research) unless a
  // scale overrides a field; retrieval_note says which and why.
  int64_t retrieval_context = 32;
  int64_t retrieval_epochs = 200;
  double retrieval_learning_rate = 1e-4;
  int64_t retrieval_layers = 8;
  int64_t retrieval_batch_size = 512;
  int64_t retrieval_warmup_steps = 500;
  // Embeddings after the family's final norm (the paper-era transformer reading at T-1; mixers have
  // no final norm and read T-2 either way).
  bool retrieval_after_final_norm = true;
  std::string retrieval_note;
  std::vector<std::string> infonce_runs;  // pretrained models fine-tuned with InfoNCE (the research's settings)
  int64_t infonce_steps = 200;            // optimizer steps of 8 accumulated summaries each
  int64_t infonce_eval_every = 50;
  nlohmann::json paper;  // reported_numbers.json (claims and numbers), copied in

  const PlannedRun& run(const std::string& name) const;  // throws MixerLabError when unknown
  nlohmann::json toJson() const;
  static ReproducePlan fromJson(const nlohmann::json& j);
};

// `projects_dir` holds demo/ (tiny, small: the bundled TinyStories sample) and paper/ (the presets,
// reported_numbers.json and, for --scale gpu and paper, the TinyStories files). Training budgets are
// filled in from each model's analytic cost so every equal-compute run spends budget_flops.
ReproducePlan planReproduction(ReproduceScale scale, const std::filesystem::path& projects_dir);

}  // namespace mixerlab
