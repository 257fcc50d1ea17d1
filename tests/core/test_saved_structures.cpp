// Every field of every structure MixerLab saves and reads back survives the round trip: each field
// is set to a value other than its default (and other than its neighbours'), written the way the
// product writes it (status.json, retrieval_run.json, the reproduction's plan.json, a checkpoint's
// trainer state, run.json and a checkpoint's config.json), read back and compared with the value
// set here, not with the written JSON (a field that the writer and the reader both forget would
// pass a JSON comparison). The run and project fields come from the schema, so a new field is
// covered by itself.
#include <QtTest/QtTest>

#include "core/config/config_schema.h"
#include "core/config/project_config.h"
#include "core/reproduce/reproduce_plan.h"
#include "core/runs/retrieval_run_record.h"
#include "core/runs/run_info.h"
#include "core/runs/run_status.h"
#include "core/train/checkpoint.h"
#include "tests/schema_fixtures.h"
#include "tests/test_support.h"

using namespace mixerlab;
using json = nlohmann::json;
namespace fs = std::filesystem;

namespace {

// Values other than the field's default, in the order they are tried (a field whose real limit
// depends on another may refuse some): booleans flipped, every other choice, numbers near the
// default and at the ends of the range, a text.
std::vector<json> nonDefaultValues(const FieldSpec& spec) {
  std::vector<json> out;
  const json& d = spec.default_value;
  const auto add = [&](const json& v) {
    if (v != d && std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  };
  switch (spec.type) {
    case FieldType::Boolean:
      add(d.is_boolean() ? json(!d.get<bool>()) : json(true));
      break;
    case FieldType::Choice:
      for (const auto& c : spec.choices) add(c);
      break;
    case FieldType::Integer:
    case FieldType::Number: {
      const bool integer = spec.type == FieldType::Integer;
      const double base = d.is_number() ? d.get<double>() : spec.min;
      const double lo = spec.hasBounds() ? spec.min : -1e300, hi = spec.hasBounds() ? spec.max : 1e300;
      std::vector<double> tries = integer
                                      ? std::vector<double>{base + 1, base * 2, base - 1, lo + 1, lo, hi, 1000}
                                      : std::vector<double>{base * 1.5, base + 0.125, base / 2, lo, hi, (lo + hi) / 2};
      for (const double v : tries) {
        if (v < lo || v > hi || std::abs(v) > 1e15) continue;
        add(integer ? json(static_cast<int64_t>(v)) : json(v));
      }
      break;
    }
    case FieldType::Text:
      add("round-trip-7");
      add("cuda:1");  // a device
      break;
  }
  return out;
}

// Equal values; a relative path set here comes back resolved against the project's folder.
bool sameValue(const json& got, const json& set, const fs::path& project_dir) {
  if (got.is_number() && set.is_number()) return got.get<double>() == set.get<double>();
  if (got.is_string() && set.is_string() && got.get<std::string>() == (project_dir / set.get<std::string>()).string()) {
    return true;
  }
  return got == set;
}

// The settings a field needs beside it to be accepted at all (a field that only applies with another
// setting, a value that must agree with another).
void setCompanions(json& project, json& at, const std::string& key, const json& value) {
  if (key == "model.vocab_size") project["tokenizer"]["vocab_size"] = value;
  if (key == "model.options.multi_head_compat") testing::setAt(at, "model.options.mixing", "multi_head");
}

// The first non-default value of `spec` the project accepts, set at its key inside the project's
// run (a run field) or the project itself; null when it accepts none.
json setAccepted(json& project, bool run_field, const FieldSpec& spec) {
  for (const auto& v : nonDefaultValues(spec)) {
    json tried = project;
    json& at = run_field ? tried["runs"][0] : tried;
    setCompanions(tried, at, spec.key, v);
    testing::setAt(at, spec.key, v);
    if (testing::projectError(tried).empty()) {
      project = std::move(tried);
      return v;
    }
  }
  return nullptr;
}

// The project and its run after run.json and after a checkpoint's config.json built from it.
struct SavedForms {
  json run_from_run_json, run_from_checkpoint, project_from_checkpoint;
};

SavedForms saveAndRead(const json& project_json, const fs::path& dir) {
  // A checkpoint's project is loaded as one that trains: its corpus files must exist.
  for (const char* name : {"train.txt", "held-out.txt", "round-trip-7"}) {
    if (!fs::exists(dir / name)) testing::writeText(dir / name, "Once upon a time.\n\nThe end.\n");
  }
  const ProjectConfig project = parseProject(project_json, dir / "project.json", CorpusFiles::MayBeMissing);
  writeRunInfo(dir, runInfoFor(project, project.run("r")));
  const RunInfo read = readRunInfo(dir);
  const ProjectConfig from_checkpoint = projectFromCheckpointConfig(json::parse(read.configJson().dump()), dir);
  return {read.run.toJson(), from_checkpoint.runs.at(0).toJson(), from_checkpoint.toJson()};
}

}  // namespace

class TestSavedStructures : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  // Every run field (model, family options, training) set alone to a value other than its default
  // survives run.json and a checkpoint's config.json.
  void everyRunFieldSurvivesRunJsonAndCheckpointConfig() {
    const fs::path dir = testing::makeScratchDir("saved-run-fields");
    int checked = 0;
    std::string refused;
    for (const auto& spec : runFieldSpecs()) {
      const std::string arch = testing::familyFor(spec);
      if (arch.empty() || spec.key == "name" || spec.key == "model.arch") continue;
      json project = testing::baseProject(arch);
      const json value = setAccepted(project, true, spec);
      if (value.is_null()) {
        refused += " " + spec.key;
        continue;
      }
      const SavedForms saved = saveAndRead(project, dir);
      const json after_run_json = testing::getAt(saved.run_from_run_json, spec.key);
      const json after_checkpoint = testing::getAt(saved.run_from_checkpoint, spec.key);
      QVERIFY2(
          sameValue(after_run_json, value, dir),
          (spec.key + " (" + arch + ") set to " + value.dump() + ", run.json gave " + after_run_json.dump()).c_str());
      QVERIFY2(sameValue(after_checkpoint, value, dir),
               (spec.key + " (" + arch + ") set to " + value.dump() + ", config.json gave " + after_checkpoint.dump())
                   .c_str());
      ++checked;
    }
    QVERIFY2(refused.empty(), ("no non-default value accepted for:" + refused).c_str());
    QVERIFY2(checked > 60, qPrintable(QString::number(checked)));
    qInfo("%d run fields round-tripped", checked);
  }

