// The sampling and generation settings' field declarations (see sampling_fields.h), in the order
// `mixerlab generate --help` lists them.
#include "core/analysis/sampling_fields.h"

namespace mixerlab {

const FieldSet<SamplingSettings>& samplingFields() {
  using S = SamplingSettings;
  static const auto fields =
      FieldSet<S>()
          .group("Sampling")
          .boolean("greedy", &S::greedy, "Greedy",
                   "always take the most likely token (ignores temperature, top-k, top-p and the seed)")
          .number("temperature", &S::temperature, 0.01, 10.0, "Temperature", "divide the logits by T before sampling")
          .integer("top_k", &S::top_k, 0, 1000000, "Top-k", "sample among the k most likely tokens (0 = all)")
          .number("top_p", &S::top_p, 0.001, 1.0, "Top-p",
                  "sample among the most likely tokens that hold this probability mass (1 = all)")
          .number("repetition_penalty", &S::repetition_penalty, 1.0, 10.0, "Repetition penalty",
                  "divide the positive logits (multiply the negative ones) of tokens already present, as HF does "
                  "(1 = none)")
          .integer("seed", &S::seed, 0, kFieldMaxInteger, "Seed",
                   "sampling seed: the same seed repeats the same story (the GUI's columns all use it)");
  return fields;
}

const FieldSet<GenerationSettings>& generationFields() {
  using S = GenerationSettings;
  static const auto fields =
      FieldSet<S>()
          .group("Generation")
          .integer("max_new_tokens", &S::max_new_tokens, 1, 100000, "Max new tokens", "generate at most this many")
          .unit("tokens")
          .text("stop_string", &S::stop_string, "Stop string",
                "stop once the generated text contains this (the text is cut before it)")
          .flag("--stop")
          .boolean("stop_at_eos", &S::stop_at_eos, "Stop at end-of-text",
                   "stop when the model picks the end-of-text token")
          .flag("--no-eos-stop")
          .enumChoice(
              "decoder", &S::decoder, {"fast", "reference"}, "Decoder",
              "how the logits are computed: fast = the family's incremental decoder (cached mixer rows, KV cache, "
              "recurrent state); reference = a full forward per token (the research's fixed-window method for "
              "mixers)")
          .enumChoice("placement", &S::placement, {"auto", "window_end", "window_start"}, "Placement",
                      "where a masked mixer's or Transfixer's prompt sits in the context window: window_end (the "
                      "research: left-padded), window_start, or auto (window_end when the run trained on left-padded "
                      "documents)");
  return fields;
}

std::vector<FieldSpec> generationFieldSpecs() {
  std::vector<FieldSpec> specs = samplingFields().specs();
  for (const auto& spec : generationFields().specs()) specs.push_back(spec);
  return specs;
}

GenerationSettings readGenerationSettings(const nlohmann::json& values, const std::string& source) {
  GenerationSettings settings;
  JsonFields f(values.is_null() ? nlohmann::json::object() : values, source, "");
  samplingFields().readInto(f, settings.sampling);
  generationFields().readInto(f, settings);
  f.rejectUnknownKeys();
  return settings;
}

nlohmann::json writeGenerationSettings(const GenerationSettings& settings) {
  nlohmann::json j = samplingFields().write(settings.sampling);
  j.update(generationFields().write(settings));
  return j;
}

}  // namespace mixerlab
