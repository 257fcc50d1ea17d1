// The three claims of the paper as verdicts on measured data: each takes the report's measured
// section (plain JSON, built from the run directories by reproduce_report.cpp) and the paper's
// numbers, and returns {id, title, paper, measured, holds, verdict, rule, runs}. `holds` is true,
// false or null (inconclusive); the rule that decided it is spelled out in `rule`.
#pragma once
#include <nlohmann/json.hpp>

namespace mixerlab {

// groups: [{label, family, equal_compute, members: [{run, seed, min_eval_loss}], min_eval_loss: spread}]
nlohmann::json equalComputeClaim(const nlohmann::json& groups, const nlohmann::json& paper);
// inversion: [{run, family, embedding_init, trained, layers: [{layer, mean_hamming}]}]
nlohmann::json inversionClaim(const nlohmann::json& inversion, const nlohmann::json& paper);
// retrieval: [{run, family, best: {epoch, eval_loss, top1, top5}, chance_top1, cosine: {top1}}]
nlohmann::json retrievalClaim(const nlohmann::json& retrieval, const nlohmann::json& paper);

}  // namespace mixerlab