  // Every project field (corpus, tokenizer) likewise survives the checkpoint's config.json.
  void everyProjectFieldSurvivesCheckpointConfig() {
    const fs::path dir = testing::makeScratchDir("saved-project-fields");
    int checked = 0;
    std::string refused;
    for (const auto& spec : projectFieldSpecs()) {
      if (spec.key == "name" || spec.key == "corpus.train" || spec.key == "corpus.eval") continue;  // paths: below
      json project = testing::baseProject("masked_mixer");
      const json value = setAccepted(project, false, spec);
      if (value.is_null()) {
        refused += " " + spec.key;
        continue;
      }
      const json after = testing::getAt(saveAndRead(project, dir).project_from_checkpoint, spec.key);
      QVERIFY2(sameValue(after, value, dir),
               (spec.key + " set to " + value.dump() + ", config.json gave " + after.dump()).c_str());
      ++checked;
    }
    QVERIFY2(refused.empty(), ("no non-default value accepted for:" + refused).c_str());
    QVERIFY2(checked >= 5, qPrintable(QString::number(checked)));
    qInfo("%d project fields round-tripped", checked);
    // The corpus paths come back absolute, resolved against the project's folder.
    json project = testing::baseProject("masked_mixer");
    project["corpus"]["eval"] = "held-out.txt";
    const json corpus = saveAndRead(project, dir).project_from_checkpoint["corpus"];
    QCOMPARE(corpus["train"].get<std::string>(), (dir / "train.txt").string());
    QCOMPARE(corpus["eval"].get<std::string>(), (dir / "held-out.txt").string());
  }

