// Registry entries of the mixer and transformer autoencoders: builders, validation, costs.
#include <string>

#include "core/models/composite/autoencoders.h"
#include "core/models/families.h"
#include "core/models/mixers/mixer_options.h"

namespace mixerlab {

namespace {
// Bottleneck layers' parameters and FLOPs/token (applied once per sequence, but counted per
// token as an upper bound of 2*D*(D/c)*2 because the repeat happens after it).
void addBottleneck(const ModelConfig& c, ModelCost& cost, double tokens) {
  const int64_t divisor = autoencoderBottleneck(c);
  if (divisor <= 1) return;
  const int64_t narrow = c.d_model / divisor;
  LayerCost b{"bottleneck", 2 * c.d_model * narrow + narrow + c.d_model, 4.0 * c.d_model * narrow / c.context_length,
              static_cast<double>(tokens) / c.context_length * (narrow + c.d_model) * 4.0};
  cost.layers.push_back(b);
}

// Reads the autoencoder's own keys through `fields` and checks the bottleneck against d_model.
void readAutoencoderOptions(JsonFields& f, const ModelConfig& c, const FieldSet<AutoencoderOptions>& fields) {
  AutoencoderOptions o;
  fields.readInto(f, o);
  if (o.bottleneck > c.d_model) {
    f.fail("bottleneck", "expected an integer between 0 and d_model (" + std::to_string(c.d_model) + "), got " +
                             std::to_string(o.bottleneck));
  }
  if (o.bottleneck > 1 && c.d_model % o.bottleneck != 0) f.fail("bottleneck", "d_model must be divisible by it");
}

// The mixer autoencoder's option specs: its own keys, then every masked mixer option for its blocks.
std::vector<FieldSpec> mixerAutoencoderOptionSpecs() {
  std::vector<FieldSpec> specs = mixerAutoencoderOptionFields().specs();
  for (const auto& spec : mixerOptionFields().specs()) {
    if (spec.key != "embedding_init_std") specs.push_back(spec);  // the autoencoder keeps the research's init
  }
  return specs;
}
}  // namespace

ArchitectureInfo mixerAutoencoderFamily() {
  ArchitectureInfo info;
  info.name = "mixer_autoencoder";
  info.research_arm = ResearchArm::kMixerAutoencoder;
  info.description = "Mixer autoencoder: N causal mixer blocks encode, the last token's state is repeated, N decode";
  info.model_keys = {"ff_mult", "kernel_size"};
  info.options = mixerAutoencoderOptionSpecs();
  info.build = [](const ModelConfig& c) { return std::make_shared<MixerAutoencoder>(c); };
  info.validate = [](const ModelConfig& c, std::vector<std::string>& problems) {
    validateCommonSizes(c, problems);
    MixerOptions options;
    validateOptions(c, problems, [&](JsonFields& f) {
      readAutoencoderOptions(f, c, mixerAutoencoderOptionFields());
      options = readMixerOptions(f);
    });
    if (options.embedding_init_std > 0) {
      problems.push_back("options.embedding_init_std: the autoencoder keeps the research's embedding init; remove it");
    }
    if (problems.empty()) checkMixerOptionCombinations(autoencoderBlockConfig(c), options, problems);
  };
  info.cost = [](const ModelConfig& c, int64_t batch_size) {
    // Encoder and decoder blocks cost what the same mixer's blocks cost.
    ModelConfig mixer = autoencoderBlockConfig(c);
    mixer.arch = "masked_mixer";
    const ModelCost blocks = findArchitecture("masked_mixer").cost(mixer, batch_size);
    ModelCost cost;
    cost.batch_size = batch_size;
    for (const char* stack : {"encoderblocks", "decoderblocks"}) {
      for (const auto& l : blocks.layers) {
        if (l.name.rfind("mixerblocks.", 0) != 0) continue;
        LayerCost copy = l;
        copy.name = stack + l.name.substr(std::string("mixerblocks").size());
        cost.layers.push_back(copy);
      }
    }
    addBottleneck(c, cost, static_cast<double>(batch_size) * c.context_length);
    finishCost(c, cost, c.vocab_size * c.d_model,
               "Autoencoder: encoder + decoder mixer blocks, each as the masked mixer's block.");
    return cost;
  };
  return info;
}

ArchitectureInfo transformerAutoencoderFamily() {
  ArchitectureInfo info;
  info.name = "transformer_autoencoder";
  info.research_arm = ResearchArm::kTransformerAutoencoder;
  info.description =
      "Transformer autoencoder: N causal Llama layers encode, last state repeated, N Llama layers decode";
  info.model_keys = {"n_heads", "ff_mult", "rope_theta", "attention"};
  info.options = transformerAutoencoderOptionFields().specs();
  info.build = [](const ModelConfig& c) { return std::make_shared<TransformerAutoencoder>(c); };
  info.validate = [](const ModelConfig& c, std::vector<std::string>& problems) {
    ModelConfig layers = c;  // the Llama layer checks, without this family's own options
    layers.options = nlohmann::json::object();
    findArchitecture("llama").validate(layers, problems);
    validateOptions(c, problems,
                    [&](JsonFields& f) { readAutoencoderOptions(f, c, transformerAutoencoderOptionFields()); });
  };
  info.cost = [](const ModelConfig& c, int64_t batch_size) {
    ModelConfig llama = c;
    llama.arch = "llama";
    llama.options = nlohmann::json::object();
    const ModelCost layers = findArchitecture("llama").cost(llama, batch_size);
    ModelCost cost;
    cost.batch_size = batch_size;
    for (const char* stack : {"encoder", "decoder"}) {
      for (const auto& l : layers.layers) {
        if (l.name.rfind("model.layers.", 0) != 0) continue;
        LayerCost copy = l;
        copy.name = stack + l.name.substr(std::string("model.layers").size());
        cost.layers.push_back(copy);
      }
    }
    addBottleneck(c, cost, static_cast<double>(batch_size) * c.context_length);
    finishCost(c, cost, c.vocab_size * c.d_model,
               "Autoencoder: encoder + decoder Llama layers (no final norm), each as the llama family's layer.");
    return cost;
  };
  return info;
}

}  // namespace mixerlab
