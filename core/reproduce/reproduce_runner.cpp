// Executes a reproduction plan step by step (see reproduce_runner.h).
#include "core/reproduce/reproduce_runner.h"

#include <chrono>
#include <cmath>

#include <torch/torch.h>

#include "core/analysis/eval_documents.h"
#include "core/analysis/inversion.h"
#include "core/analysis/retrieval/infonce_finetune.h"
#include "core/analysis/retrieval/retrieval_corpus.h"
#include "core/analysis/retrieval/retrieval_dataset.h"
#include "core/analysis/retrieval/retrieval_run.h"
#include "core/config/project_config.h"
#include "core/reproduce/reproduce_report.h"
#include "core/runs/run_directory.h"
#include "core/train/trainer.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/json_document.h"

namespace mixerlab {
namespace fs = std::filesystem;

namespace {

using Clock = std::chrono::steady_clock;

class StepRunner {
 public:
  StepRunner(const ReproduceRequest& request, const ReproducePlan& plan, const ProjectConfig& project)
      : request_(request), plan_(plan), project_(project), out_(request.out_dir) {
    step_count_ = static_cast<int>(plan.runs.size() + plan.inversion.size() + plan.retrieval_runs.size() +
                                   plan.infonce_runs.size()) +
                  1;
    fs::create_directories(out_ / "results");
    const fs::path timing = out_ / "results" / "timing.json";
    if (fs::exists(timing)) timing_ = parseJsonDocument(readFile(timing), timing.string());
    if (!timing_.is_object()) timing_ = nlohmann::json::object();
  }

  bool stopRequested() const { return request_.stop_requested && request_.stop_requested->load(); }

  void train(const PlannedRun& planned) {
    begin("train " + planned.name);
    const fs::path run_dir = out_ / "runs" / planned.name;
    TrainRequest train;
    train.project = &project_;
    train.run = project_.run(planned.name);
    train.run_dir = run_dir;
    train.resume = true;  // a finished run is skipped, an interrupted one continues
    train.stop_requested = request_.stop_requested;
    train.on_progress = [&](const TrainProgress& p) { progress(p.fraction_done); };
    const TrainOutcome outcome = trainRun(train);
    if (outcome.state == RunState::Failed) {
      throw MixerLabError("the reproduction's run " + planned.name + " failed at step " + std::to_string(outcome.step) +
                              ": " + outcome.reason,
                          "see " + RunPaths{run_dir}.log().string() + "; fix the cause and run again with --resume");
    }
    finish("train-" + planned.name);
  }

  void invert(const InversionJob& job) {
    const std::string id = "inversion-" + job.run + (job.trained ? "-trained" : "-untrained");
    begin(std::string("invert ") + job.run + (job.trained ? " (trained)" : " (untrained)"));
    const fs::path result_file = out_ / "results" / (id + ".json");
    if (fs::exists(result_file)) return finish(id, false);
    const fs::path run_dir = out_ / "runs" / job.run;
    const ModelSource source = job.trained ? ModelSource::checkpoint(run_dir) : ModelSource::untrainedLike(run_dir);
    InversionSettings settings;
    settings.iterations = plan_.inversion_iterations;
    settings.layers.clear();
    const int64_t depth = project_.run(job.run).model.n_layers;
    for (int64_t k = 0; k <= depth; ++k) settings.layers.push_back(k);
    settings.device = "auto";
    if (inversion_texts_.empty()) {  // the same inputs for every model: read once
      inversion_texts_ = evalSplitDocuments(project_, static_cast<size_t>(plan_.inversion_texts));
    }
    const auto& texts = inversion_texts_;
    const auto results = invertTexts(
        source, texts, settings,
        [&](const InversionProgress& p) {
          const double per_layer = 1.0 / static_cast<double>(std::max<int64_t>(1, p.layer_count));
          progress(per_layer *
                   (static_cast<double>(p.layer_index) +
                    static_cast<double>(p.iteration) / static_cast<double>(std::max<int64_t>(1, p.iterations))));
        },
        request_.stop_requested);
    if (stopRequested()) return;
    nlohmann::json layers = nlohmann::json::array();
    for (int64_t k = 0; k <= depth; ++k) {
      nlohmann::json layer{{"layer", k},
                           {"hamming_top_k", nlohmann::json::array()},
                           {"hamming_exact", nlohmann::json::array()},
                           {"final_l1", nlohmann::json::array()},
                           {"target_l1", nlohmann::json::array()}};
      for (const auto& r : results) {
        if (r.layer != k) continue;
        layer["hamming_top_k"].push_back(r.hamming_top_k);
        layer["hamming_exact"].push_back(r.hamming_exact);
        layer["final_l1"].push_back(r.final_loss);
        layer["target_l1"].push_back(r.target_l1);
      }
      layers.push_back(layer);
    }
    const nlohmann::json result{{"run", job.run},
                                {"trained", job.trained},
                                {"model", results.empty() ? "" : results.front().model_label},
                                {"texts", texts.size()},
                                {"iterations", settings.iterations},
                                {"top_k", settings.top_k},
                                {"device", results.empty() ? "" : results.front().device},
                                {"layers", layers}};
    writeFileAtomic(result_file, result.dump(1) + "\n");
    finish(id);
  }

