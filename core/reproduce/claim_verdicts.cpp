// Verdicts for the research's claims (see claim_verdicts.h).
#include "core/reproduce/claim_verdicts.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <set>
#include <string>

namespace mixerlab {
using json = nlohmann::json;

namespace {

constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();

// A numeric field, NaN when it is missing or null (a run that never evaluated).
double numberAt(const json& j, const char* key) {
  return j.is_object() && j.contains(key) && j[key].is_number() ? j[key].get<double>() : kNaN;
}

std::string fixed(double v, int digits = 3) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string scientific(double v) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%.1e", v);
  return buf;
}

// The paper's side of a claim: its statement, source, expected sign and the figures it names, each
// looked up in reported_numbers.json's numbers by (table, row, metric).
json paperSection(const json& paper, const std::string& id) {
  json entry = json::object();
  for (const auto& c : paper.value("claims", json::array())) {
    if (c.value("id", "") == id) entry = c;
  }
  json values = json::object();
  for (const auto& v : entry.value("values", json::array())) {
    json value = nullptr;
    for (const auto& n : paper.value("numbers", json::array())) {
      if (n.value("table", "") == v.value("table", "") && n.value("row", "") == v.value("row", "") &&
          n.value("metric", "") == v.value("metric", "")) {
        value = n["value"];
      }
    }
    values[v.value("name", "")] = value;
  }
  return {{"statement", entry.value("paper", "")},
          {"source", entry.value("source", "")},
          {"expect", entry.value("expect", "")},
          {"values", values}};
}

json claimShell(const ResearchClaim& c, const json& paper, const std::string& expected, const std::string& rule) {
  return {{"id", c.id},
          {"title", c.title},
          {"source", c.source},
          {"measure", c.measure},
          {"expected", expected},
          {"rule", rule},
          {"paper", paperSection(paper, c.id)}};
}

json decide(json claim, const char* verdict, const std::string& why) {
  claim["verdict"] = verdict;
  claim["why"] = why;
  return claim;
}

// Below the claim's budget a measured verdict is not a test of the paper: the claim says "not
// tested at this scale", keeps what was measured and what it would have said.
json gateByBudget(json claim, const ResearchClaim& c, double budget_flops) {
  claim["budget_flops"] = budget_flops;
  if (c.min_budget_flops <= 0 || budget_flops >= c.min_budget_flops) return claim;
  claim["measured_verdict"] = claim["verdict"];
  return decide(claim, kNotTested,
                "the budget, " + scientific(budget_flops) + " training FLOPs per run, is below " +
                    scientific(c.min_budget_flops) +
                    ", where the paper's findings about trained models can first be expected (at such budgets the "
                    "smallest model learns fastest whatever its family). Measured anyway (" +
                    claim["verdict"].get<std::string>() + " if judged): " + claim["why"].get<std::string>());
}

// ---- loss-ordering claims ----

// The measures every loss-ordering claim reports, the claim's own first.
struct Measure {
  const char* field;
  const char* name;
};
constexpr Measure kAtWall{"eval_loss_at_common_wall", "equal_wall_clock"};
constexpr Measure kAtFlops{"min_eval_loss", "equal_flops"};
constexpr Measure kAtSteps{"eval_loss_at_common_step", "equal_steps"};

enum class Direction { kFirstLower, kSecondLower, kWithinSpread, kNotMeasured };

const char* directionName(Direction d) {
  switch (d) {
    case Direction::kFirstLower:
      return "first lower in every seed";
    case Direction::kSecondLower:
      return "second lower in every seed";
    case Direction::kWithinSpread:
      return "seeds disagree";
    case Direction::kNotMeasured:
      return "not measured";
  }
  return "not measured";
}

struct Side {
  const json* best = nullptr;         // the group of lowest mean on the claim's measure
  std::vector<int64_t> widths;        // d_model of every group considered
  std::vector<std::string> excluded;  // groups of this side whose label does not match their run.json
};

Side sideOf(const GroupSelector& selector, const json& groups, const char* field) {
  Side side;
  std::set<int64_t> widths;
  for (const auto& g : groups) {
    if (!g.value("equal_compute", false)) continue;
    const ResearchArm arm = researchArmFromName(g.value("arm", "mixer"));
    // A group that did not run as labelled stands on no side; it is named wherever its family is.
    if (!g.value("label_matches", true)) {
      if (arm == selector.arm) side.excluded.push_back(g.value("plan_group", "") + ": " + g.value("label_problem", ""));
      continue;
    }
    if (!selector.matches(arm, g.value("n_heads", int64_t{0}), g.value("attention_ran", ""))) continue;
    widths.insert(g.value("d_model", int64_t{0}));
    const double mean = numberAt(g.value(field, json::object()), "mean");
    if (!std::isfinite(mean)) continue;
    if (!side.best || mean < numberAt((*side.best)[field], "mean")) side.best = &g;
  }
  side.widths.assign(widths.begin(), widths.end());
  return side;
}

// One measure's comparison of two groups, seeds paired by seed.
json compareOn(const json& first, const json& second, const char* field, Direction& direction) {
  std::map<int64_t, double> first_by_seed;
  for (const auto& m : first["members"]) first_by_seed[m.value("seed", int64_t{0})] = numberAt(m, field);
  int paired = 0, first_lower = 0, second_lower = 0;
  for (const auto& m : second["members"]) {
    const auto it = first_by_seed.find(m.value("seed", int64_t{0}));
    const double other = numberAt(m, field);
    if (it == first_by_seed.end() || !std::isfinite(it->second) || !std::isfinite(other)) continue;
    ++paired;
    if (it->second < other) ++first_lower;
    if (other < it->second) ++second_lower;
  }
  const double a = numberAt(first.value(field, json::object()), "mean");
  const double b = numberAt(second.value(field, json::object()), "mean");
  direction = Direction::kNotMeasured;
  if (paired > 0 && std::isfinite(a) && std::isfinite(b)) {
    direction = Direction::kWithinSpread;
    if (first_lower == paired && a < b) direction = Direction::kFirstLower;
    if (second_lower == paired && b < a) direction = Direction::kSecondLower;
  }
  return {{"first", first.value(field, json::object())},
          {"second", second.value(field, json::object())},
          {"difference", std::isfinite(a) && std::isfinite(b) ? json(b - a) : json(nullptr)},
          {"seeds_paired", paired},
          {"seeds_first_lower", first_lower},
          {"seeds_second_lower", second_lower},
          {"direction", directionName(direction)}};
}

std::string expectedText(const PairComparison& p) {
  return p.expected == ExpectedOrder::kFirstLower
             ? p.first.describe() + " lower than " + p.second.describe()
             : p.second.describe() + " lower than or about equal to " + p.first.describe();
}

// The verdict of one pair on the claim's measure.
const char* pairVerdict(ExpectedOrder expected, Direction d) {
  if (d == Direction::kNotMeasured) return kNotTested;
  if (expected == ExpectedOrder::kFirstLower) {
    if (d == Direction::kFirstLower) return kConsistent;
    return d == Direction::kSecondLower ? kContradicts : kNotTested;
  }
  return d == Direction::kFirstLower ? kContradicts : kConsistent;
}

std::string widthsText(const std::vector<int64_t>& widths) {
  std::string text;
  for (const int64_t w : widths) text += (text.empty() ? "D=" : ",") + std::to_string(w);
  return text.empty() ? "none" : text;
}

}  // namespace

