// `mixerlab info | eval | score | export | import | runs`: look at projects, checkpoints and run folders.
// Evaluation, scoring and run summaries live in core (analysis/, runs/); this file parses the
// arguments and prints.
#include <cmath>
#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>

#include "app/cli/cli_commands.h"
#include "app/cli/number_checks.h"
#include "core/analysis/checkpoint_eval.h"
#include "core/analysis/format.h"
#include "core/analysis/research_import.h"
#include "core/analysis/text_score.h"
#include "core/config/project_config.h"
#include "core/models/model_registry.h"
#include "core/models/safetensors.h"
#include "core/runs/run_directory.h"
#include "core/runs/run_summary.h"
#include "core/train/checkpoint.h"

namespace mixerlab::cli {
namespace fs = std::filesystem;

namespace {

int infoCommand(const std::string& project_path, const std::string& run_name, int64_t batch_override, bool as_json) {
  const ProjectConfig project = loadProject(project_path, CorpusFiles::MayBeMissing);
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
                formatFlops(l.forward_flops_per_token).c_str(), formatBytes(l.activation_bytes).c_str());
  }
  std::printf("%-22s %14lld %16s %16s\n", "total", static_cast<long long>(cost.parameters),
              formatFlops(cost.forward_flops_per_token).c_str(), formatBytes(cost.activation_bytes).c_str());
  std::printf("parameters (built model): %lld\n", static_cast<long long>(built_parameters));
  std::printf("training FLOPs per token: %s\n", formatFlops(cost.training_flops_per_token).c_str());
  std::printf("memory: weights %s, gradients %s, AdamW state %s, activations %s (batch %lld)\n",
              formatBytes(cost.weight_bytes).c_str(), formatBytes(cost.gradient_bytes).c_str(),
              formatBytes(cost.optimizer_bytes).c_str(), formatBytes(cost.activation_bytes).c_str(),
              static_cast<long long>(batch));
  std::printf("formula: %s\n", cost.formula.c_str());
  return 0;
}

int evalCheckpointCommand(const std::string& checkpoint, int64_t max_batches) {
  const CheckpointEval result =
      evaluateCheckpoint(checkpoint, max_batches, [](const std::string& line) { std::cerr << line << "\n"; });
  nlohmann::json out = {{"checkpoint", result.checkpoint.string()},
                        {"step", result.step},
                        {"eval_loss", result.eval_loss},
                        {"eval_batches", result.eval_batches},
                        {"eval_weighting", result.eval_weighting}};
  std::cout << out.dump(2) << "\n";
  return 0;
}

int scoreCommand(const std::string& checkpoint, const std::string& text) {
  const TextScore score = scoreText(checkpoint, text);
  nlohmann::json tokens = nlohmann::json::array();
  for (const auto& t : score.tokens) {
    nlohmann::json entry = {{"position", t.position}, {"id", t.id}, {"piece", t.piece}};
    entry["logprob"] = t.logprob ? nlohmann::json(*t.logprob) : nlohmann::json(nullptr);
    tokens.push_back(entry);
  }
  nlohmann::json out = {{"checkpoint", score.checkpoint.string()},
                        {"tokens", tokens},
                        {"total_logprob", score.total_logprob},
                        {"mean_nll", score.mean_nll}};
  std::cout << out.dump(2) << "\n";
  return 0;
}

int exportCommand(const std::string& checkpoint, const std::string& out_path) {
  if (fs::is_directory(out_path)) {
    throw MixerLabError("--out " + out_path + " is a folder",
                        "give a file name, such as " + (fs::path(out_path) / "model.safetensors").string());
  }
  // The weights and config are read together (a live run may prune the folder meanwhile).
  auto [model, config] = readResolvedCheckpoint(checkpoint, [](const fs::path& dir) {
    return std::make_pair(loadModelFromCheckpoint(dir), readCheckpointConfig(dir));
  });
  saveSafetensors(out_path, model->exportTensors(),
                  {{"format", "pt"}, {"arch", model->config().arch}, {"model_config", config.at("model").dump()}});
  std::cout << "wrote " << out_path << " (" << model->parameterCount() << " parameters, research tensor names)\n";
  return 0;
}

