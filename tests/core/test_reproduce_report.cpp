// The reproduction report is built from what its folder holds: a fixture folder with run
// directories (run.json, metrics.jsonl, status.json), inversion results and retrieval runs gives a
// report.json whose numbers match the fixtures (minimum eval losses, seed spreads, compute, the
// retrieval epoch of lowest held-out CE) and whose three verdicts follow their rules; report.html is
// self-contained. The CLI refuses to overwrite a folder and rebuilds a report with --report-only.
#include <QtTest/QtTest>

#include <cmath>

#include "core/config/project_config.h"
#include "core/reproduce/reproduce_plan.h"
#include "core/reproduce/reproduce_report.h"
#include "core/runs/metrics_log.h"
#include "core/runs/retrieval_run_record.h"
#include "core/runs/run_directory.h"
#include "core/runs/run_info.h"
#include "core/runs/run_status.h"
#include "core/util/atomic_file.h"
#include "core/util/json_document.h"
#include "tests/cli_process.h"
#include "tests/test_support.h"

using namespace mixerlab;
namespace fs = std::filesystem;
using json = nlohmann::json;

namespace {

struct FixtureRun {
  std::string name, group, family;
  uint64_t seed;
  double flops_per_token;
  std::vector<double> eval_losses;  // one per eval, 1000 tokens apart
  double wall_per_eval = 2.0;       // seconds between evals
};

PlannedRun plannedRun(const FixtureRun& f) {
  PlannedRun p;
  p.name = f.name;
  p.group = f.group;
  p.family = f.family;
  p.seed = f.seed;
  p.embedding_init = f.family == "mixer" ? "N(0,1)" : "N(0,0.02)";
  p.paper_row = f.family == "mixer" ? "flat mixer D=256" : "Llama D=128 H=32";
  return p;
}

void writeRun(const fs::path& out, const ProjectConfig& project, const FixtureRun& f) {
  const fs::path dir = out / "runs" / f.name;
  fs::create_directories(dir);
  RunConfig run = project.run(f.family == "mixer" ? "mixer" : "transformer");
  run.name = f.name;
  run.train.seed = f.seed;
  RunInfo info = runInfoFor(project, run);
  info.environment = {{"device", "cpu (2 threads)"}, {"host", "fixture"}};
  info.training_flops_per_token = f.flops_per_token;
  writeRunInfo(dir, info);
  MetricsWriter writer(RunPaths{dir}.metrics());
  for (size_t i = 0; i < f.eval_losses.size(); ++i) {
    MetricsRecord r;
    r.step = static_cast<int64_t>(i) * 10;
    r.tokens = static_cast<int64_t>(i) * 1000;
    r.wall_s = f.wall_per_eval * static_cast<double>(i);
    r.eval_loss = f.eval_losses[i];
    writer.append(r);
  }
  RunStatus status;
  status.state = RunState::Finished;
  status.step = static_cast<int64_t>(f.eval_losses.size() - 1) * 10;
  status.tokens = static_cast<int64_t>(f.eval_losses.size() - 1) * 1000;
  writeRunStatus(dir, status);
}

void writeInversion(const fs::path& out, const std::string& run, bool trained, const json& hamming_by_layer) {
  json layers = json::array();
  for (size_t k = 0; k < hamming_by_layer.size(); ++k) {
    layers.push_back({{"layer", k},
                      {"hamming_top_k", hamming_by_layer[k]},
                      {"hamming_exact", hamming_by_layer[k]},
                      {"final_l1", json::array()},
                      {"target_l1", json::array()}});
  }
  writeFileAtomic(
      out / "results" / ("inversion-" + run + (trained ? "-trained" : "-untrained") + ".json"),
      json{{"run", run}, {"trained", trained}, {"texts", 2}, {"iterations", 50}, {"layers", layers}}.dump());
}

void writeRetrieval(const fs::path& out, const std::string& run, const json& epochs, double cosine_top1) {
  RetrievalRunRecord record;
  record.context = 32;
  record.layers = 2;
  record.chance_top1 = 1.0 / 31;
  record.epochs = epochs;
  writeRetrievalRunRecord(out / "runs" / ("retrieval-" + run), record);
  writeFileAtomic(out / "results" / ("retrieval-" + run + "-cosine.json"),
                  json{{"run", run}, {"top1", cosine_top1}, {"top5", 0.5}, {"eval_loss", 3.0}}.dump());
}

// A two-family, two-seed reproduction folder. `mixer_seed2` sets the second mixer seed's losses.
fs::path fixtureFolder(const std::string& tag, const std::vector<double>& mixer_seed2) {
  const fs::path out = testing::makeScratchDir(tag);
  const ProjectConfig project = loadProject(testing::sourceDir() / "projects/demo/project.json");
  const std::vector<FixtureRun> runs = {{"mixer-seed1", "mixer", "mixer", 1, 1e6, {3.0, 2.5, 2.2, 2.3}},
                                        {"llama-seed1", "llama", "transformer", 1, 2e6, {3.2, 2.8, 2.6}, 3.0},
                                        {"mixer-seed2", "mixer", "mixer", 2, 1e6, mixer_seed2},
                                        {"llama-seed2", "llama", "transformer", 2, 2e6, {3.0, 2.7, 2.45}, 3.0}};
  ReproducePlan plan;
  plan.summary = "fixture";
  plan.project = json::object();
  plan.budget_flops = 3e9;
  for (const auto& r : runs) {
    plan.runs.push_back(plannedRun(r));
    writeRun(out, project, r);
  }
  plan.inversion = {{"mixer-seed1", false}, {"mixer-seed1", true}, {"llama-seed1", false}, {"llama-seed1", true}};
  plan.retrieval_runs = {"mixer-seed1", "llama-seed1"};
  plan.paper = parseJsonDocument(readFile(testing::sourceDir() / "projects/paper/reported_numbers.json"), "numbers");
  writeFileAtomic(out / "plan.json", plan.toJson().dump());
  fs::create_directories(out / "results");
  writeInversion(out, "mixer-seed1", false, json::array({{0.0, 0.0}, {0.0, 0.1}, {0.05, 0.15}}));
  writeInversion(out, "mixer-seed1", true, json::array({{0.0, 0.0}, {0.0, 0.0}, {0.0, 0.02}}));
  writeInversion(out, "llama-seed1", false, json::array({{0.0, 0.0}, {0.4, 0.6}, {0.9, 0.7}}));
  writeInversion(out, "llama-seed1", true, json::array({{0.0, 0.0}, {0.3, 0.5}, {0.6, 0.8}}));
  // The mixer's best epoch by held-out CE is epoch 2 (top-1 0.5), not its highest top-1 (0.6).
  writeRetrieval(out, "mixer-seed1",
                 json::array({{{"epoch", 1}, {"eval_loss", 3.0}, {"top1", 0.1}, {"top5", 0.3}},
                              {{"epoch", 2}, {"eval_loss", 2.0}, {"top1", 0.5}, {"top5", 0.8}},
                              {{"epoch", 3}, {"eval_loss", 2.2}, {"top1", 0.6}, {"top5", 0.9}}}),
                 0.2);
  writeRetrieval(out, "llama-seed1",
                 json::array({{{"epoch", 1}, {"eval_loss", 3.3}, {"top1", 0.05}, {"top5", 0.2}},
                              {{"epoch", 2}, {"eval_loss", 3.1}, {"top1", 0.2}, {"top5", 0.4}}}),
                 0.1);
  writeFileAtomic(out / "results" / "timing.json", json{{"train-mixer-seed1", 10.5}, {"report", 1.5}}.dump());
  return out;
}

const json& claim(const json& report, const std::string& id) {
  for (const auto& c : report["claims"]) {
    if (c["id"] == id) return c;
  }
  throw std::runtime_error("no claim " + id);
}

const json& group(const json& report, const std::string& label) {
  for (const auto& g : report["groups"]) {
    if (g["label"] == label) return g;
  }
  throw std::runtime_error("no group " + label);
}

bool near(const json& v, double expected) { return v.is_number() && std::abs(v.get<double>() - expected) < 1e-9; }

}  // namespace

