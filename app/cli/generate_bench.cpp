// `mixerlab bench generate`: greedy decoding speed of each family's reference decoder (a full
// forward per token: the research's fixed-window method for the mixer, full recompute for the
// transformer and Mamba) against its incremental decoder (cached mixer rows, KV cache, recurrent
// state), at several prompt lengths in a T-token window and batch sizes (sequences decoded in
// lockstep, as a GPU serves several samples at once), on randomly initialised models. It also checks
// that both decoders chose the same tokens. Speed targets are checked here, not in tests.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <sstream>
#include <thread>

#include <torch/torch.h>
#include <CLI/CLI.hpp>

#include "app/cli/cli_commands.h"
#include "app/cli/number_checks.h"
#include "core/analysis/decoders/token_decoder.h"
#include "core/models/model_registry.h"
#include "core/runs/run_directory.h"
#include "core/train/device.h"
#include "core/util/error.h"

namespace mixerlab::cli {
namespace {

struct GenerateBenchOptions {
  int64_t d_model = 256, layers = 4, context = 512, vocab = 4096, heads = 4, new_tokens = 32, threads = 0, repeats = 3;
  std::vector<int64_t> prompts = {64, 256, 480};
  std::vector<int64_t> batches = {1};
  std::vector<std::string> archs = generatingArchitectures();
  std::string device = "cpu";
};

struct DecodeTiming {
  std::vector<int64_t> ids;  // every step's greedy token of every sequence, step after step
  double prefill_ms = 0, decode_ms = 0;
};

DecodeTiming timeGreedyOnce(TokenDecoder& decoder, const std::vector<std::vector<int64_t>>& prompts,
                            int64_t new_tokens) {
  using Clock = std::chrono::steady_clock;
  DecodeTiming t;
  const auto start = Clock::now();
  at::Tensor logits = decoder.prefillBatch(prompts);
  const auto prefilled = Clock::now();
  for (int64_t i = 0; i < new_tokens; ++i) {
    const at::Tensor chosen = logits.argmax(1);  // [B] int64 on the CPU
    const std::vector<int64_t> next(chosen.data_ptr<int64_t>(), chosen.data_ptr<int64_t>() + chosen.numel());
    t.ids.insert(t.ids.end(), next.begin(), next.end());
    if (i + 1 < new_tokens) logits = decoder.appendBatch(next);
  }
  t.prefill_ms = std::chrono::duration<double, std::milli>(prefilled - start).count();
  t.decode_ms = std::chrono::duration<double, std::milli>(Clock::now() - prefilled).count();
  return t;
}

// The same greedy decode `repeats` times: the ids of the first, and the median prefill and decode
// times (each taken apart), so one slow pass on a busy machine does not set the figure. It starts
// after a short pause: threads left spinning by the previous decoder's large products (OpenMP's for
// tens of milliseconds, OpenBLAS's for about 0.1 s) would otherwise share this decoder's cores.
DecodeTiming timeGreedy(TokenDecoder& decoder, const std::vector<std::vector<int64_t>>& prompts, int64_t new_tokens,
                        int64_t repeats) {
  std::this_thread::sleep_for(std::chrono::milliseconds(250));
  std::vector<DecodeTiming> runs;
  for (int64_t r = 0; r < repeats; ++r) runs.push_back(timeGreedyOnce(decoder, prompts, new_tokens));
  auto median = [&](double DecodeTiming::*field) {
    std::vector<double> values;
    for (const auto& run : runs) values.push_back(run.*field);
    std::nth_element(values.begin(), values.begin() + static_cast<std::ptrdiff_t>(values.size() / 2), values.end());
    return values[values.size() / 2];
  };
  DecodeTiming t = runs.front();
  t.prefill_ms = median(&DecodeTiming::prefill_ms);
  t.decode_ms = median(&DecodeTiming::decode_ms);
  return t;
}

int benchGenerate(const GenerateBenchOptions& o) {
  configureCpuThreads(o.threads);
  const c10::Device device = selectDevice(o.device);
  torch::NoGradGuard no_grad;
  std::printf("bench generate: greedy decoding, D=%lld N=%lld T=%lld V=%lld, up to %lld new tokens, on %s\n",
              static_cast<long long>(o.d_model), static_cast<long long>(o.layers), static_cast<long long>(o.context),
              static_cast<long long>(o.vocab), static_cast<long long>(o.new_tokens), describeDevice(device).c_str());
  std::printf("compute paths: %s\n", kernels::describeComputePaths(kernels::activeComputePaths()).c_str());
  std::printf(
      "tokens/s = new tokens of every sequence / (prefill + decode); decode tokens/s leaves the prefill out; a batch "
      "decodes its sequences in lockstep; medians of %lld passes\n",
      static_cast<long long>(o.repeats));
  std::printf("%-13s %6s %5s %4s | %-13s %9s %9s | %-13s %9s %9s | %7s %s\n", "arch", "prompt", "batch", "new",
              "reference", "tokens/s", "decode/s", "fast", "tokens/s", "decode/s", "speedup", "same greedy tokens");
  bool all_same = true;
  for (const auto& arch : o.archs) {
    ModelConfig c;
    c.arch = arch;
    c.d_model = o.d_model;
    c.n_layers = o.layers;
    c.context_length = o.context;
    c.vocab_size = o.vocab;
    c.n_heads = o.heads;
    torch::manual_seed(0);
    auto model = buildModel(c);
    model->to(device);
    model->eval();
    std::string described;  // the fast decoder's step description, printed once while it stays the same
    for (int64_t prompt_length : o.prompts) {
      if (prompt_length < 1 || prompt_length >= o.context) {
        throw MixerLabError(
            "prompt length " + std::to_string(prompt_length) + " does not fit the context " + std::to_string(o.context),
            "use --prompts with lengths below --context");
      }
      const int64_t new_tokens = std::min(o.new_tokens, o.context - prompt_length);
      for (int64_t batch : o.batches) {
        std::vector<std::vector<int64_t>> prompts;
        for (int64_t i = 0; i < batch; ++i) {
          auto prompt_tensor = torch::randint(0, o.vocab, {prompt_length}, torch::kLong);
          prompts.emplace_back(prompt_tensor.data_ptr<int64_t>(), prompt_tensor.data_ptr<int64_t>() + prompt_length);
        }
        auto reference = makeTokenDecoder(*model, DecoderChoice::kReference, 0);
        auto fast = makeTokenDecoder(*model, DecoderChoice::kFast, 0);
        const DecodeTiming r = timeGreedy(*reference, prompts, new_tokens, o.repeats);
        const DecodeTiming f = timeGreedy(*fast, prompts, new_tokens, o.repeats);
        const double n = static_cast<double>(new_tokens * batch);
        auto perS = [&](double ms) { return ms > 0 ? n / (ms / 1000.0) : 0.0; };
        const double r_tps = perS(r.prefill_ms + r.decode_ms), f_tps = perS(f.prefill_ms + f.decode_ms);
        auto decodeRate = [&](const DecodeTiming& t) {
          return t.decode_ms > 0 ? static_cast<double>((new_tokens - 1) * batch) / (t.decode_ms / 1000.0) : 0.0;
        };
        // A comparison over fewer tokens than were decoded is no evidence: both lists must hold them all.
        const size_t decoded = static_cast<size_t>(new_tokens * batch);
        const bool same = r.ids.size() == decoded && r.ids == f.ids;
        all_same = all_same && same;
        std::printf("%-13s %6lld %5lld %4lld | %-13s %9.1f %9.1f | %-13s %9.1f %9.1f | %6.1fx %s\n", arch.c_str(),
                    static_cast<long long>(prompt_length), static_cast<long long>(batch),
                    static_cast<long long>(new_tokens), reference->name().c_str(), r_tps, decodeRate(r),
                    fast->name().c_str(), f_tps, decodeRate(f), r_tps > 0 ? f_tps / r_tps : 0.0, same ? "yes" : "NO");
        if (const std::string how = fast->stepDescription(); !how.empty() && how != described) {
          std::printf("%-13s %11s   %s steps: %s\n", "", "", fast->name().c_str(), how.c_str());
          described = how;
        }
        std::fflush(stdout);
      }
    }
  }
  std::printf(all_same ? "greedy output identical for every row\n" : "greedy output DIFFERS in some row\n");
  return all_same ? 0 : 1;
}

}  // namespace

void addGenerateBench(CLI::App& bench, Action& action) {
  auto o = std::make_shared<GenerateBenchOptions>();
  auto* cmd = bench.add_subcommand(
      "generate", "Greedy decoding tokens/s: full forward per token vs cached / KV-cache / recurrent decoders");
  cmd->add_option(
      "--arch", o->archs,
      "Architectures to time (default: every family that generates; " + generatingArchitectureNames() + ")");
  cmd->add_option("--d-model", o->d_model, "Hidden size D")->check(positiveNumber());
  cmd->add_option("--layers", o->layers, "Number of blocks N")->check(positiveNumber());
  cmd->add_option("--context", o->context, "Context length T")->check(positiveNumber());
  cmd->add_option("--vocab", o->vocab, "Vocabulary size V")->check(positiveNumber());
  cmd->add_option("--heads", o->heads, "Attention heads (transformers)")->check(positiveNumber());
  cmd->add_option("--prompts", o->prompts, "Prompt lengths in tokens")->delimiter(',')->check(positiveNumber());
  cmd->add_option("--batch", o->batches, "Batch sizes: sequences decoded in lockstep (e.g. 1,16)")
      ->delimiter(',')
      ->check(positiveNumber());
  cmd->add_option("--new-tokens", o->new_tokens, "Tokens to generate (fewer when the window is shorter)")
      ->check(positiveNumber());
  cmd->add_option("--threads", o->threads, "CPU threads (0 = all cores)")->check(nonNegativeNumber());
  cmd->add_option("--repeats", o->repeats, "Decode each prompt this many times per decoder; the median is printed")
      ->check(positiveNumber())
      ->capture_default_str();
  cmd->add_option("--device", o->device, "cpu (default), cuda, cuda:N or auto")->capture_default_str();
  cmd->callback([o, &action]() { action = [o]() { return benchGenerate(*o); }; });
}

}  // namespace mixerlab::cli