json lossOrderClaim(const ResearchClaim& c, const json& groups, double budget_flops, const json& paper) {
  const Measure primary = c.reading == LossReading::kEqualFlops ? kAtFlops : kAtWall;
  std::string expected;
  for (const auto& p : c.pairs) expected += (expected.empty() ? "" : "; and ") + expectedText(p);
  const std::string rule =
      "each side's best seed group (lowest mean " + std::string(primary.name) +
      " loss over the widths searched, the same widths for both) against the other's, seeds paired by seed; a "
      "side is lower when it is lower in every paired seed and in the mean. Consistent when every comparison "
      "has the paper's sign" +
      (c.first_loss_floor > 0 ? " and the first side stays above " + fixed(c.first_loss_floor, 1) : std::string()) +
      "; contradicts when one has the opposite sign in every seed; not tested at this scale when the budget is "
      "below " +
      scientific(c.min_budget_flops) +
      " training FLOPs per run, when the seeds disagree, or when a side did not run as its label says. The "
      "other two readings are reported beside it, not judged";
  json claim = claimShell(c, paper, expected, rule);
  json runs = json::array();
  json pairs = json::array();
  std::vector<const char*> verdicts;
  std::string why;
  for (const auto& p : c.pairs) {
    const Side first = sideOf(p.first, groups, primary.field);
    const Side second = sideOf(p.second, groups, primary.field);
    json pair{{"first_side", p.first.describe()},
              {"second_side", p.second.describe()},
              {"expected", expectedText(p)},
              {"first_widths", first.widths},
              {"second_widths", second.widths}};
    std::vector<std::string> excluded = first.excluded;
    excluded.insert(excluded.end(), second.excluded.begin(), second.excluded.end());
    pair["excluded_groups"] = excluded;
    std::string how = why.empty() ? "" : "; ";
    if (!first.best || !second.best) {
      const GroupSelector& missing = !first.best ? p.first : p.second;
      how += "no equal-compute group of " + missing.describe() + " was measured";
      for (const auto& e : excluded) how += " (excluded: " + e + ")";
      pair["verdict"] = kNotTested;
      verdicts.push_back(kNotTested);
      why += how;
      pairs.push_back(pair);
      continue;
    }
    for (const json* g : {first.best, second.best}) {
      for (const auto& m : (*g)["members"]) runs.push_back(m["run"]);
    }
    pair["first_group"] = (*first.best)["label"];
    pair["second_group"] = (*second.best)["label"];
    Direction direction = Direction::kNotMeasured, ignored = Direction::kNotMeasured;
    for (const Measure& m : {kAtWall, kAtFlops, kAtSteps}) {
      pair[m.name] = compareOn(*first.best, *second.best, m.field, m.field == primary.field ? direction : ignored);
    }
    const char* verdict = pairVerdict(p.expected, direction);
    const double first_mean = numberAt((*first.best)[primary.field], "mean");
    if (c.first_loss_floor > 0 && first_mean < c.first_loss_floor) verdict = kContradicts;
    pair["verdict"] = verdict;
    verdicts.push_back(verdict);
    const json& at = pair[primary.name];
    how += (*first.best)["label"].get<std::string>() + " " + fixed(first_mean) + " vs " +
           (*second.best)["label"].get<std::string>() + " " + fixed(numberAt((*second.best)[primary.field], "mean")) +
           " (" + primary.name + ", widths " + widthsText(first.widths) + " / " + widthsText(second.widths) +
           "): " + at["direction"].get<std::string>() + " (" + std::to_string(at["seeds_first_lower"].get<int>()) +
           "/" + std::to_string(at["seeds_paired"].get<int>()) + " seeds first lower)";
    if (c.first_loss_floor > 0 && first_mean < c.first_loss_floor)
      how += "; the first side is below " + fixed(c.first_loss_floor, 1) + ", the sign of a leak";
    // The wall-clock reading stops the faster runs' schedules mid-way: say so when the sides differ.
    if (primary.field == kAtWall.field) {
      const double a = numberAt((*first.best).value("schedule_done_at_common_wall", json::object()), "mean");
      const double b = numberAt((*second.best).value("schedule_done_at_common_wall", json::object()), "mean");
      pair["schedule_done_at_common_wall"] = {{"first", std::isfinite(a) ? json(a) : json(nullptr)},
                                              {"second", std::isfinite(b) ? json(b) : json(nullptr)}};
      if (std::isfinite(a) && std::isfinite(b) && std::abs(a - b) > 0.2) {
        how += "; at the common wall-clock time the sides had run " + fixed(100 * a, 0) + "% and " + fixed(100 * b, 0) +
               "% of their learning-rate schedules, so one is read mid-schedule (equal FLOPs "
               "compares finished schedules)";
      }
    }
    why += how;
    pairs.push_back(pair);
  }
  claim["runs"] = runs;
  claim["measured"] = {{"pairs", pairs}};
  const bool any_contradicts = std::count(verdicts.begin(), verdicts.end(), std::string(kContradicts)) > 0;
  const bool all_consistent = !verdicts.empty() && std::all_of(verdicts.begin(), verdicts.end(), [](const char* v) {
    return std::string(v) == kConsistent;
  });
  if (any_contradicts) return gateByBudget(decide(claim, kContradicts, why), c, budget_flops);
  if (all_consistent) return gateByBudget(decide(claim, kConsistent, why), c, budget_flops);
  return gateByBudget(decide(claim, kNotTested, why.empty() ? "no comparison was measured" : why), c, budget_flops);
}