  void runStatusRoundTrips() {
    const fs::path dir = testing::makeScratchDir("saved-status");
    RunStatus s;
    s.state = RunState::Failed;
    s.reason = "out of memory at step 7";
    s.step = 7;
    s.tokens = 7168;
    s.pid = 4242;
    s.host = "gpu-node-3";
    s.updated_at = "2026-11-28T10:00:00Z";
    writeRunStatus(dir, s);
    const auto r = readRunStatus(dir);
    QVERIFY(r.has_value());
    QCOMPARE(r->state, RunState::Failed);
    QCOMPARE(r->reason, std::string("out of memory at step 7"));
    QCOMPARE(r->step, int64_t{7});
    QCOMPARE(r->tokens, int64_t{7168});
    QCOMPARE(r->pid, int64_t{4242});
    QCOMPARE(r->host, std::string("gpu-node-3"));
    QVERIFY(!r->updated_at.empty());  // stamped by the writer
    for (const RunState state : {RunState::Pending, RunState::Running, RunState::Finished, RunState::Stopped}) {
      s.state = state;
      writeRunStatus(dir, s);
      QCOMPARE(readRunStatus(dir)->state, state);
    }
  }

  void retrievalRunRecordRoundTrips() {
    const fs::path dir = testing::makeScratchDir("saved-retrieval");
    // Every field in declaration order, each unlike its default and its neighbours.
    const RetrievalRunRecord w{
        "/data/pairs", "mixer/step-00000300",
        /*context=*/33,
        /*layers=*/5,
        /*width=*/96,
        /*batch_size=*/17,
        /*epochs_planned=*/9,
        /*learning_rate=*/3.5e-4,
        /*warmup_steps=*/11,
        /*weight_decay=*/0.02,
        /*grad_clip_norm=*/0.75,
        /*with_replacement=*/true,
        /*chance_top1=*/1.0 / 29,
        /*device=*/"cuda:1",
        /*epochs=*/
        json::array(
            {{{"epoch", 1}, {"step", 4}, {"train_loss", 3.2}, {"eval_loss", 3.1}, {"top1", 0.25}, {"top5", 0.75}}})};
    writeRetrievalRunRecord(dir, w);
    const auto r = tryReadRetrievalRunRecord(dir);
    QVERIFY(r.has_value());
    QCOMPARE(r->data, w.data);
    QCOMPARE(r->embedding_model, w.embedding_model);
    QCOMPARE(r->context, int64_t{33});
    QCOMPARE(r->layers, int64_t{5});
    QCOMPARE(r->width, int64_t{96});
    QCOMPARE(r->batch_size, int64_t{17});
    QCOMPARE(r->epochs_planned, int64_t{9});
    QCOMPARE(r->learning_rate, 3.5e-4);
    QCOMPARE(r->warmup_steps, int64_t{11});
    QCOMPARE(r->weight_decay, 0.02);
    QCOMPARE(r->grad_clip_norm, 0.75);
    QCOMPARE(r->with_replacement, true);
    QCOMPARE(r->chance_top1, 1.0 / 29);
    QCOMPARE(r->device, std::string("cuda:1"));
    QCOMPARE(r->epochs, w.epochs);
  }

  void trainerStateRoundTrips() {
    TrainerState w;
    w.step = 123;
    w.tokens = 456789;
    w.wall_s = 98.25;
    w.data_position = {3, 41};
    w.best_eval_loss = 2.125;
    w.pending_loss_sum = 7.5;
    w.pending_loss_steps = 3;
    w.loss_scaler = LossScalerState{1024.0, 17, 2};
    const TrainerState r = TrainerState::fromJson(json::parse(w.toJson().dump()));
    QCOMPARE(r.step, int64_t{123});
    QCOMPARE(r.tokens, int64_t{456789});
    QCOMPARE(r.wall_s, 98.25);
    QCOMPARE(r.data_position.epoch, int64_t{3});
    QCOMPARE(r.data_position.index, int64_t{41});
    QVERIFY(r.best_eval_loss.has_value());
    QCOMPARE(*r.best_eval_loss, 2.125);
    QCOMPARE(r.pending_loss_sum, 7.5);
    QCOMPARE(r.pending_loss_steps, int64_t{3});
    QVERIFY(r.loss_scaler.has_value());
    QCOMPARE(r.loss_scaler->scale, 1024.0);
    QCOMPARE(r.loss_scaler->finite_steps, int64_t{17});
    QCOMPARE(r.loss_scaler->skipped_steps, int64_t{2});
    // The optional fields stay absent when they were.
    const TrainerState fresh = TrainerState::fromJson(json::parse(TrainerState{}.toJson().dump()));
    QVERIFY(!fresh.best_eval_loss.has_value());
    QVERIFY(!fresh.loss_scaler.has_value());
  }

