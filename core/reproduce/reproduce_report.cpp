// Builds report.json from a reproduction folder (see reproduce_report.h).
#include "core/reproduce/reproduce_report.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <limits>
#include <thread>

#include "core/models/model_registry.h"
#include "core/reproduce/claim_verdicts.h"
#include "core/reproduce/report_html.h"
#include "core/reproduce/reproduce_plan.h"
#include "core/runs/compute_points.h"
#include "core/runs/power_law_fit.h"
#include "core/runs/retrieval_run_record.h"
#include "core/runs/run_directory.h"
#include "core/runs/run_info.h"
#include "core/runs/run_summary.h"
#include "core/runs/seed_groups.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/json_document.h"

namespace mixerlab {
namespace fs = std::filesystem;
using json = nlohmann::json;
constexpr double kNoLoss = std::numeric_limits<double>::infinity();

namespace {

json spreadJson(const Spread& s) {
  return {{"count", s.count}, {"mean", s.mean}, {"std", s.std}, {"min", s.min}, {"max", s.max}};
}

json finiteOrNull(double v) { return std::isfinite(v) ? json(v) : json(nullptr); }

json fitJson(const PowerLawFit& f) {
  if (!f.ok) return {{"ok", false}, {"problem", f.problem}, {"points", f.points}};
  return {{"ok", true},
          {"formula", "loss = a * C^-b + c (C in training FLOPs)"},
          {"a", f.a},
          {"b", f.b},
          {"c", f.c},
          {"a_std", finiteOrNull(f.a_std)},
          {"b_std", finiteOrNull(f.b_std)},
          {"c_std", finiteOrNull(f.c_std)},
          {"rmse", f.rmse},
          {"points", f.points}};
}

std::string utcNow() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  char buf[32];
  std::strftime(buf, sizeof buf, "%Y-%m-%dT%H:%M:%SZ", std::gmtime(&now));
  return buf;
}

// The arm a run's architecture stands for (research_arm.h); `planned` when its family has none.
ResearchArm armOfArchitecture(const std::string& arch, ResearchArm planned) {
  for (const auto& family : architectures()) {
    if (family.name == arch && family.research_arm) return *family.research_arm;
  }
  return planned;
}

// One training run as the report shows it: config, status, losses and its eval curve by compute.
// Its label, heads and attention come from its run.json, and label_matches says whether that is
// what the plan labelled it.
json runEntry(const PlannedRun& planned, const fs::path& run_dir, json& environment) {
  json entry{{"name", planned.name},
             {"group", planned.group},
             {"family", researchArmName(planned.arm)},
             {"seed", planned.seed},
             {"embedding_init", planned.embedding_init},
             {"equal_compute", planned.equal_compute},
             {"paper_row", planned.paper_row},
             {"planned_label", planned.label}};
  const auto info = tryReadRunInfo(run_dir);
  if (!info) {
    entry["status"] = "missing";
    return entry;
  }
  if (environment.is_null()) environment = info->environment;
  const ModelConfig& model = info->run.model;
  const std::string attention_ran = !familyReadsModelKey(model.arch, "attention")
                                        ? ""
                                        : info->environment.value("attention_ran", attentionImplName(model.attention));
  const ResearchArm arm = armOfArchitecture(model.arch, planned.arm);
  entry["arm"] = researchArmName(arm);
  entry["label"] = modelLabel(model, attention_ran);
  entry["d_model"] = model.d_model;
  entry["n_heads"] = familyReadsModelKey(model.arch, "n_heads") ? model.n_heads : 0;
  entry["attention_ran"] = attention_ran;
  const std::string ran = modelLabel(model);
  entry["label_matches"] = (planned.label.empty() || planned.label == ran) && arm == planned.arm;
  if (!entry["label_matches"].get<bool>()) {
    entry["label_problem"] = "labelled \"" + planned.label + "\" (" + researchArmName(planned.arm) +
                             "), its run.json says \"" + ran + "\" (" + researchArmName(arm) + ")";
  }
  const RunSummary summary = summarizeRun(run_dir);
  const auto records = readMetrics(RunPaths{run_dir}.metrics());
  entry["status"] = runStateName(summary.state);
  entry["config"] = info->run.toJson();
  entry["parameters"] = info->parameters;
  entry["training_flops_per_token"] = info->training_flops_per_token;
  entry["steps"] = summary.step;
  entry["tokens"] = summary.tokens;
  entry["flops"] = static_cast<double>(summary.tokens) * info->training_flops_per_token;
  entry["wall_s"] = summary.wall_s;
  entry["min_eval_loss"] = summary.best_eval_loss ? json(*summary.best_eval_loss) : json(nullptr);
  entry["final_eval_loss"] = summary.last_eval_loss ? json(*summary.last_eval_loss) : json(nullptr);
  json curve = json::array();
  for (const auto& r : records) {
    if (!r.eval_loss) continue;
    curve.push_back({{"step", r.step},
                     {"flops", static_cast<double>(r.tokens) * info->training_flops_per_token},
                     {"wall_s", r.wall_s},
                     {"eval_loss", *r.eval_loss}});
  }
  entry["eval_curve"] = curve;
  return entry;
}

// The equal-compute runs' least `key` at their end ("wall_s" or "steps"): the paper compares at
// equal wall-clock, so every run is read at the shortest run's time, and at the fewest steps beside it.
double commonEnd(const json& runs, const char* key) {
  double common = kNoLoss;
  for (const auto& r : runs) {
    if (r.value("equal_compute", false) && r.contains("eval_curve") && !r["eval_curve"].empty()) {
      common = std::min(common, r[key].get<double>());
    }
  }
  return std::isfinite(common) ? common : 0.0;
}

// A curve's `value` at `x` along its `key`, linearly interpolated (clamped to its ends).
json curveAt(const json& curve, const char* key, const char* value, double x) {
  if (curve.empty()) return nullptr;
  const json* before = nullptr;
  for (const auto& p : curve) {
    const double t = p[key].get<double>(), v = p[value].get<double>();
    if (t >= x) {
      if (!before || t == x) return v;
      const double t0 = (*before)[key].get<double>(), v0 = (*before)[value].get<double>();
      return v0 + (v - v0) * (x - t0) / (t - t0);
    }
    before = &p;
  }
  return curve.back()[value];
}

// A run's eval loss at `wall_s`, linearly interpolated along its eval curve (clamped to its ends).
json evalLossAtWall(const json& curve, double wall_s) { return curveAt(curve, "wall_s", "eval_loss", wall_s); }

json groupsOf(const json& runs, const json& paper) {
  std::vector<RunConfig> configs;
  std::vector<size_t> index;  // into runs
  for (size_t i = 0; i < runs.size(); ++i) {
    if (!runs[i].contains("config")) continue;
    RunConfig c;
    c.name = runs[i]["name"];
    c.model = ModelConfig::fromJson(runs[i]["config"]["model"]);
    c.train = TrainConfig::fromJson(runs[i]["config"]["train"]);
    configs.push_back(c);
    index.push_back(i);
  }
  json groups = json::array();
  for (const auto& g : groupBySeed(configs)) {
    const json& first = runs[index[g.members.front()]];
    json group{{"label", first.value("label", first["group"])},
               {"plan_group", first["group"]},
               {"family", first["family"]},
               {"arm", first.value("arm", first["family"])},
               {"d_model", first.value("d_model", 0)},
               {"n_heads", first.value("n_heads", 0)},
               {"attention_ran", first.value("attention_ran", "")},
               {"equal_compute", first["equal_compute"]},
               {"embedding_init", first["embedding_init"]},
               {"label_matches", true},
               {"members", json::array()}};
    std::vector<double> mins, finals, at_wall, at_step, schedule_done;
    std::vector<Curve> curves;
    std::vector<ComputePoint> points;
    for (size_t m : g.members) {
      const json& run = runs[index[m]];
      group["members"].push_back(
          {{"run", run["name"]},
           {"seed", run["seed"]},
           {"min_eval_loss", run["min_eval_loss"]},
           {"eval_loss_at_common_wall", run.value("eval_loss_at_common_wall", json(nullptr))},
           {"eval_loss_at_common_step", run.value("eval_loss_at_common_step", json(nullptr))},
           {"schedule_done_at_common_wall", run.value("schedule_done_at_common_wall", json(nullptr))}});
      if (!run.value("label_matches", true)) {
        group["label_matches"] = false;
        group["label_problem"] = run["name"].get<std::string>() + " " + run.value("label_problem", "");
      }
      if (run["min_eval_loss"].is_number()) mins.push_back(run["min_eval_loss"]);
      for (auto [field, values] :
           {std::pair{"eval_loss_at_common_wall", &at_wall}, std::pair{"eval_loss_at_common_step", &at_step},
            std::pair{"schedule_done_at_common_wall", &schedule_done}}) {
        if (run.value(field, json(nullptr)).is_number()) values->push_back(run[field]);
      }
      if (run["final_eval_loss"].is_number()) finals.push_back(run["final_eval_loss"]);
      Curve curve;
      for (const auto& p : run["eval_curve"]) {
        curve.emplace_back(p["flops"].get<double>(), p["eval_loss"].get<double>());
        points.push_back({p["flops"].get<double>(), p["eval_loss"].get<double>(), run["name"]});
      }
      curves.push_back(curve);
    }
    group["min_eval_loss"] = spreadJson(spreadOf(mins));
    group["final_eval_loss"] = spreadJson(spreadOf(finals));
    group["eval_loss_at_common_wall"] = spreadJson(spreadOf(at_wall));
    group["eval_loss_at_common_step"] = spreadJson(spreadOf(at_step));
    group["schedule_done_at_common_wall"] = spreadJson(spreadOf(schedule_done));
    const CurveBand band = bandOf(curves);
    group["band"] = {{"flops", band.x}, {"mean", band.mean}, {"low", band.low}, {"high", band.high}};
    json frontier = json::array();
    const auto front = paretoFrontier(points);
    for (const auto& p : front) frontier.push_back({{"flops", p.flops}, {"loss", p.loss}, {"run", p.run}});
    group["frontier"] = frontier;
    group["fit"] = fitJson(fitPowerLaw(front));
    const std::string row = first.value("paper_row", "");
    group["paper_row"] = row;
    group["paper_eval_loss"] = nullptr;
    for (const auto& n : paper.value("numbers", json::array())) {
      if (!row.empty() && n.value("row", "") == row && n.value("metric", "") == "eval_loss") {
        group["paper_eval_loss"] = n["value"];
        group["paper_source"] = n["source"];
      }
    }
    groups.push_back(group);
  }
  return groups;
}

json inversionOf(const ReproducePlan& plan, const fs::path& out) {
  json list = json::array();
  for (const auto& job : plan.inversion) {
    const fs::path file =
        out / "results" / ("inversion-" + job.run + (job.trained ? "-trained" : "-untrained") + ".json");
    if (!fs::exists(file)) continue;
    const json r = parseJsonDocument(readFile(file), file.string());
    const PlannedRun& planned = plan.run(job.run);
    json entry{
        {"run", job.run},         {"family", researchArmName(planned.arm)}, {"embedding_init", planned.embedding_init},
        {"trained", job.trained}, {"texts", r.value("texts", 0)},           {"iterations", r.value("iterations", 0)},
        {"layers", json::array()}};
    for (const auto& layer : r["layers"]) {
      const Spread top_k = spreadOf(layer["hamming_top_k"].get<std::vector<double>>());
      const Spread exact = spreadOf(layer["hamming_exact"].get<std::vector<double>>());
      entry["layers"].push_back({{"layer", layer["layer"]},
                                 {"mean_hamming", top_k.mean},
                                 {"min_hamming", top_k.min},
                                 {"max_hamming", top_k.max},
                                 {"mean_hamming_exact", exact.mean}});
    }
    list.push_back(entry);
  }
  return list;
}

json retrievalOf(const ReproducePlan& plan, const fs::path& out) {
  json list = json::array();
  for (const auto& run : plan.retrieval_runs) {
    const fs::path run_dir = out / "runs" / ("retrieval-" + run);
    const auto record = tryReadRetrievalRunRecord(run_dir);
    if (!record || record->epochs.empty()) continue;
    json best;
    for (const auto& e : record->epochs) {
      if (best.is_null() || e.value("eval_loss", kNoLoss) < best.value("eval_loss", kNoLoss)) best = e;
    }
    json entry{{"run", run},
               {"retrieval_run", "retrieval-" + run},
               {"family", researchArmName(plan.run(run).arm)},
               {"context", record->context},
               {"epochs", record->epochs},
               {"best", best},
               {"chance_top1", record->chance_top1}};
    const fs::path cosine = out / "results" / ("retrieval-" + run + "-cosine.json");
    if (fs::exists(cosine)) entry["cosine"] = parseJsonDocument(readFile(cosine), cosine.string());
    list.push_back(entry);
  }
  return list;
}

json infoNceOf(const ReproducePlan& plan, const fs::path& out) {
  json list = json::array();
  for (const auto& run : plan.infonce_runs) {
    const fs::path file = out / "results" / ("infonce-" + run + ".json");
    if (!fs::exists(file)) continue;
    json entry = parseJsonDocument(readFile(file), file.string());
    entry["family"] = researchArmName(plan.run(run).arm);
    list.push_back(entry);
  }
  return list;
}

// What the scale can and cannot say, for the top of the report.
std::string scaleReading(const ReproducePlan& plan) {
  if (plan.budget_flops > 0 && plan.budget_flops < kOrderingMinBudgetFlops) {
    char budget[32];
    std::snprintf(budget, sizeof budget, "%.3g", plan.budget_flops);
    return std::string("A pipeline check, not a replication: every run stops at ") + budget +
           " training FLOPs, thousands of times below the paper's smallest runs, where the smallest model learns "
           "fastest whatever its family. Every claim is measured and shown with the verdict it would get, but "
           "only the inversion claim, which the paper makes for untrained models too, is judged; the claims "
           "about trained models say \"not tested at this scale\".";
  }
  return "Every claim is judged on the measure the paper used; equal FLOPs and equal steps are reported beside it.";
}

}  // namespace