// The descent every inversion of the suite runs (InversionSettings' defaults, scale research).
constexpr const char* kResearchDescent = "research: z0 ~ N(0,1), eta 0.02 -> 0.002, not scaled to the embedding";

json inversionClaim(const json& inversion, const json& paper) {
  const ResearchClaim& c = researchClaim("inversion_by_layer");
  json claim = claimShell(
      c, paper, "mixer distance lower than the transformer's by at least 0.1 at the deepest layer",
      "mean normalised Hamming distance (top-5) at the deepest layer, research-default embedding inits (mixer "
      "N(0,1), transformer N(0,0.02)); consistent when the mixer's is lower than the transformer's by at least 0.1 "
      "both untrained and trained; contradicts when it is not lower in either; not tested when the states "
      "disagree or nothing was measured. The other init of each side is measured and reported (init_dependence). "
      "Every distance is for the research's descent (start N(0,1), step 0.02 decaying to 0.002, whatever the "
      "embedding's scale); with the descent scaled to the embedding (inversion --scale embedding, "
      "docs/inversion.md) the N(0,0.02) models invert far better, so init_dependence measures that descent's "
      "scale as much as the architecture");
  std::map<std::string, double> deepest;  // by "family init state"
  json runs = json::array();
  for (const auto& r : inversion) {
    runs.push_back(r["run"]);
    if (r["layers"].empty()) continue;
    const std::string key = r["family"].get<std::string>() + " " + r["embedding_init"].get<std::string>() + " " +
                            (r["trained"].get<bool>() ? "trained" : "untrained");
    deepest[key] = numberAt(r["layers"].back(), "mean_hamming");
  }
  claim["runs"] = runs;
  claim["measured"] = {{"deepest_layer_hamming", deepest}};
  int lower = 0, compared = 0;
  std::string how;
  for (const char* state : {"untrained", "trained"}) {
    const auto m = deepest.find(std::string("mixer N(0,1) ") + state);
    const auto t = deepest.find(std::string("transformer N(0,0.02) ") + state);
    if (m == deepest.end() || t == deepest.end()) continue;
    ++compared;
    if (m->second + 0.1 <= t->second) ++lower;
    how += std::string(how.empty() ? "" : "; ") + state + ": mixer " + fixed(m->second) + " vs transformer " +
           fixed(t->second);
  }
  json dependence = json::object();
  for (const auto& [key, value] : deepest) {
    if (key.find("mixer N(0,1)") == 0 || key.find("transformer N(0,0.02)") == 0) continue;
    dependence[key] = value;
  }
  claim["measured"]["init_dependence"] = dependence;
  claim["measured"]["descent"] = kResearchDescent;
  if (compared == 0) return decide(claim, kNotTested, "no inversion results for the research-default inits");
  if (lower == compared) return decide(claim, kConsistent, how);
  if (lower == 0) return decide(claim, kContradicts, how);
  return decide(claim, kNotTested, how + ": the untrained and trained models disagree");
}