  void retrieval(const std::string& run) {
    const std::string id = "retrieval-" + run;
    begin("retrieval on " + run + " embeddings");
    const fs::path run_dir = out_ / "runs" / id;
    const fs::path cosine_file = out_ / "results" / (id + "-cosine.json");
    if (fs::exists(cosine_file)) return finish(id, false);
    const RetrievalCorpus corpus = RetrievalCorpus::synthetic(plan_.retrieval_pairs, 1);
    EmbeddingSettings embedding;
    embedding.after_final_norm = plan_.retrieval_after_final_norm;
    const auto data = ensureRetrievalDataset(
        corpus, ModelSource::checkpoint(out_ / "runs" / run), out_ / "retrieval-data",
        [&](size_t done, size_t total) { progress(0.1 * static_cast<double>(done) / static_cast<double>(total)); },
        request_.stop_requested, embedding);
    if (fs::exists(run_dir)) fs::remove_all(run_dir);  // an interrupted retrieval training starts over
    RetrievalRunRequest train;
    train.data_dir = data.dir;
    train.run_dir = run_dir;
    // The research's settings at this context, with the fields the plan sizes for its scale.
    train.settings = RetrievalTrainSettings::research(plan_.retrieval_context);
    train.settings.epochs = plan_.retrieval_epochs;
    train.settings.layers = plan_.retrieval_layers;
    train.settings.learning_rate = plan_.retrieval_learning_rate;
    train.settings.batch_size = plan_.retrieval_batch_size;
    train.settings.warmup_steps = plan_.retrieval_warmup_steps;
    train.cancel = request_.stop_requested;
    train.on_epoch = [&](const RetrievalEpoch& e) {
      progress(0.1 + 0.9 * static_cast<double>(e.epoch) / static_cast<double>(plan_.retrieval_epochs));
    };
    runRetrievalTraining(train);
    if (stopRequested()) return;
    // The no-training baseline on the same held-out candidate sets: cosine similarity of the embeddings.
    const RetrievalDataset dataset = loadRetrievalDataset(data.dir);
    const RetrievalEpoch cosine =
        evaluateCosineRetrieval(dataset.query_test, dataset.target_test, plan_.retrieval_context, train.settings.seed);
    writeFileAtomic(
        cosine_file,
        nlohmann::json{
            {"run", run}, {"eval_loss", cosine.eval_loss}, {"top1", cosine.eval_top1}, {"top5", cosine.eval_top5}}
                .dump(1) +
            "\n");
    finish(id);
  }

  // InfoNCE fine-tuning of a pretrained run with the research's settings on the suite's synthetic
  // pairs (the last tenth held out); results/infonce-<run>.json keeps its held-out top-1 history.
  void infonce(const std::string& run) {
    const std::string id = "infonce-" + run;
    begin("InfoNCE fine-tuning of " + run);
    const fs::path result_file = out_ / "results" / (id + ".json");
    if (fs::exists(result_file)) return finish(id, false);
    const RetrievalCorpus corpus = RetrievalCorpus::synthetic(plan_.retrieval_pairs, 1);
    const std::vector<StoryPair> pairs = corpus.pairs();
    const auto held = static_cast<std::ptrdiff_t>(std::ceil(corpus.test_fraction * static_cast<double>(pairs.size())));
    const std::vector<StoryPair> train(pairs.begin(), pairs.end() - held), held_out(pairs.end() - held, pairs.end());
    InfoNceSettings settings = InfoNceSettings::research();
    settings.steps = plan_.infonce_steps;
    settings.eval_every = plan_.infonce_eval_every;
    const fs::path run_dir = out_ / "runs" / id;
    if (fs::exists(run_dir)) fs::remove_all(run_dir);  // an interrupted fine-tuning starts over
    nlohmann::json history = nlohmann::json::array();
    double last_top1 = -1;
    infoNceFinetune(
        ModelSource::checkpoint(out_ / "runs" / run), train, held_out, settings, run_dir,
        [&](const InfoNceProgress& p) {
          progress(static_cast<double>(p.step) / static_cast<double>(settings.steps));
          if (!p.eval_top1) return;
          history.push_back({{"step", p.step}, {"top1", *p.eval_top1}});
          last_top1 = *p.eval_top1;
        },
        request_.stop_requested);
    if (stopRequested()) return;
    const nlohmann::json result{{"run", run},
                                {"steps", settings.steps},
                                {"candidates", settings.candidates},
                                {"chance_top1", 1.0 / static_cast<double>(settings.candidates)},
                                {"final_top1", last_top1 < 0 ? nlohmann::json(nullptr) : nlohmann::json(last_top1)},
                                {"history", history}};
    writeFileAtomic(result_file, result.dump(1) + "\n");
    finish(id);
  }