int importCommand(const ResearchImportRequest& request) {
  const ResearchImportResult r = importResearchCheckpoint(request);
  std::cout << "imported " << r.tensors_loaded << " tensors (" << formatCount(static_cast<double>(r.parameters))
            << " parameters)";
  if (r.tensors_skipped > 0) std::cout << ", skipped " << r.tensors_skipped << " the research never used";
  std::cout << "\nrun folder: " << r.run_dir.string() << "\ncheckpoint: " << r.checkpoint.string() << "\n";
  if (request.corpus.empty()) std::cout << "no --corpus given: score, export and fork work; eval needs a corpus\n";
  return 0;
}

int runsCommand(const std::string& project_path) {
  const ProjectConfig project = loadProject(project_path);
  std::printf("%-20s %-10s %8s %12s %10s\n", "run", "status", "step", "tokens", "best eval");
  for (const fs::path& run_dir : listRunDirectories(project.defaultRunsDirectory())) {
    const RunSummary s = summarizeRun(run_dir);
    std::printf("%-20s %-10s %8lld %12lld %10s\n", run_dir.filename().c_str(), runStateName(s.state).c_str(),
                static_cast<long long>(s.step), static_cast<long long>(s.tokens),
                formatLoss(s.best_eval_loss ? *s.best_eval_loss : NAN).c_str());
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
  info->add_option("--batch-size", o->batch, "Batch size for the activation estimate (default: the run's)")
      ->check(positiveNumber());
  info->add_flag("--json", o->json, "Print JSON");
  info->callback([o, &action]() { action = [o]() { return infoCommand(o->project, o->run, o->batch, o->json); }; });

  auto* eval = app.add_subcommand("eval", "Evaluation loss of a checkpoint on its run's eval split");
  eval->add_option("--checkpoint", o->checkpoint, "Checkpoint folder, or a run folder (uses its latest)")->required();
  eval->add_option("--max-batches", o->max_batches, "Limit the number of eval batches (0 = all)")
      ->check(nonNegativeNumber());
  eval->callback([o, &action]() { action = [o]() { return evalCheckpointCommand(o->checkpoint, o->max_batches); }; });

  auto* score = app.add_subcommand("score", "Per-token log-probabilities of a text under a checkpoint (JSON)");
  score->add_option("--checkpoint", o->checkpoint, "Checkpoint folder, or a run folder")->required();
  score->add_option("--text", o->text, "Text to score")->required();
  score->callback([o, &action]() { action = [o]() { return scoreCommand(o->checkpoint, o->text); }; });

  auto* exp = app.add_subcommand("export", "Write a checkpoint's weights as safetensors with the research names");
  exp->add_option("--checkpoint", o->checkpoint, "Checkpoint folder, or a run folder")->required();
  exp->add_option("--out", o->out, "Output .safetensors file")->required();
  exp->callback([o, &action]() { action = [o]() { return exportCommand(o->checkpoint, o->out); }; });

  auto request = std::make_shared<ResearchImportRequest>();
  auto* imp =
      app.add_subcommand("import", "Turn a research checkpoint (research tensor names) into a MixerLab run folder");
  imp->add_option("--safetensors", request->safetensors, "The research model.safetensors (fp32, fp16 or bf16)")
      ->required()
      ->check(CLI::ExistingFile);
  imp->add_option("--config", request->model_config, "Model config JSON ({\"arch\": ..., \"d_model\": ...})")
      ->required()
      ->check(CLI::ExistingFile);
  imp->add_option("--tokenizer", request->tokenizer, "Its tokenizer (SentencePiece .model or HF tokenizer.json)")
      ->required()
      ->check(CLI::ExistingFile);
  imp->add_option("--out", request->out_dir, "Run folder to create")->required();
  imp->add_option("--corpus", request->corpus, "Optional text file for `mixerlab eval`")->check(CLI::ExistingFile);
  imp->callback([request, &action]() { action = [request]() { return importCommand(*request); }; });

  auto* runs = app.add_subcommand("runs", "List the run directories of a project with status and best eval loss");
  runs->add_option("project", o->project, "Project file")->required()->check(CLI::ExistingFile);
  runs->callback([o, &action]() { action = [o]() { return runsCommand(o->project); }; });
}

}  // namespace mixerlab::cli