namespace {

// Best value per family of `value(entry)` over entries, the family words of research_arm.h.
struct FamilyBest {
  double mixer = kNaN, transformer = kNaN, chance = kNaN;
  std::string transformer_run;
};

template <typename Value>
FamilyBest bestByFamily(const json& entries, Value value) {
  FamilyBest best;
  for (const auto& r : entries) {
    const double v = value(r);
    best.chance = numberAt(r, "chance_top1");
    if (!std::isfinite(v)) continue;
    if (r["family"] == researchArmName(ResearchArm::kMixer) && !(v <= best.mixer)) best.mixer = v;
    if (r["family"] == researchArmName(ResearchArm::kTransformer) && !(v <= best.transformer)) {
      best.transformer = v;
      best.transformer_run = r["run"];
    }
  }
  return best;
}

// Mixer against transformer on a top-1 accuracy: consistent when the mixer's is higher and one of
// them reaches twice chance, contradicts when the transformer's is higher, not tested otherwise.
json judgeTop1(json claim, const FamilyBest& b, const std::string& what) {
  claim["measured"]["mixer_top1"] = std::isfinite(b.mixer) ? json(b.mixer) : json(nullptr);
  claim["measured"]["best_transformer_top1"] = std::isfinite(b.transformer) ? json(b.transformer) : json(nullptr);
  claim["measured"]["best_transformer_run"] = b.transformer_run;
  claim["measured"]["chance_top1"] = std::isfinite(b.chance) ? json(b.chance) : json(nullptr);
  if (!std::isfinite(b.mixer) || !std::isfinite(b.transformer))
    return decide(claim, kNotTested, "the suite lacks a mixer or a transformer " + what);
  const std::string how =
      "top-1 mixer " + fixed(b.mixer) + " vs transformer " + fixed(b.transformer) + " (chance " + fixed(b.chance) + ")";
  if (std::max(b.mixer, b.transformer) < 2 * b.chance)
    return decide(claim, kNotTested, how + ": neither reaches twice chance (no model broke symmetry at this scale)");
  if (b.mixer > b.transformer) return decide(claim, kConsistent, how);
  if (b.mixer < b.transformer) return decide(claim, kContradicts, how);
  return decide(claim, kNotTested, how + ": equal");
}

}  // namespace

