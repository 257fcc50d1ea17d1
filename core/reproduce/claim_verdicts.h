// The research's claims (research_claims.h) as verdicts on measured data: each takes a section of
// the report (plain JSON, built from the run directories by reproduce_report.cpp) and the paper's
// numbers, and returns {id, title, source, measure, expected, rule, paper, measured, verdict, why,
// runs}. The verdict is "consistent", "contradicts" or "not tested at this scale"; `why` says what
// decided it, with the reason when a claim was not tested (a budget below where the paper's
// ordering can appear, a seed spread wider than the gap, a model that never broke symmetry, a run
// whose run.json does not say what its label says).
#pragma once
#include <nlohmann/json.hpp>

#include "core/reproduce/research_claims.h"

namespace mixerlab {

// groups: [{label, arm, n_heads, attention_ran, d_model, equal_compute, label_matches, label_problem,
//   members: [{run, seed, eval_loss_at_common_wall, min_eval_loss, eval_loss_at_common_step,
//   schedule_done_at_common_wall}], the same four fields as spreads {mean, std, ...}}].
// budget_flops: the training FLOPs every equal-compute run spent.
nlohmann::json lossOrderClaim(const ResearchClaim& claim, const nlohmann::json& groups, double budget_flops,
                              const nlohmann::json& paper);
// inversion: [{run, family, embedding_init, trained, layers: [{layer, mean_hamming}]}]
nlohmann::json inversionClaim(const nlohmann::json& inversion, const nlohmann::json& paper);
// retrieval: [{run, family, best: {epoch, eval_loss, top1, top5}, chance_top1, cosine: {top1}}]
nlohmann::json retrievalClaim(const nlohmann::json& retrieval, const nlohmann::json& paper);
// infonce: [{run, family, final_top1, chance_top1, steps}]
nlohmann::json infoNceClaim(const nlohmann::json& infonce, const nlohmann::json& paper);

// Every claim of researchClaims(), in its order, from a report's groups, inversion, retrieval and
// infonce sections and its budget_flops.
nlohmann::json judgeClaims(const nlohmann::json& report, const nlohmann::json& paper);

}  // namespace mixerlab