class ReproduceReportTest : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void numbersComeFromTheRunDirectories() {
    const json report = buildReproduceReport(fixtureFolder("report-values", {3.1, 2.6, 2.1}));
    QCOMPARE(report["runs"].size(), size_t{4});
    const json& mixer1 = report["runs"][0];
    QCOMPARE(mixer1["name"], json("mixer-seed1"));
    QVERIFY(near(mixer1["min_eval_loss"], 2.2));
    QVERIFY(near(mixer1["final_eval_loss"], 2.3));
    QVERIFY(near(mixer1["flops"], 3000 * 1e6));  // tokens x FLOPs per token
    QCOMPARE(mixer1["status"], json("finished"));
    QCOMPARE(mixer1["config"]["train"]["seed"], json(1));
    QCOMPARE(mixer1["eval_curve"].size(), size_t{4});
    QVERIFY(near(mixer1["eval_curve"][2]["flops"], 2000 * 1e6));
    const json& mixer = group(report, "mixer");
    QCOMPARE(mixer["members"].size(), size_t{2});
    QVERIFY(near(mixer["min_eval_loss"]["mean"], 2.15));
    QVERIFY(std::abs(mixer["min_eval_loss"]["std"].get<double>() - std::sqrt(2 * 0.05 * 0.05)) < 1e-9);
    QVERIFY(near(mixer["min_eval_loss"]["min"], 2.1));
    QVERIFY(near(mixer["paper_eval_loss"], 2.15));  // Table S3, flat mixer D=256
    QVERIFY(near(group(report, "llama")["paper_eval_loss"], 2.40));
    QVERIFY(near(report["timing"]["total_s"], 12.0));
    // The paper's equal compute is wall-clock: every run is read at the shortest run's time (4 s),
    // interpolated along its eval curve (Llama seed 1: 2.8 at 3 s, 2.6 at 6 s).
    QVERIFY(near(report["common_wall_s"], 4.0));
    QVERIFY(near(report["runs"][0]["eval_loss_at_common_wall"], 2.2));
    QVERIFY(near(report["runs"][1]["eval_loss_at_common_wall"], 2.8 - 0.2 / 3));
    QVERIFY(near(group(report, "llama")["eval_loss_at_common_wall"]["mean"], (2.8 - 0.2 / 3 + 2.7 - 0.25 / 3) / 2));
    QCOMPARE(report["seeds"], json::array({1, 2}));
    QCOMPARE(report["hardware"]["environment"]["host"], json("fixture"));
  }

  void equalComputeVerdictFollowsTheSeeds() {
    const json holds =
        claim(buildReproduceReport(fixtureFolder("report-holds", {3.1, 2.6, 2.1})), "equal_compute_loss");
    QCOMPARE(holds["verdict"], json("holds"));
    QCOMPARE(holds["holds"], json(true));
    QCOMPARE(holds["measured"]["equal_wall_clock"]["seeds_mixer_lower"], json(2));
    QVERIFY(near(holds["measured"]["equal_wall_clock"]["difference"], (2.8 - 0.2 / 3 + 2.7 - 0.25 / 3) / 2 - 2.15));
    QCOMPARE(holds["measured"]["equal_wall_clock"]["best_transformer_group"], json("llama"));
    QVERIFY(near(holds["measured"]["equal_flops"]["difference"], 2.525 - 2.15));
    QCOMPARE(holds["measured"]["equal_flops_verdict"], json("holds"));
    QVERIFY(near(holds["paper"]["values"]["mixer D=1024 eval loss"], 1.86));
    QCOMPARE(holds["runs"].size(), size_t{4});
    // Seed 2's mixer above seed 2's Llama: the ordering is not stable across seeds.
    const json mixed =
        claim(buildReproduceReport(fixtureFolder("report-mixed", {3.1, 2.9, 2.7})), "equal_compute_loss");
    QCOMPARE(mixed["verdict"], json("inconclusive"));
    QVERIFY(mixed["holds"].is_null());
    QCOMPARE(mixed["measured"]["equal_wall_clock"]["seeds_mixer_lower"], json(1));
  }

  void inversionAndRetrievalVerdicts() {
    const json report = buildReproduceReport(fixtureFolder("report-claims", {3.1, 2.6, 2.1}));
    const json& inversion = claim(report, "inversion_by_layer");
    QCOMPARE(inversion["verdict"], json("holds"));
    QVERIFY(near(inversion["measured"]["deepest_layer_hamming"]["mixer N(0,1) untrained"], 0.1));
    QVERIFY(near(inversion["measured"]["deepest_layer_hamming"]["transformer N(0,0.02) trained"], 0.7));
    QCOMPARE(report["inversion"][0]["layers"].size(), size_t{3});
    const json& retrieval = claim(report, "retrieval_top1");
    QCOMPARE(retrieval["verdict"], json("holds"));
    QVERIFY(near(retrieval["measured"]["mixer_top1"], 0.5));  // the lowest-CE epoch, not the best top-1
    QVERIFY(near(retrieval["measured"]["best_transformer_top1"], 0.2));
    QVERIFY(near(retrieval["paper"]["values"]["mixer top-1 (c=128)"], 0.858));
    QVERIFY(near(report["retrieval"][0]["cosine"]["top1"], 0.2));
  }

  void htmlIsSelfContained() {
    const fs::path out = fixtureFolder("report-html", {3.1, 2.6, 2.1});
    const ReportFiles files = writeReproduceReport(out);
    const std::string html = readFile(files.html);
    QVERIFY(html.find("<svg") != std::string::npos);
    QVERIFY(html.find("<script") == std::string::npos);
    QVERIFY(html.find("src=") == std::string::npos);
    QVERIFY(html.find("equal_compute_loss") != std::string::npos);
    for (const char* figure : {"loss_vs_flops", "loss_vs_wall_clock", "inversion_by_layer", "retrieval_top1"}) {
      QVERIFY2(fs::exists(out / "figures" / (std::string(figure) + ".svg")), figure);
    }
    const json written = parseJsonDocument(readFile(files.json), files.json.string());
    QCOMPARE(written["claims"].size(), size_t{3});
  }

  void cliRefusesToOverwriteAndRebuildsReports() {
    const fs::path out = fixtureFolder("report-cli", {3.1, 2.6, 2.1});
    auto r = testing::runCli({"reproduce", "--scale", "tiny", "--out", QString::fromStdString(out.string())});
    QCOMPARE(r.exit_code, 1);
    QVERIFY2(r.err.contains("already holds a reproduction") && r.err.contains("--resume"), qPrintable(r.err));
    const fs::path other = testing::makeScratchDir("report-cli-other");
    testing::writeText(other / "notes.txt", "mine");
    r = testing::runCli({"reproduce", "--out", QString::fromStdString(other.string())});
    QCOMPARE(r.exit_code, 1);
    QVERIFY2(r.err.contains("not empty"), qPrintable(r.err));
    QVERIFY(fs::exists(other / "notes.txt"));
    r = testing::runCli({"reproduce", "--out", QString::fromStdString(out.string()), "--report-only"});
    QCOMPARE(r.exit_code, 0);
    QVERIFY(fs::exists(out / "report.html"));
  }
};

QTEST_APPLESS_MAIN(ReproduceReportTest)
#include "test_reproduce_report.moc"