namespace {

// A top-1 claim over `entries` (one per model), each read by `value`.
template <typename Value>
json topOneClaim(const std::string& id, const json& entries, const json& paper, const std::string& rule, Value value,
                 const std::string& what) {
  json claim = claimShell(researchClaim(id), paper, "mixer top-1 higher than transformer top-1", rule);
  json runs = json::array();
  for (const auto& r : entries) runs.push_back(r["run"]);
  claim["runs"] = runs;
  claim["measured"] = json::object();
  return judgeTop1(claim, bestByFamily(entries, value), what);
}

}  // namespace

json retrievalClaim(const json& retrieval, const json& paper) {
  return topOneClaim(
      "retrieval_top1", retrieval, paper,
      "top-1 accuracy on held-out candidate sets at the epoch of lowest held-out cross-entropy (the paper's model "
      "selection); consistent when the mixer-embedding model's top-1 exceeds every transformer-embedding model's "
      "and one of them reaches twice the chance rate; contradicts when a transformer's is higher; not tested when "
      "no model reaches twice chance",
      [](const json& r) { return numberAt(r["best"], "top1"); }, "retrieval run");
}

json infoNceClaim(const json& infonce, const json& paper) {
  return topOneClaim(
      "infonce_top1", infonce, paper,
      "held-out cosine top-1 after InfoNCE fine-tuning (the last evaluation); consistent when the "
      "mixer's exceeds the transformer's and one reaches twice chance; contradicts when the "
      "transformer's is higher; not tested when neither reaches twice chance",
      [](const json& r) { return numberAt(r, "final_top1"); }, "InfoNCE run");
}

json judgeClaims(const json& report, const json& paper) {
  // A wall-clock budget (budget_flops 0): the least any equal-compute run spent.
  double budget = report.value("budget_flops", 0.0);
  if (budget <= 0) {
    budget = std::numeric_limits<double>::infinity();
    for (const auto& r : report.value("runs", json::array())) {
      if (r.value("equal_compute", false) && r.contains("flops")) budget = std::min(budget, r["flops"].get<double>());
    }
    if (!std::isfinite(budget)) budget = 0;
  }
  json claims = json::array();
  for (const auto& c : researchClaims()) {
    switch (c.kind) {
      case ClaimKind::kLossOrder:
        claims.push_back(lossOrderClaim(c, report.value("groups", json::array()), budget, paper));
        break;
      case ClaimKind::kInversion:
        claims.push_back(inversionClaim(report.value("inversion", json::array()), paper));
        break;
      case ClaimKind::kRetrieval:
        claims.push_back(gateByBudget(retrievalClaim(report.value("retrieval", json::array()), paper), c, budget));
        break;
      case ClaimKind::kInfoNce:
        claims.push_back(gateByBudget(infoNceClaim(report.value("infonce", json::array()), paper), c, budget));
        break;
    }
  }
  return claims;
}

}  // namespace mixerlab
