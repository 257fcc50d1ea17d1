// The inversion settings' field declarations (see inversion_fields.h), in the order `mixerlab
// invert --help` lists them.
#include "core/analysis/inversion_fields.h"

namespace mixerlab {

const FieldSet<InversionSettings>& inversionFields() {
  using S = InversionSettings;
  static const auto fields =
      FieldSet<S>()
          .group("Inversion")
          .integer("iterations", &S::iterations, 1, 1000000, "Iterations",
                   "gradient-descent steps N on the input embedding")
          .unit("steps")
          .number("learning_rate", &S::learning_rate, 0.0001, 100.0, "Learning rate",
                  "initial step size eta, decaying linearly to eta/10 over the steps")
          .enumChoice("init", &S::init, {"standard", "paper"}, "Init",
                      "start embedding: standard = N(0, 1) as in the research code, paper = N(1/2, 1/20) as in the "
                      "paper's text")
          .choiceLabels({"standard N(0, 1)", "paper N(1/2, 1/20)"})
          .enumChoice("objective", &S::objective, {"all", "last"}, "Objective",
                      "match every position's output (all) or only the last position's (last: the paper's \"non-self "
                      "tokens\")")
          .choiceLabels({"all positions", "last position"})
          .enumChoice("reference", &S::reference, {"input", "research"}, "Reference",
                      "the token each position must recover: input = the input's own; research = the research code's "
                      "pseudo-inverse decoding of the noisy embedding (mostly noise for N(0, 0.02) transformer "
                      "embeddings)")
          .choiceLabels({"input tokens", "research (noisy pseudo-inverse)"})
          .enumChoice("scale", &S::scale, {"research", "embedding"}, "Descent scale",
                      "research = start and step as given; embedding = both multiplied by the standard deviation "
                      "of the model's token embedding matrix, so a 0.02-scale embedding is searched at its own scale")
          .choiceLabels({"research (as given)", "embedding's own scale"})
          .number("reference_noise", &S::reference_noise, 0.0, 10.0, "Reference noise",
                  "standard deviation of the noise added to the embedding for e' (the epsilon check, and the "
                  "research reference's tokens)")
          .flag("--noise")
          .integer("top_k", &S::top_k, 1, 1000, "Top-k",
                   "a position counts as recovered when its reference token is among the top k decoded")
          .integer("seed", &S::seed, 0, kFieldMaxInteger, "Seed", "seed of the start embedding and the reference noise")
          .text("device", &S::device, "Device", "where to run: auto (a GPU when present), cpu, cuda or cuda:N")
          .boolean("pad_to_context", &S::pad_to_context, "Pad to the context",
                   "pad every input to the full context (the research's way) rather than to the longest input")
          .flag("--no-pad");
  return fields;
}

}  // namespace mixerlab
