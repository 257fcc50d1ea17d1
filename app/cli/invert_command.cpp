// `mixerlab invert`: representation inversion (docs/inversion.md) of one or more texts at one or more layers
// of a checkpoint, its untrained twin, or an untrained run of a project. Prints the Hamming
// distances, the epsilon check and a token diff, or everything as JSON with --json. The algorithm
// lives in core/analysis/inversion.h; this file parses and prints.
#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "app/cli/cli_commands.h"
#include "app/cli/settings_options.h"
#include "core/analysis/analysis_model.h"
#include "core/analysis/eval_documents.h"
#include "core/analysis/inversion.h"
#include "core/analysis/inversion_fields.h"
#include "core/analysis/inversion_json.h"
#include "core/analysis/inversion_over_training.h"
#include "core/runs/run_directory.h"
#include "core/train/checkpoint.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace mixerlab::cli {
namespace {
namespace fs = std::filesystem;

struct InvertOptions {
  std::string checkpoint, untrained, run;
  std::vector<std::string> texts, text_files, layers = {"last"};
  int64_t eval_texts = 0;
  bool json = false, quiet = false, over_training = false;
  nlohmann::json given_settings = nlohmann::json::object();  // the settings options given, by field key
  InversionSettings settings;
};

ModelSource sourceOf(const InvertOptions& o) {
  if (!o.checkpoint.empty() == !o.untrained.empty()) {
    throw MixerLabError(
        "give exactly one of --checkpoint DIR or --untrained PROJECT|DIR",
        "--untrained takes a project file with --run NAME, or a checkpoint folder for its untrained twin");
  }
  if (!o.checkpoint.empty()) return ModelSource::checkpoint(o.checkpoint);
  if (!o.run.empty()) return ModelSource::projectRun(o.untrained, o.run);
  if (fs::is_regular_file(o.untrained)) {
    throw MixerLabError("--untrained " + o.untrained + " is a project file but no --run was given", "add --run NAME");
  }
  return ModelSource::untrainedLike(o.untrained);
}

std::vector<std::string> inputsOf(const InvertOptions& o, const ModelSource& source) {
  std::vector<std::string> texts = o.texts;
  for (const auto& file : o.text_files) texts.push_back(readFile(file));
  if (o.eval_texts > 0) {
    const auto count = static_cast<size_t>(o.eval_texts);
    for (auto& doc : source.run_name.empty() ? checkpointEvalDocuments(source.path, count)
                                             : evalSplitDocuments(loadProject(source.path), count)) {
      texts.push_back(std::move(doc));
    }
  }
  if (texts.empty()) throw MixerLabError("no input", "pass --text TEXT, --text-file FILE or --eval-texts N");
  return texts;
}

std::vector<int64_t> layersOf(const std::vector<std::string>& names, int64_t depth_hint) {
  std::vector<int64_t> layers;
  for (const auto& name : names) {
    if (name == "last") {
      layers.push_back(-1);
    } else if (name == "all") {
      for (int64_t k = 0; k <= depth_hint; ++k) layers.push_back(k);
    } else {
      try {
        size_t used = 0;
        layers.push_back(std::stoll(name, &used));
        if (used != name.size()) throw std::invalid_argument(name);
      } catch (const std::exception&) {
        throw MixerLabError("--layer " + name + " is not a layer", "use a number (0 = embedding), last or all");
      }
    }
  }
  return layers;
}

// Non-pad tokens of the original, with [original|recovered] where the top-k misses.
std::string tokenDiff(const InversionResult& r) {
  std::string out;
  for (const auto& t : r.tokens) {
    if (!t.counted) continue;
    out += t.top_k_match ? t.original_text : "[" + t.original_text + "|" + t.candidate_texts[0] + "]";
  }
  return out;
}

// Layer x step grid of the mean Hamming distance over a run's checkpoints.
int overTrainingCommand(const InvertOptions& o, const std::vector<std::string>& texts) {
  if (o.checkpoint.empty()) throw MixerLabError("--over-training needs --checkpoint RUN_FOLDER");
  const fs::path run_dir = RunPaths::ofCheckpoint(resolveCheckpointDir(o.checkpoint)).root;
  const auto grid =
      invertOverTraining(run_dir, texts, o.settings, true, [&](size_t c, size_t n, const InversionProgress& p) {
        if (!o.json && !o.quiet && p.iteration == p.iterations) {
          std::fprintf(stderr, "\rcheckpoint %zu/%zu, layer %lld done   ", c + 1, n, static_cast<long long>(p.layer));
        }
      });
  if (!o.json && !o.quiet) std::fputs("\n", stderr);
  if (o.json) {
    std::cout << overTrainingJson(grid, texts.size()).dump(2) << "\n";
    return 0;
  }
  std::printf("mean Hamming (top-%lld) over %zu input(s); rows: layer, columns: training step (untrained first)\n",
              static_cast<long long>(o.settings.top_k), texts.size());
  std::printf("%6s", "layer");
  for (size_t c = 0; c < grid.steps.size(); ++c) {
    std::printf(" %9s", grid.checkpoints[c].empty() ? "untrained" : std::to_string(grid.steps[c]).c_str());
  }
  std::printf("\n");
  for (size_t l = 0; l < grid.layers.size(); ++l) {
    std::printf("%6lld", static_cast<long long>(grid.layers[l]));
    for (double h : grid.hamming_top_k[l]) std::printf(" %9.3f", h);
    std::printf("\n");
  }
  return 0;
}

int invertCommand(InvertOptions o) {
  const ModelSource source = sourceOf(o);
  o.settings = inversionFields().read(o.given_settings, "the command line", "");
  const bool wants_all = std::find(o.layers.begin(), o.layers.end(), "all") != o.layers.end();
  const int64_t depth = wants_all ? loadAnalysisModel(source).model->representationLayers() : 0;
  o.settings.layers = layersOf(o.layers, depth);
  const std::vector<std::string> texts = inputsOf(o, source);
  if (o.over_training) return overTrainingCommand(o, texts);
  const bool show_progress = !o.json && !o.quiet;
  const auto results = invertTexts(source, texts, o.settings, [&](const InversionProgress& p) {
    if (show_progress && (p.iteration % 50 == 0 || p.iteration == p.iterations)) {
      std::fprintf(stderr, "\rlayer %lld (%lld/%lld): step %lld/%lld, L1 %.4g   ", static_cast<long long>(p.layer),
                   static_cast<long long>(p.layer_index + 1), static_cast<long long>(p.layer_count),
                   static_cast<long long>(p.iteration), static_cast<long long>(p.iterations), p.loss);
      if (p.iteration == p.iterations) std::fputs("\n", stderr);
    }
  });
  if (o.json) {
    nlohmann::json list = nlohmann::json::array();
    for (const auto& r : results) list.push_back(inversionResultJson(r, o.settings.top_k));
    nlohmann::json out = results.size() == 1 ? list[0] : nlohmann::json::object();
    out["results"] = list;
    out["settings"] = inversionSettingsJson(o.settings);
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  const InversionResult& first = results.front();
  std::printf(
      "%s: %zu input(s), %lld steps, eta %.3g -> %.3g, init %s x %.3g, objective %s, scale %s "
      "(embedding std %.3g)\n",
      first.model_label.c_str(), texts.size(), static_cast<long long>(o.settings.iterations), first.learning_rate,
      first.learning_rate / 10, inversionInitName(o.settings.init).c_str(), first.start_std,
      inversionObjectiveName(o.settings.objective).c_str(), inversionScaleName(o.settings.scale).c_str(),
      first.embedding_std);
  std::printf("%5s %5s %9s %9s %8s %12s %12s %12s %9s\n", "layer", "input", "ham_top", "ham_exact", "counted",
              "epsilon_l1", "start_l1", "final_l1", "ms");
  for (size_t i = 0; i < results.size(); ++i) {
    const auto& r = results[i];
    std::printf("%5lld %5zu %9.4f %9.4f %8lld %12.4g %12.4g %12.4g %9.0f%s\n", static_cast<long long>(r.layer),
                i % texts.size(), r.hamming_top_k, r.hamming_exact, static_cast<long long>(r.counted_positions),
                r.epsilon_l1, r.loss_curve.empty() ? 0.0 : r.loss_curve.front(), r.final_loss, r.elapsed_ms,
                r.cancelled ? " (cancelled)" : "");
  }
  if (texts.size() == 1) {
    for (const auto& r : results)
      std::printf("layer %lld: %s\n", static_cast<long long>(r.layer), tokenDiff(r).c_str());
  }
  return 0;
}

}  // namespace

void addInvertCommand(CLI::App& app, Action& action) {
  auto o = std::make_shared<InvertOptions>();
  auto* cmd =
      app.add_subcommand("invert", "Recover the input tokens from a layer's hidden state (representation inversion)");
  cmd->add_option("--checkpoint", o->checkpoint, "Checkpoint folder or run folder (its latest checkpoint)");
  cmd->add_option(
      "--untrained", o->untrained,
      "An untrained model: a project file with --run NAME, or a checkpoint folder (same config, fresh init)");
  cmd->add_option("--run", o->run, "The run of the --untrained project");
  cmd->add_option("--text", o->texts, "An input text (repeat for several; they are inverted as one batch)");
  cmd->add_option("--text-file", o->text_files, "Read an input text from this file (repeatable)");
  cmd->add_option("--eval-texts", o->eval_texts, "Also invert the first N documents of the eval split");
  cmd->add_option("--layer", o->layers, "Layer(s): 0 = embedding, k = block k, last, or all (repeatable)");
  // --iterations, --learning-rate, --init, --objective, --reference, --scale, --noise, --top-k, --seed, --device,
  // --no-pad
  addSettingsOptions(*cmd, inversionFields().specs(), o->given_settings);
  cmd->add_flag("--over-training", o->over_training,
                "Invert at every checkpoint of the --checkpoint run (and its untrained twin): a layer x step table");
  cmd->add_flag("--quiet", o->quiet, "No progress lines");
  cmd->add_flag("--json", o->json, "Print the results as JSON (Hamming, epsilon, loss curve, tokens)");
  cmd->callback([o, &action]() { action = [o]() { return invertCommand(*o); }; });
}

}  // namespace mixerlab::cli