  ReproduceOutcome report() {
    begin("report");
    ReproduceOutcome outcome;
    outcome.wall_s = totalSeconds();
    const auto files = writeReproduceReport(out_);
    outcome.report_html = files.html;
    outcome.report_json = files.json;
    outcome.finished = true;
    log("report: " + files.html.string());
    return outcome;
  }

  double totalSeconds() const {
    double total = 0;
    for (const auto& item : timing_.items()) total += item.value().get<double>();
    return total;
  }

 private:
  void begin(const std::string& title) {
    ++step_;
    title_ = title;
    started_ = Clock::now();
    log("[" + std::to_string(step_) + "/" + std::to_string(step_count_) + "] " + title);
    progress(0);
  }

  void progress(double fraction) {
    if (request_.on_progress) request_.on_progress({step_, step_count_, title_, fraction});
  }

  // Adds this session's time for the step to results/timing.json (a resumed step adds to it).
  void finish(const std::string& id, bool did_work = true) {
    if (!did_work || stopRequested()) return;
    const double seconds = std::chrono::duration<double>(Clock::now() - started_).count();
    timing_[id] = timing_.value(id, 0.0) + seconds;
    writeFileAtomic(out_ / "results" / "timing.json", timing_.dump(1) + "\n");
    progress(1);
  }

  void log(const std::string& line) const {
    if (request_.on_log) request_.on_log(line);
  }

  const ReproduceRequest& request_;
  const ReproducePlan& plan_;
  const ProjectConfig& project_;
  fs::path out_;
  nlohmann::json timing_;
  std::vector<std::string> inversion_texts_;
  int step_ = 0, step_count_ = 0;
  std::string title_;
  Clock::time_point started_;
};

ReproducePlan preparedPlan(const ReproduceRequest& request) {
  const fs::path plan_file = request.out_dir / "plan.json";
  if (fs::exists(plan_file)) {
    if (!request.resume) {
      throw MixerLabError(request.out_dir.string() + " already holds a reproduction",
                          "add --resume to continue it, or choose another --out folder");
    }
    ReproducePlan plan = ReproducePlan::fromJson(parseJsonDocument(readFile(plan_file), plan_file.string()));
    if (plan.scale != request.scale) {
      throw MixerLabError(request.out_dir.string() + " holds a --scale " + scaleName(plan.scale) + " reproduction",
                          "resume it with --scale " + scaleName(plan.scale) + ", or choose another --out folder");
    }
    return plan;
  }
  if (fs::exists(request.out_dir) && !fs::is_empty(request.out_dir)) {
    throw MixerLabError(request.out_dir.string() + " is not empty and holds no reproduction",
                        "choose a new or empty --out folder");
  }
  ReproducePlan plan = planReproduction(request.scale, request.projects_dir);
  fs::create_directories(request.out_dir);
  writeFileAtomic(request.out_dir / "project.json", plan.project.dump(2) + "\n");
  writeFileAtomic(plan_file, plan.toJson().dump(1) + "\n");
  return plan;
}

}  // namespace

ReproduceOutcome runReproduction(const ReproduceRequest& request) {
  const ReproducePlan plan = preparedPlan(request);
  const ProjectConfig project = loadProject(request.out_dir / "project.json");
  StepRunner steps(request, plan, project);
  ReproduceOutcome stopped;
  for (const auto& run : plan.runs) {
    steps.train(run);
    if (steps.stopRequested()) return stopped;
  }
  for (const auto& job : plan.inversion) {
    steps.invert(job);
    if (steps.stopRequested()) return stopped;
  }
  for (const auto& run : plan.retrieval_runs) {
    steps.retrieval(run);
    if (steps.stopRequested()) return stopped;
  }
  for (const auto& run : plan.infonce_runs) {
    steps.infonce(run);
    if (steps.stopRequested()) return stopped;
  }
  return steps.report();
}

}  // namespace mixerlab