json buildReproduceReport(const fs::path& out) {
  const fs::path plan_file = out / "plan.json";
  if (!fs::exists(plan_file)) {
    throw MixerLabError(out.string() + " holds no reproduction (plan.json is missing)",
                        "run `mixerlab reproduce --out " + out.string() + "` first");
  }
  const ReproducePlan plan = ReproducePlan::fromJson(parseJsonDocument(readFile(plan_file), plan_file.string()));
  json report;
  report["scale"] = scaleName(plan.scale);
  report["summary"] = plan.summary;
  report["reading"] = scaleReading(plan);
  report["generated_at"] = utcNow();
  report["mixerlab"] = {{"version", toolVersion()}, {"commit", gitCommit()}};
  report["budget_flops"] = plan.budget_flops;
  json environment;
  json runs = json::array();
  for (const auto& planned : plan.runs) runs.push_back(runEntry(planned, out / "runs" / planned.name, environment));
  report["hardware"] = {{"environment", environment}, {"cores", std::thread::hardware_concurrency()}};
  const double common_wall_s = commonEnd(runs, "wall_s");
  const double common_step = commonEnd(runs, "steps");
  report["common_wall_s"] = common_wall_s;
  report["common_step"] = common_step;
  for (auto& r : runs) {
    if (!r.contains("eval_curve")) continue;
    r["eval_loss_at_common_wall"] = evalLossAtWall(r["eval_curve"], common_wall_s);
    r["eval_loss_at_common_step"] = curveAt(r["eval_curve"], "step", "eval_loss", common_step);
    // The share of the run's steps done at the common time: for a FLOP budget, how far its
    // learning-rate schedule (which ends at the budget) had gone.
    const json step_at_wall = curveAt(r["eval_curve"], "wall_s", "step", common_wall_s);
    const double steps = r["steps"].get<double>();
    r["schedule_done_at_common_wall"] =
        step_at_wall.is_number() && steps > 0 ? json(step_at_wall.get<double>() / steps) : json(nullptr);
  }
  report["runs"] = runs;
  json seeds = json::array();
  for (const auto& r : plan.runs) {
    if (std::find(seeds.begin(), seeds.end(), json(r.seed)) == seeds.end()) seeds.push_back(r.seed);
  }
  report["seeds"] = seeds;
  report["groups"] = groupsOf(runs, plan.paper);
  report["inversion"] = inversionOf(plan, out);
  report["inversion_settings"] = {{"texts", plan.inversion_texts},
                                  {"iterations", plan.inversion_iterations},
                                  {"top_k", 5},
                                  {"init", "N(0,1)"},
                                  {"layers", "every block output, 0 = embedding"}};
  report["retrieval"] = retrievalOf(plan, out);
  report["retrieval_settings"] = {{"pairs", plan.retrieval_pairs},
                                  {"corpus", "synthetic stories, seed 1"},
                                  {"context", plan.retrieval_context},
                                  {"epochs", plan.retrieval_epochs},
                                  {"layers", plan.retrieval_layers},
                                  {"learning_rate", plan.retrieval_learning_rate},
                                  {"batch_size", plan.retrieval_batch_size},
                                  {"warmup_steps", plan.retrieval_warmup_steps},
                                  {"after_final_norm", plan.retrieval_after_final_norm},
                                  {"note", plan.retrieval_note}};
  report["infonce"] = infoNceOf(plan, out);
  report["infonce_settings"] = {{"steps", plan.infonce_steps},
                                {"note",
                                 "the research's InfoNCE (8 rows per summary, tau 0.02, lr 1e-4, warm-up 50, "
                                 "8 accumulated summaries per step, embeddings at index -2)"}};
  report["claims"] = judgeClaims(report, plan.paper);
  const fs::path timing = out / "results" / "timing.json";
  json steps = fs::exists(timing) ? parseJsonDocument(readFile(timing), timing.string()) : json::object();
  double total = 0;
  for (const auto& item : steps.items()) total += item.value().get<double>();
  report["timing"] = {{"steps_s", steps}, {"total_s", total}};
  return report;
}

ReportFiles writeReproduceReport(const fs::path& out) {
  const json report = buildReproduceReport(out);
  ReportFiles files{out / "report.json", out / "report.html"};
  writeFileAtomic(files.json, report.dump(1) + "\n");
  const ReportPage page = renderReportPage(report);
  fs::create_directories(out / "figures");
  for (const auto& [name, svg] : page.figures) writeFileAtomic(out / "figures" / (name + ".svg"), svg);
  writeFileAtomic(files.html, page.html);
  return files;
}

}  // namespace mixerlab
