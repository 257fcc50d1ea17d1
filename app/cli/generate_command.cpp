// `mixerlab generate`: story generation from a checkpoint, streaming the text to the terminal as it
// is produced (or one JSON object with per-token probabilities and top-5 alternatives with --json).
// The decoding and sampling live in core/analysis/generation.h; this file parses and prints.
#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "app/cli/cli_commands.h"
#include "core/analysis/generation.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"

namespace mixerlab::cli {
namespace {

struct GenerateOptions {
  std::string checkpoint, prompt, prompt_file, decoder = "fast", placement = "auto";
  bool prompt_given = false, no_eos_stop = false, json = false;
  GenerationSettings settings;
};

nlohmann::json tokenJson(const GeneratedToken& t) {
  nlohmann::json top = nlohmann::json::array();
  for (const auto& a : t.top) top.push_back({{"id", a.id}, {"text", a.text}, {"prob", a.prob}});
  return {{"id", t.id}, {"text", t.text}, {"prob", t.prob}, {"top", top}};
}

nlohmann::json samplingJson(const GenerationSettings& s) {
  return {{"greedy", s.sampling.greedy},           {"temperature", s.sampling.temperature},
          {"top_k", s.sampling.top_k},             {"top_p", s.sampling.top_p},
          {"repetition_penalty", s.sampling.repetition_penalty}, {"seed", s.sampling.seed},
          {"max_new_tokens", s.max_new_tokens},    {"stop_string", s.stop_string},
          {"stop_at_eos", s.stop_at_eos}};
}

int generateCommand(GenerateOptions o) {
  if (!o.prompt_file.empty()) {
    if (o.prompt_given) throw MixerLabError("give either --prompt or --prompt-file, not both");
    o.prompt = readFile(o.prompt_file);
  } else if (!o.prompt_given) {
    throw MixerLabError("no prompt", "pass --prompt TEXT or --prompt-file FILE (an empty --prompt \"\" starts a new story)");
  }
  o.settings.stop_at_eos = !o.no_eos_stop;
  o.settings.decoder = o.decoder == "reference" ? DecoderChoice::kReference : DecoderChoice::kFast;
  o.settings.placement = o.placement == "window_end"     ? PromptPlacement::kWindowEnd
                         : o.placement == "window_start" ? PromptPlacement::kWindowStart
                                                         : PromptPlacement::kAuto;
  validateGeneration(o.settings);
  Generator generator(o.checkpoint);
  if (o.json) {
    const GenerationResult r = generator.generate(o.prompt, o.settings);
    nlohmann::json tokens = nlohmann::json::array();
    for (const auto& t : r.tokens) tokens.push_back(tokenJson(t));
    nlohmann::json out = {{"checkpoint", generator.checkpoint().string()},
                          {"architecture", generator.architecture()},
                          {"decoder", r.decoder},
                          {"prompt", o.prompt},
                          {"prompt_ids", r.prompt_ids},
                          {"prompt_dropped_tokens", r.prompt_dropped_tokens},
                          {"pad_tokens", r.pad_tokens},
                          {"ids", r.ids()},
                          {"text", r.text},
                          {"tokens", tokens},
                          {"finish_reason", finishReasonName(r.finish)},
                          {"settings", samplingJson(o.settings)},
                          {"prefill_ms", r.prefill_ms},
                          {"decode_ms", r.decode_ms},
                          {"tokens_per_s", r.tokens_per_s}};
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
  std::fprintf(stderr, "[%zu tokens, %.1f tokens/s, %s decoder, finished: %s%s]\n", r.tokens.size(), r.tokens_per_s,
               r.decoder.c_str(), finishReasonName(r.finish).c_str(),
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
  cmd->add_flag("--greedy", o->settings.sampling.greedy, "Always take the most likely token");
  cmd->add_option("--temperature", o->settings.sampling.temperature, "Divide the logits by T (> 0)");
  cmd->add_option("--top-k", o->settings.sampling.top_k, "Sample among the K most likely tokens (0 = all)");
  cmd->add_option("--top-p", o->settings.sampling.top_p, "Sample among the most likely tokens holding mass P (1 = all)");
  cmd->add_option("--repetition-penalty", o->settings.sampling.repetition_penalty,
                  "Penalise tokens already present (>= 1, HF rule)");
  cmd->add_option("--seed", o->settings.sampling.seed, "Sampling seed (the same seed repeats the same story)");
  cmd->add_option("--max-new-tokens", o->settings.max_new_tokens, "Generate at most N tokens");
  cmd->add_option("--stop", o->settings.stop_string, "Stop once the generated text contains this string");
  cmd->add_flag("--no-eos-stop", o->no_eos_stop, "Keep going after the end-of-text token");
  cmd->add_option("--decoder", o->decoder,
                  "fast (cached rows / KV cache / recurrent state) or reference (a full forward per token)")
      ->check(CLI::IsMember({"fast", "reference"}));
  cmd->add_option("--placement", o->placement,
                  "Mixer prompt placement: auto, window_end (research: left-padded) or window_start")
      ->check(CLI::IsMember({"auto", "window_end", "window_start"}));
  cmd->add_flag("--json", o->json, "Print one JSON object (ids, text, per-token prob and top-5) instead of streaming");
  cmd->callback([o, &action]() { action = [o]() { return generateCommand(*o); }; });
}

}  // namespace mixerlab::cli
