// libFuzzer target: the whole `mixerlab import` path (importResearchCheckpoint) on a fuzzed triple:
// a model config JSON, a safetensors file and, optionally, a tokenizer.json, given as one input
// split at lines "----" (config, then weights, then tokenizer; without a third part, or with one
// that does not start like a JSON object, the Llama-style fixture tokenizer in MIXERLAB_FUZZ_TOKENIZER
// is used: anything else would be loaded as a SentencePiece model, which cannot run under
// AddressSanitizer, see docs/fuzzing.md). The files are written to a private folder
// in /dev/shm (or the temp folder) and imported into a fresh run folder each time. Bad input must
// give MixerLabError. Configs asking for large models are skipped: the harness bounds the product
// of the config's numbers, so a mutated "d_model": 9999999 does not make the fuzzer allocate
// gigabytes (the import's own memory check is tested by the unit tests, not here).
#include <unistd.h>

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include <nlohmann/json.hpp>

#include "core/analysis/research_import.h"
#include "core/data/hf_tokenizer_json.h"
#include "core/util/error.h"
#include "core/util/json_document.h"

namespace fs = std::filesystem;

namespace {

const std::string kSeparator = "\n----\n";

fs::path scratchFolder() {
  static const fs::path folder = [] {
    const fs::path base = fs::exists("/dev/shm") ? fs::path("/dev/shm") : fs::temp_directory_path();
    fs::path f = base / ("mixerlab-import-fuzz-" + std::to_string(::getpid()));
    fs::create_directories(f);
    return f;
  }();
  return folder;
}

void writeBytes(const fs::path& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// The product of every number in the object and in its "model" and "options" members: an upper
// bound on the model's size, up to small factors. Non-objects and unparsable text pass (the import
// refuses them itself).
bool asksForASmallModel(const std::string& config_text) {
  nlohmann::json j;
  try {
    j = mixerlab::parseJsonDocument(config_text, "fuzz config");
  } catch (const std::exception&) {
    return true;
  }
  double product = 1;
  const auto multiply_numbers = [&](const nlohmann::json& object) {
    if (!object.is_object()) return;
    for (const auto& [key, value] : object.items()) {
      if (value.is_number()) product *= std::max(1.0, std::fabs(value.get<double>()));
    }
  };
  multiply_numbers(j);
  if (j.is_object() && j.contains("model")) {
    multiply_numbers(j["model"]);
    if (j["model"].is_object() && j["model"].contains("options")) multiply_numbers(j["model"]["options"]);
  }
  if (j.is_object() && j.contains("options")) multiply_numbers(j["options"]);
  return std::isfinite(product) && product <= 1 << 20;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string input(reinterpret_cast<const char*>(data), size);
  const auto first = input.find(kSeparator);
  if (first == std::string::npos) return 0;
  const auto second = input.find(kSeparator, first + kSeparator.size());
  const std::string config = input.substr(0, first);
  const std::string weights = input.substr(
      first + kSeparator.size(), second == std::string::npos ? std::string::npos : second - first - kSeparator.size());
  if (!asksForASmallModel(config)) return 0;
  const fs::path dir = scratchFolder();
  mixerlab::ResearchImportRequest request;
  request.model_config = dir / "config.json";
  request.safetensors = dir / "model.safetensors";
  request.out_dir = dir / "imported";
  writeBytes(request.model_config, config);
  writeBytes(request.safetensors, weights);
  const std::string tokenizer_json = second == std::string::npos ? "" : input.substr(second + kSeparator.size());
  if (mixerlab::hf::looksLikeJsonObject(tokenizer_json)) {
    request.tokenizer = dir / "tokenizer.json";
    writeBytes(request.tokenizer, tokenizer_json);
  } else {
    const char* fixture = std::getenv("MIXERLAB_FUZZ_TOKENIZER");
    if (fixture == nullptr) std::abort();  // fuzz/run.sh sets it
    request.tokenizer = fixture;
  }
  std::error_code ignored;
  fs::remove_all(request.out_dir, ignored);
  try {
    mixerlab::importResearchCheckpoint(request);
  } catch (const mixerlab::MixerLabError&) {
  }
  fs::remove_all(request.out_dir, ignored);
  return 0;
}
