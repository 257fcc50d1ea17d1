// `mixerlab generate`: story generation from a checkpoint, streaming the text to the terminal as it
// is produced (or one JSON object with per-token probabilities and top-5 alternatives with --json).
// --samples N draws N stories from the prompt as one decoder batch (seeds seed..seed+N-1) and prints
// each when all are done.
// The decoding and sampling live in core/analysis/generation.h, the JSON fields in
// core/analysis/generation_json.h; this file parses and prints.
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <iostream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "app/cli/cli_commands.h"
#include "app/cli/number_checks.h"
#include "app/cli/settings_options.h"
#include "core/analysis/generation.h"
#include "core/analysis/generation_json.h"
#include "core/analysis/sampling_fields.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace mixerlab::cli {
namespace {

struct GenerateOptions {
  std::string checkpoint, prompt, prompt_file, device = "cpu";
  bool prompt_given = false, json = false;
  int samples = 1;
  nlohmann::json given_settings = nlohmann::json::object();  // the settings options given, by field key
  GenerationSettings settings;
};

// Several stories of one prompt, one decoder batch: each printed whole once all are done.
int printSamples(Generator& generator, const GenerateOptions& o) {
  const std::vector<GenerationResult> results = generator.generateSamples(o.prompt, o.settings, o.samples);
  if (o.json) {
    nlohmann::json samples = nlohmann::json::array();
    for (size_t i = 0; i < results.size(); ++i) {
      nlohmann::json sample = generationResultJson(results[i]);
      sample["seed"] = o.settings.sampling.seed + i;
      samples.push_back(sample);
    }
    const nlohmann::json out = {{"checkpoint", generator.checkpoint().string()},
                                {"architecture", generator.architecture()},
                                {"device", generator.device()},
                                {"prompt", o.prompt},
                                {"settings", generationSettingsJson(o.settings)},
                                {"samples", samples}};
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  size_t tokens = 0;
  for (size_t i = 0; i < results.size(); ++i) {
    const GenerationResult& r = results[i];
    tokens += r.tokens.size();
    std::printf("--- sample %zu (seed %llu, %zu tokens, finished: %s) ---\n%s%s\n", i + 1,
                static_cast<unsigned long long>(o.settings.sampling.seed + i), r.tokens.size(),
                finishReasonName(r.finish).c_str(), o.prompt.c_str(), r.text.c_str());
  }
  const GenerationResult& first = results.front();
  const double seconds = (first.prefill_ms + first.decode_ms) / 1000.0;
  std::fprintf(stderr, "[%zu samples decoded as one batch: %zu tokens, %.1f tokens/s, %s decoder on %s]\n",
               results.size(), tokens, seconds > 0 ? static_cast<double>(tokens) / seconds : 0.0, first.decoder.c_str(),
               generator.device().c_str());
  return 0;
}

// A prompt far longer than any model's context is a mistake (a device, a corpus): the file must be
// a regular file of at most kMaxPromptFileBytes, read no further.
constexpr std::uintmax_t kMaxPromptFileBytes = 1 << 20;
std::string readPromptFile(const std::string& path) {
  std::error_code error;
  const auto status = std::filesystem::status(path, error);
  if (error || !std::filesystem::exists(status))
    throw MixerLabError("--prompt-file " + path + " does not exist", "give the path of a text file");
  if (!std::filesystem::is_regular_file(status))
    throw MixerLabError("--prompt-file " + path + " is not a regular file (a folder or a device)",
                        "give the path of a text file");
  const std::uintmax_t bytes = std::filesystem::file_size(path, error);
  if (error || bytes > kMaxPromptFileBytes)
    throw MixerLabError("--prompt-file " + path + " holds more than " + std::to_string(kMaxPromptFileBytes >> 20) +
                            " MiB, far more than a model's context",
                        "give a shorter prompt (the model sees at most its context_length tokens)");
  return readFile(path);
}

int generateCommand(GenerateOptions o) {
  if (!o.prompt_file.empty()) {
    if (o.prompt_given) throw MixerLabError("give either --prompt or --prompt-file, not both");
    o.prompt = readPromptFile(o.prompt_file);
  } else if (!o.prompt_given) {
    throw MixerLabError("no prompt",
                        "pass --prompt TEXT or --prompt-file FILE (an empty --prompt \"\" starts a new story)");
  }
  o.settings = readGenerationSettings(o.given_settings, "the command line");
  validateGeneration(o.settings);
  Generator generator(o.checkpoint, o.device);
  if (o.samples > 1) return printSamples(generator, o);
  if (o.json) {
    nlohmann::json out = generationResultJson(generator.generate(o.prompt, o.settings));
    out["checkpoint"] = generator.checkpoint().string();
    out["architecture"] = generator.architecture();
    out["device"] = generator.device();
    out["prompt"] = o.prompt;
    out["settings"] = generationSettingsJson(o.settings);
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::fputs(o.prompt.c_str(), stdout);
  std::fflush(stdout);
  const GenerationResult r = generator.generate(o.prompt, o.settings, [](const GeneratedToken& t) {
    std::fputs(t.text.c_str(), stdout);
    std::fflush(stdout);
  });
  std::fputs("\n", stdout);
  std::fprintf(stderr, "[%zu tokens, %.1f tokens/s, %s decoder on %s, finished: %s%s]\n", r.tokens.size(),
               r.tokens_per_s, r.decoder.c_str(), generator.device().c_str(), finishReasonName(r.finish).c_str(),
               r.prompt_dropped_tokens > 0
                   ? (", the prompt's first " + std::to_string(r.prompt_dropped_tokens) + " tokens did not fit").c_str()
                   : "");
  return 0;
}

}  // namespace

void addGenerateCommand(CLI::App& app, Action& action) {
  auto o = std::make_shared<GenerateOptions>();
  auto* cmd = app.add_subcommand("generate", "Generate text from a checkpoint, streaming it as it is produced");
  cmd->add_option("--checkpoint", o->checkpoint, "Checkpoint folder or run folder (its latest checkpoint)")->required();
  cmd->add_option("--prompt", o->prompt, "Prompt text")->each([o](const std::string&) { o->prompt_given = true; });
  cmd->add_option("--prompt-file", o->prompt_file, "Read the prompt from this file");
  // --greedy, --temperature, --top-k, --top-p, --repetition-penalty, --seed, --max-new-tokens, --stop,
  // --no-eos-stop, --decoder, --placement
  addSettingsOptions(*cmd, generationFieldSpecs(), o->given_settings);
  cmd->add_option("--device", o->device,
                  "Where the model runs: cpu (default), cuda, cuda:N or auto (a GPU when present)")
      ->capture_default_str();
  cmd->add_option(
         "--samples", o->samples,
         "Stories to draw from the prompt, decoded as one batch (sample i uses seed + i; printed when all are done)")
      ->check(positiveNumber())
      ->capture_default_str();
  cmd->add_flag("--json", o->json, "Print one JSON object (ids, text, per-token prob and top-5) instead of streaming");
  cmd->callback([o, &action]() { action = [o]() { return generateCommand(*o); }; });
}

}  // namespace mixerlab::cli