  void reproducePlanRoundTrips() {
    ReproducePlan w;
    w.scale = ReproduceScale::kGpu;
    w.summary = "two families, three seeds";
    w.project = {{"name", "reproduce"}, {"runs", json::array({{{"name", "mixer-seed1"}}})}};
    w.budget_flops = 2.5e12;
    PlannedRun run;
    run.name = "llama-init-seed2";
    run.group = "llama-init";
    run.arm = ResearchArm::kTransformer;
    run.embedding_init = "N(0,1)";
    run.equal_compute = false;
    run.seed = 2;
    run.model = {{"arch", "llama"}, {"d_model", 64}};
    run.train = {{"max_steps", 40}};
    run.paper_row = "Llama D=128 H=32";
    run.label = "llama D=64 N=8 H=4 sdpa emb N(0,1)";
    w.runs = {run};
    w.inversion = {{"llama-init-seed2", false}};
    w.inversion_texts = 6;
    w.inversion_iterations = 75;
    w.retrieval_runs = {"mixer-seed1", "llama-seed1"};
    w.retrieval_pairs = 321;
    w.retrieval_context = 48;
    w.retrieval_epochs = 7;
    w.retrieval_learning_rate = 2e-4;
    w.retrieval_layers = 3;
    w.retrieval_batch_size = 24;
    w.retrieval_warmup_steps = 13;
    w.retrieval_note = "sized for 321 pairs";
    w.retrieval_after_final_norm = false;
    w.infonce_runs = {"mixer-seed1"};
    w.infonce_steps = 17;
    w.infonce_eval_every = 5;
    w.paper = {{"claims", json::array({{{"id", "equal_compute_loss"}}})}};
    const ReproducePlan r = ReproducePlan::fromJson(json::parse(w.toJson().dump()));
    QCOMPARE(r.scale, ReproduceScale::kGpu);
    QCOMPARE(r.summary, w.summary);
    QCOMPARE(r.project, w.project);
    QCOMPARE(r.budget_flops, 2.5e12);
    QCOMPARE(r.runs.size(), size_t{1});
    const PlannedRun& p = r.runs.front();
    QCOMPARE(p.name, run.name);
    QCOMPARE(p.group, run.group);
    QVERIFY(p.arm == run.arm);
    QCOMPARE(p.embedding_init, run.embedding_init);
    QCOMPARE(p.equal_compute, false);
    QCOMPARE(p.seed, uint64_t{2});
    QCOMPARE(p.model, run.model);
    QCOMPARE(p.train, run.train);
    QCOMPARE(p.paper_row, run.paper_row);
    QCOMPARE(p.label, run.label);
    QCOMPARE(r.inversion.size(), size_t{1});
    QCOMPARE(r.inversion.front().run, std::string("llama-init-seed2"));
    QCOMPARE(r.inversion.front().trained, false);
    QCOMPARE(r.inversion_texts, int64_t{6});
    QCOMPARE(r.inversion_iterations, int64_t{75});
    QCOMPARE(r.retrieval_runs, (std::vector<std::string>{"mixer-seed1", "llama-seed1"}));
    QCOMPARE(r.retrieval_pairs, int64_t{321});
    QCOMPARE(r.retrieval_context, int64_t{48});
    QCOMPARE(r.retrieval_epochs, int64_t{7});
    QCOMPARE(r.retrieval_learning_rate, 2e-4);
    QCOMPARE(r.retrieval_layers, int64_t{3});
    QCOMPARE(r.retrieval_batch_size, int64_t{24});
    QCOMPARE(r.retrieval_warmup_steps, int64_t{13});
    QCOMPARE(r.retrieval_note, w.retrieval_note);
    QCOMPARE(r.retrieval_after_final_norm, false);
    ReproducePlan reading_after = w;
    reading_after.retrieval_after_final_norm = true;
    QCOMPARE(ReproducePlan::fromJson(json::parse(reading_after.toJson().dump())).retrieval_after_final_norm, true);
    QCOMPARE(r.infonce_runs, w.infonce_runs);
    QCOMPARE(r.infonce_steps, int64_t{17});
    QCOMPARE(r.infonce_eval_every, int64_t{5});
    QCOMPARE(r.paper, w.paper);
  }
};

QTEST_APPLESS_MAIN(TestSavedStructures)
#include "test_saved_structures.moc"
