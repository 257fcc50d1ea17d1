// The research's claims as the research states them, one entry each: what is claimed, where, which
// sign the paper reports, which runs stand on each side and the smallest training budget at which
// the paper's ordering can appear at all. claim_verdicts.cpp judges measured data against these
// entries and docs/reproduce.md explains each; the paper's own figures for every claim are in
// projects/paper/reported_numbers.json under the same id.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "core/models/model_config.h"
#include "core/models/research_arm.h"

namespace mixerlab {

// Which seed groups stand on one side of a comparison, read from what each run's run.json says ran.
struct GroupSelector {
  ResearchArm arm = ResearchArm::kMixer;
  int64_t n_heads = 0;    // 0: any
  std::string attention;  // the attention that ran ("eager" or "sdpa"); "": any
  bool matches(ResearchArm run_arm, int64_t run_heads, const std::string& run_attention) const;
  std::string describe() const;  // "transformer with 32 heads, eager attention"
};

// The paper's sign for a comparison of `first` against `second` (lower eval loss is better).
enum class ExpectedOrder {
  kFirstLower,          // first lower; a gap inside the seed spread leaves the claim undecided
  kSecondLowerOrEqual,  // second lower or the two about equal; only first lower in every seed contradicts
};

struct PairComparison {
  GroupSelector first, second;
  ExpectedOrder expected = ExpectedOrder::kFirstLower;
};

enum class ClaimKind { kLossOrder, kInversion, kRetrieval, kInfoNce };

// Where a loss-ordering claim reads each run: at the wall-clock time of the shortest run (the
// paper's compute), or at the end of its equal FLOP budget.
enum class LossReading { kEqualWallClock, kEqualFlops };

struct ResearchClaim {
  std::string id;
  ClaimKind kind = ClaimKind::kLossOrder;
  std::string title;                  // the claim in one sentence, with its sign
  std::string source;                 // paper section and tables, or the blog
  std::string measure;                // the measure the paper used
  std::vector<PairComparison> pairs;  // kLossOrder: every pair must agree
  // Below this many training FLOPs per run the claim is "not tested at this scale": the paper's
  // orderings of trained models cannot be expected to appear (the smallest model of any family wins,
  // embeddings come from barely trained models). 0: any budget (inversion, which the paper claims
  // for untrained models too).
  double min_budget_flops = 0;
  // A lower bound the first side's loss must stay above (0: none): the bidirectional models' check
  // that no stream sees the token it predicts.
  double first_loss_floor = 0;
  LossReading reading = LossReading::kEqualWallClock;
};

// The claims about trained models need at least this budget per run: about 1/30 of the paper's
// smallest fixed-compute run (a D=128 Llama for 12 h on an RTX 3060, some 3e16 training FLOPs).
inline constexpr double kOrderingMinBudgetFlops = 1e15;

const std::vector<ResearchClaim>& researchClaims();
const ResearchClaim& researchClaim(const std::string& id);  // throws MixerLabError when unknown

// The verdict words.
inline constexpr const char* kConsistent = "consistent";
inline constexpr const char* kContradicts = "contradicts";
inline constexpr const char* kNotTested = "not tested at this scale";

// What a run's label says: family, width, depth, heads and the attention that ran. The report and
// the plan write it from the run's config, so a label always says what ran.
std::string modelLabel(const ModelConfig& model, const std::string& attention_ran = "");

}  // namespace mixerlab
