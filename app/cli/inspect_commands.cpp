// `mixerlab info | eval | score | export | runs`: look at projects, checkpoints and run folders.
#include <cmath>
#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>
#include <torch/torch.h>

#include "app/cli/cli_commands.h"
#include "core/config/project_config.h"
#include "core/data/tokenizer.h"
#include "core/models/model_registry.h"
#include "core/models/safetensors.h"
#include "core/runs/metrics_log.h"
#include "core/runs/run_status.h"
#include "core/train/checkpoint.h"
#include "core/train/device.h"
#include "core/train/evaluator.h"
#include "core/train/run_data.h"
#include "core/util/error.h"

namespace mixerlab::cli {
namespace fs = std::filesystem;

namespace {

std::string humanCount(double v, const char* unit) {
  const char* prefixes[] = {"", "K", "M", "G", "T", "P"};
  int i = 0;
  while (std::fabs(v) >= 1000.0 && i < 5) {
    v /= 1000.0;
    ++i;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.3g %s%s", v, prefixes[i], unit);
  return buf;
}

std::string humanBytes(double bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int i = 0;
  while (bytes >= 1024.0 && i < 4) {
    bytes /= 1024.0;
    ++i;
  }
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.2f %s", bytes, units[i]);
  return buf;
}

int infoCommand(const std::string& project_path, const std::string& run_name, int64_t batch_override, bool as_json) {
  const ProjectConfig project = loadProject(project_path);
  const RunConfig& run = project.run(run_name);
  const int64_t batch = batch_override > 0 ? batch_override : run.train.batch_size;
  const ModelCost cost = estimateCost(run.model, batch);
  const int64_t built_parameters = buildModel(run.model)->parameterCount();
  if (as_json) {
    nlohmann::json j = cost.toJson();
    j["run"] = run.toJson();
    j["built_parameters"] = built_parameters;
    std::cout << j.dump(2) << "\n";
    return 0;
  }
  std::printf("run %s: %s, D=%lld, N=%lld, T=%lld, V=%lld, batch %lld\n", run.name.c_str(), run.model.arch.c_str(),
              static_cast<long long>(run.model.d_model), static_cast<long long>(run.model.n_layers),
              static_cast<long long>(run.model.context_length), static_cast<long long>(run.model.vocab_size),
              static_cast<long long>(batch));
  std::printf("%-22s %14s %16s %16s\n", "layer", "parameters", "fwd FLOPs/token", "activations");
  for (const auto& l : cost.layers) {
    std::printf("%-22s %14lld %16s %16s\n", l.name.c_str(), static_cast<long long>(l.parameters),
                humanCount(l.forward_flops_per_token, "FLOP").c_str(), humanBytes(l.activation_bytes).c_str());
  }
  std::printf("%-22s %14lld %16s %16s\n", "total", static_cast<long long>(cost.parameters),
              humanCount(cost.forward_flops_per_token, "FLOP").c_str(), humanBytes(cost.activation_bytes).c_str());
  std::printf("parameters (built model): %lld\n", static_cast<long long>(built_parameters));
  std::printf("training FLOPs per token: %s\n", humanCount(cost.training_flops_per_token, "FLOP").c_str());
  std::printf("memory: weights %s, gradients %s, AdamW state %s, activations %s (batch %lld)\n",
              humanBytes(cost.weight_bytes).c_str(), humanBytes(cost.gradient_bytes).c_str(),
              humanBytes(cost.optimizer_bytes).c_str(), humanBytes(cost.activation_bytes).c_str(),
              static_cast<long long>(batch));
  std::printf("formula: %s\n", cost.formula.c_str());
  return 0;
}

ProjectConfig checkpointProject(const fs::path& dir, const nlohmann::json& config) {
  fs::path source = dir / "config.json";
  if (config.contains("project_file") && fs::exists(fs::path(config.at("project_file").get<std::string>()).parent_path())) {
    source = config.at("project_file").get<std::string>();
  }
  return projectFromCheckpointConfig(config, source);
}

int evalCommand(const std::string& checkpoint, int64_t max_batches) {
  const fs::path dir = resolveCheckpointDir(checkpoint);
  const auto config = readCheckpointConfig(dir);
  const ProjectConfig project = checkpointProject(dir, config);
  configureCpuThreads(0);
  auto model = loadModelFromCheckpoint(dir);
  RunData data = prepareRunData(project, project.runs.front(), [](const std::string& line) { std::cerr << line << "\n"; });
  const auto batches = makeEvalBatches(*data.eval_examples, project.runs.front().train.batch_size, max_batches);
  const double loss = evaluateLoss(*model, batches, c10::Device(c10::kCPU));
  nlohmann::json out = {{"checkpoint", dir.string()},
                        {"step", readTrainerState(dir).step},
                        {"eval_loss", loss},
                        {"eval_batches", batches.size()}};
  std::cout << out.dump(2) << "\n";
  return 0;
}

int scoreCommand(const std::string& checkpoint, const std::string& text) {
  const fs::path dir = resolveCheckpointDir(checkpoint);
  configureCpuThreads(0);
  auto model = loadModelFromCheckpoint(dir);
  model->eval();
  const Tokenizer tokenizer = Tokenizer::load(dir / "tokenizer.model");
  std::vector<int> ids = tokenizer.encode(text);
  const int64_t context = model->config().context_length;
  if (ids.empty()) throw MixerLabError("--text encodes to no tokens", "pass some text to score");
  if (static_cast<int64_t>(ids.size()) > context) {
    throw MixerLabError("--text has " + std::to_string(ids.size()) + " tokens but the model's context is " +
                            std::to_string(context),
                        "score a shorter text");
  }
  torch::NoGradGuard no_grad;
  auto input = torch::tensor(std::vector<int64_t>(ids.begin(), ids.end()), torch::kLong).unsqueeze(0);
  auto log_probs = torch::log_softmax(model->forward(input), -1)[0];  // [L, V]
  // Causal LMs score token t with the logits at t-1; bidirectional models and autoencoders with
  // the logits at t (predictionOffset 0), so every token gets a score.
  const int64_t offset = model->predictionOffset();
  nlohmann::json tokens = nlohmann::json::array();
  double total = 0;
  int64_t scored_tokens = 0;
  for (size_t t = 0; t < ids.size(); ++t) {
    nlohmann::json entry = {{"position", t}, {"id", ids[t]}, {"piece", tokenizer.piece(ids[t])}};
    const int64_t source = static_cast<int64_t>(t) - offset;
    if (source < 0) {
      entry["logprob"] = nullptr;  // nothing precedes the first token
    } else {
      const double lp = log_probs[source][ids[t]].item<double>();
      entry["logprob"] = lp;
      total += lp;
      ++scored_tokens;
    }
    tokens.push_back(entry);
  }
  const double scored = static_cast<double>(scored_tokens);
  nlohmann::json out = {{"checkpoint", dir.string()},
                        {"tokens", tokens},
                        {"total_logprob", total},
                        {"mean_nll", scored > 0 ? -total / scored : 0.0}};
  std::cout << out.dump(2) << "\n";
  return 0;
}

int exportCommand(const std::string& checkpoint, const std::string& out_path) {
  const fs::path dir = resolveCheckpointDir(checkpoint);
  auto model = loadModelFromCheckpoint(dir);
  const auto config = readCheckpointConfig(dir);
  saveSafetensors(out_path, model->exportTensors(),
                  {{"format", "pt"}, {"arch", model->config().arch}, {"model_config", config.at("model").dump()}});
  std::cout << "wrote " << out_path << " (" << model->parameterCount() << " parameters, research tensor names)\n";
  return 0;
}

int runsCommand(const std::string& project_path) {
  const ProjectConfig project = loadProject(project_path);
  const fs::path runs_dir = project.defaultRunsDirectory();
  std::printf("%-20s %-10s %8s %12s %10s\n", "run", "status", "step", "tokens", "best eval");
  if (!fs::exists(runs_dir)) return 0;
  for (const auto& entry : fs::directory_iterator(runs_dir)) {
    if (!entry.is_directory()) continue;
    const auto status = readRunStatus(entry.path());
    double best = NAN;
    for (const auto& r : readMetrics(entry.path() / "metrics.jsonl")) {
      if (r.eval_loss && (std::isnan(best) || *r.eval_loss < best)) best = *r.eval_loss;
    }
    const RunStatus s = status ? status->resolvedForReader() : RunStatus{};
    std::printf("%-20s %-10s %8lld %12lld %10.4f\n", entry.path().filename().c_str(), runStateName(s.state).c_str(),
                static_cast<long long>(s.step), static_cast<long long>(s.tokens), best);
  }
  return 0;
}

}  // namespace

void addInspectCommands(CLI::App& app, Action& action) {
  struct Options {
    std::string project, run, checkpoint, text, out;
    int64_t batch = 0, max_batches = 0;
    bool json = false;
  };
  auto o = std::make_shared<Options>();

  auto* info = app.add_subcommand("info", "Parameters, FLOPs per token and activation memory of a run's model");
  info->add_option("project", o->project, "Project file")->required()->check(CLI::ExistingFile);
  info->add_option("--run", o->run, "Run name")->required();
  info->add_option("--batch-size", o->batch, "Batch size for the activation estimate (default: the run's)");
  info->add_flag("--json", o->json, "Print JSON");
  info->callback([o, &action]() { action = [o]() { return infoCommand(o->project, o->run, o->batch, o->json); }; });

  auto* eval = app.add_subcommand("eval", "Evaluation loss of a checkpoint on its run's eval split");
  eval->add_option("--checkpoint", o->checkpoint, "Checkpoint folder, or a run folder (uses its latest)")->required();
  eval->add_option("--max-batches", o->max_batches, "Limit the number of eval batches (0 = all)");
  eval->callback([o, &action]() { action = [o]() { return evalCommand(o->checkpoint, o->max_batches); }; });

  auto* score = app.add_subcommand("score", "Per-token log-probabilities of a text under a checkpoint (JSON)");
  score->add_option("--checkpoint", o->checkpoint, "Checkpoint folder, or a run folder")->required();
  score->add_option("--text", o->text, "Text to score")->required();
  score->callback([o, &action]() { action = [o]() { return scoreCommand(o->checkpoint, o->text); }; });

  auto* exp = app.add_subcommand("export", "Write a checkpoint's weights as safetensors with the research names");
  exp->add_option("--checkpoint", o->checkpoint, "Checkpoint folder, or a run folder")->required();
  exp->add_option("--out", o->out, "Output .safetensors file")->required();
  exp->callback([o, &action]() { action = [o]() { return exportCommand(o->checkpoint, o->out); }; });

  auto* runs = app.add_subcommand("runs", "List the run directories of a project with status and best eval loss");
  runs->add_option("project", o->project, "Project file")->required()->check(CLI::ExistingFile);
  runs->callback([o, &action]() { action = [o]() { return runsCommand(o->project); }; });
}

}  // namespace mixerlab::cli
