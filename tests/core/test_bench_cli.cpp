// End-to-end tests of the benchmark sweeps through the real mixerlab executable:
// `bench train --grid` runs every cell in a child process and reports params, tokens/s, MFU and
// peak memory that agree with the model and the FLOP formula; a cell that fails is reported and
// the grid goes on; `bench memory --memory-limit-gib` reports a context that exceeds the limit as
// OOM (the frontier) while a small one fits; the single-model mode still runs, with --precision.
// Speeds themselves are not checked (they are measurements, see docs/benchmarks.md). About 20 s.
#include <torch/torch.h>
#include <torch/version.h>
#include <QtTest/QtTest>

#include <cmath>
#include <fstream>

#include <nlohmann/json.hpp>

#include "core/models/model_registry.h"
#include "kernels/kernel_table.h"
#include "tests/cli_process.h"
#include "tests/test_support.h"
#include "tests/tiny_model_config.h"

using namespace mixerlab;
namespace fs = std::filesystem;

namespace {
using Result = testing::CliResult;
using testing::runCli;

nlohmann::json readJson(const fs::path& path) {
  std::ifstream in(path);
  return nlohmann::json::parse(in);
}

ModelConfig tinyModel(const std::string& arch, int64_t context) {
  return testing::tinyModelConfig(arch, 64, 32, 1, context);
}
}  // namespace

class TestBenchCli : public QObject {
  Q_OBJECT
  fs::path dir_;

 private Q_SLOTS:
  void initTestCase() { dir_ = testing::makeScratchDir("bench_cli"); }

  // Every cell is in the table and the JSON with measurements that agree with each other, with the
  // model's own parameter count and with model_cost's training FLOPs; the unknown architecture's
  // cell fails alone.
  void gridReportsEveryCell() {
    const fs::path json = dir_ / "grid.json";
    auto r = runCli({"bench",
                     "train",
                     "--grid",
                     "--archs",
                     "mixer,no_such_arch,llama",
                     "--d-models",
                     "32",
                     "--layers",
                     "1",
                     "--context",
                     "32",
                     "--vocab",
                     "64",
                     "--tokens-per-step",
                     "256",
                     "--steps",
                     "3",
                     "--warmup",
                     "1",
                     "--json",
                     QString::fromStdString(json.string())});
    QVERIFY2(r.exit_code == 0, qPrintable(r.err + r.out));
    QVERIFY2(r.out.contains("GFLOP/s (measured"), qPrintable(r.out));
    QVERIFY2(r.out.contains("3 x forward"), qPrintable(r.out));  // the FLOP formula is stated
    const auto doc = readJson(json);
    const double peak = doc["peak_flops_per_s"].get<double>();
    QVERIFY(peak > 0);
    QCOMPARE(doc["cells"].size(), size_t{3});
    QCOMPARE(doc["cells"][1]["status"].get<std::string>(), std::string("failed"));
    QVERIFY(r.out.contains(QRegularExpression("no_such_arch .*failed")));
    for (const size_t i : {size_t{0}, size_t{2}}) {
      const auto& c = doc["cells"][i];
      const std::string arch = c["arch"].get<std::string>();
      QCOMPARE(c["status"].get<std::string>(), std::string("ok"));
      QVERIFY(r.out.contains(QRegularExpression(QString::fromStdString("\\n" + arch + " +32 +1 .* ok\\n"))));
      QCOMPARE(c["batch"].get<int64_t>(), int64_t{8});  // 256 tokens / context 32
      QCOMPARE(c["tokens_per_step"].get<int64_t>(), int64_t{256});
      QCOMPARE(c["steps"].get<int64_t>(), int64_t{3});
      const ModelConfig model = tinyModel(arch, 32);
      QCOMPARE(c["params"].get<int64_t>(), buildModel(model)->parameterCount());
      const double flops_per_token = estimateCost(model, 8).training_flops_per_token;
      QCOMPARE(c["training_flops_per_token"].get<double>(), flops_per_token);
      const double tokens_per_s = c["tokens_per_s"].get<double>();
      QVERIFY(tokens_per_s > 0);
      QVERIFY(qFuzzyCompare(tokens_per_s, 256.0 / (c["step_ms_median"].get<double>() / 1000.0)));
      const double mfu = c["mfu"].get<double>();
      QVERIFY2(mfu > 0 && mfu <= 1, qPrintable(QString::number(mfu)));
      QVERIFY(qFuzzyCompare(mfu, flops_per_token * tokens_per_s / peak));
      QVERIFY(c["peak_memory_bytes"].get<int64_t>() > c["baseline_rss_bytes"].get<int64_t>());
      QVERIFY(c["baseline_rss_bytes"].get<int64_t>() > 0);
      // The trainer's step on one fixed batch: an untrained model starts near ln V (64 tokens) and
      // four steps (warm-up included) lower the loss.
      const double first_loss = c["first_loss"].get<double>(), final_loss = c["final_loss"].get<double>();
      QVERIFY2(std::abs(first_loss - std::log(64.0)) < 1.0, qPrintable(QString::number(first_loss)));
      QVERIFY2(final_loss < first_loss - 0.01, qPrintable(QString("%1 -> %2").arg(first_loss).arg(final_loss)));
    }
  }

  // The settings a sweep passes to every cell (vocab, heads, attention, steps, warm-up, threads, device,
  // precision) reach the cell: each is set to a value other than its default, in both sweeps, and
  // read back from the cell's own record ("auto" runs on the CPU here; a cell echoes what it got).
  void sweepsPassEverySharedSettingToTheirCells() {
    const QStringList shared = {"--vocab",     "72",   "--heads",   "2", "--steps",     "2",
                                "--warmup",    "1",    "--threads", "1", "--device",    "auto",
                                "--precision", "bf16", "--layers",  "1", "--attention", "eager"};
    auto checkCell = [](const nlohmann::json& c) {
      QVERIFY2(c["status"].get<std::string>() == "ok", qPrintable(QString::fromStdString(c.dump())));
      QCOMPARE(c["vocab"].get<int64_t>(), int64_t{72});
      QCOMPARE(c["heads"].get<int64_t>(), int64_t{2});
      QCOMPARE(c["steps"].get<int64_t>(), int64_t{2});
      QCOMPARE(c["warmup"].get<int64_t>(), int64_t{1});
      QCOMPARE(c["threads"].get<int64_t>(), int64_t{1});
      QCOMPARE(c["device"].get<std::string>(), std::string("auto"));
      QCOMPARE(c["precision"].get<std::string>(), std::string("bf16"));
      QCOMPARE(c["attention"].get<std::string>(), std::string("eager"));
      QCOMPARE(c["attention_ran"].get<std::string>(), std::string("eager"));
      ModelConfig model = testing::tinyModelConfig("llama", 72, 32, 1, 32);
      model.n_heads = 2;
      QCOMPARE(c["params"].get<int64_t>(), buildModel(model)->parameterCount());  // the vocabulary's rows
    };
    const fs::path grid_json = dir_ / "grid-shared.json";
    auto r = runCli(QStringList{"bench", "train", "--grid", "--archs", "llama", "--d-models", "32", "--context", "32",
                                "--tokens-per-step", "64", "--json", QString::fromStdString(grid_json.string())} +
                    shared);
    QVERIFY2(r.exit_code == 0, qPrintable(r.err + r.out));
    checkCell(readJson(grid_json)["cells"].at(0));
    const fs::path memory_json = dir_ / "memory-shared.json";
    r = runCli(QStringList{"bench", "memory", "--archs", "llama", "--d-model", "32", "--contexts", "32",
                           "--tokens-per-step", "64", "--json", QString::fromStdString(memory_json.string())} +
               shared);
    QVERIFY2(r.exit_code == 0, qPrintable(r.err + r.out));
    checkCell(readJson(memory_json)["cells"].at(0));
  }

  // Under a 128 MiB address-space cap, context 32 (batch 128) fits and context 4096 (batch 1) does
  // not for the mixer: its [T,T] token-mixing weights with their gradient and AdamW moments are
  // 256 MiB. Llama's 4096 x 4096 attention scores (256 MiB per head set) are materialised with
  // LibTorch 1.x; from 2.0 its fused attention never holds them (the H200 run found Llama fitting),
  // so there the frontier reports "none" for Llama, and the no-OOM report is checked too.
  void memoryLimitMarksTheOomFrontier() {
    const fs::path json = dir_ / "memory.json";
    auto r = runCli({"bench", "memory", "--archs", "mixer,llama", "--contexts", "32,4096", "--d-model", "32",
                     "--layers", "1", "--vocab", "64", "--tokens-per-step", "4096", "--steps", "1", "--warmup", "0",
                     "--memory-limit-gib", "0.125",
                     // Two threads whatever the machine: each thread's malloc arena reserves 64 MiB of
                     // address space, so on 16 cores the 128 MiB cap was spent before any tensor.
                     "--threads", "2", "--json", QString::fromStdString(json.string())});
    QVERIFY2(r.exit_code == 0, qPrintable(r.err + r.out));
    const auto doc = readJson(json);
    QCOMPARE(doc["cells"].size(), size_t{4});
#if TORCH_VERSION_MAJOR >= 2
    const bool llama_fits = true;
#else
    const bool llama_fits = false;
#endif
    for (const auto& c : doc["cells"]) {
      const int64_t context = c["context"].get<int64_t>();
      const std::string status = c["status"].get<std::string>();
      const bool fits = context == 32 || (llama_fits && c["arch"].get<std::string>() == "llama");
      QVERIFY2(status == (fits ? "ok" : "OOM"), qPrintable(QString::fromStdString(c.dump())));
      if (context == 32) {
        QVERIFY(c["peak_memory_bytes"].get<int64_t>() > 0);
        QCOMPARE(c["batch"].get<int64_t>(), int64_t{128});
      }
      QVERIFY(c["child_max_rss_bytes"].get<int64_t>() > 0);
    }
    QCOMPARE(doc["oom_frontier"]["masked_mixer"].get<int64_t>(), int64_t{4096});
    if (llama_fits) {
      QVERIFY(doc["oom_frontier"]["llama"].is_null());
    } else {
      QCOMPARE(doc["oom_frontier"]["llama"].get<int64_t>(), int64_t{4096});
    }
    const QString llama_frontier = llama_fits ? "llama none up to 4096" : "llama 4096";
    QVERIFY2(
        r.out.contains("OOM frontier (first context that ran out of memory):  masked_mixer 4096  " + llama_frontier),
        qPrintable(r.out));
  }

  // `bench cell --phases` splits the step into forward, backward and optimizer (each a positive time);
  // without the flag the record has no split.
  void cellSplitsStepsIntoPhasesOnRequest() {
    const QStringList cell = {"bench",     "cell", "--arch",   "llama", "--d-model", "16", "--layers", "1",
                              "--context", "8",    "--vocab",  "32",    "--heads",   "2",  "--batch",  "2",
                              "--steps",   "3",    "--warmup", "1",     "--threads", "1"};
    auto record = [](const Result& r) {
      nlohmann::json found;
      for (const QString& line : r.out.split('\n')) {
        if (line.startsWith('{')) found = nlohmann::json::parse(line.toStdString());
      }
      return found;
    };
    const auto split = runCli(cell + QStringList{"--phases"});
    QVERIFY2(split.exit_code == 0, qPrintable(split.err + split.out));
    const auto phases = record(split)["phase_ms_median"];
    for (const char* name : {"forward", "backward", "optimizer"}) {
      QVERIFY2(phases.contains(name) && phases[name].get<double>() > 0,
               qPrintable(QString::fromStdString(phases.dump())));
    }
    const auto whole = runCli(cell);
    QVERIFY2(whole.exit_code == 0, qPrintable(whole.err + whole.out));
    QVERIFY(record(whole).value("status", "") == "ok");
    QVERIFY(!record(whole).contains("phase_ms_median"));
  }

  // `bench kernels` times every op of the kernel table, its kernel against its reference, and
  // --kernel keeps one op; an unknown op is refused with the table's names.
  void kernelsBenchTimesEveryTableOp() {
    const QStringList small{"bench",   "kernels", "--lengths", "16", "--batch",   "2",
                            "--width", "8",       "--repeats", "1",  "--threads", "1"};
    const auto all = runCli(small);
    QVERIFY2(all.exit_code == 0, qPrintable(all.err + all.out));
    for (const kernels::KernelEntry& entry : kernels::kernelTable()) {
      for (const QString path : {"reference \\(old\\)", "kernel"}) {
        const QRegularExpression row("^" + QString::fromStdString(entry.name) + " +16 +" + path +
                                         " +([0-9.]+) +([0-9.]+) +([0-9.]+)x +([0-9.]+)x$",
                                     QRegularExpression::MultilineOption);
        const auto match = row.match(all.out);
        QVERIFY2(match.hasMatch(), qPrintable(QString::fromStdString(entry.name) + " " + path + "\n" + all.out));
      }
    }
    const auto one = runCli(small + QStringList{"--kernel", "selective_scan"});
    QVERIFY2(one.exit_code == 0, qPrintable(one.err + one.out));
    QVERIFY2(one.out.contains("selective_scan ") && !one.out.contains("residual_layer_norm "), qPrintable(one.out));
    const auto unknown = runCli(small + QStringList{"--kernel", "fused_attention"});
    QVERIFY(unknown.exit_code != 0);
    QVERIFY2(unknown.err.contains("unknown kernel \"fused_attention\"") && unknown.err.contains("causal_token_mix"),
             qPrintable(unknown.err));
  }

  // `bench kernels --scan`: the selective scan's rows and its memory bound, which is the bytes any
  // scan forward must move (u, delta, y over B x L x E; B, C over B x L x N; A and D) over the
  // measured copy bandwidth. The expected bytes are written out here, apart from the code's formula.
  // The state size is not the default 16, so a lost --scan-state shows.
  void kernelsScanSectionPrintsTheMemoryBound() {
    auto r = runCli({"bench", "kernels", "--lengths", "256", "--batch", "4", "--width", "64", "--repeats", "1",
                     "--scan", "--scan-state", "8", "--threads", "1"});
    QVERIFY2(r.exit_code == 0, qPrintable(r.err + r.out));
    QVERIFY2(r.out.contains("B=4 E=128 N=8 fp32"), qPrintable(r.out));
    const QRegularExpression bandwidth_re("device copy bandwidth (\\d+) GB/s");
    const auto bandwidth = bandwidth_re.match(r.out);
    QVERIFY2(bandwidth.hasMatch(), qPrintable(r.out));
    QVERIFY2(r.out.contains("parallel ops (old)") && r.out.contains("fused loops"), qPrintable(r.out));
    const QRegularExpression row_re("scan +256 +fused loops +([0-9.]+) +([0-9.]+) .* ([0-9.]+) +([0-9.]+)x");
    const auto row = row_re.match(r.out);
    QVERIFY2(row.hasMatch(), qPrintable(r.out));
    const double b = 4, l = 256, e = 2 * 64, n = 8;
    const double bytes = 4 * (3 * b * l * e + 2 * b * l * n + e * (n + 1));  // 1,643,008
    const double expected_ms = bytes / (bandwidth.captured(1).toDouble() * 1e9) * 1e3;
    const double bound_ms = row.captured(3).toDouble();
    // the bandwidth is printed rounded to 1 GB/s, the bound to 1e-4 ms
    QVERIFY2(std::abs(bound_ms - expected_ms) <= 0.05 * expected_ms + 1e-4,
             qPrintable(QString("bound %1 ms, expected %2 ms\n%3").arg(bound_ms).arg(expected_ms).arg(r.out)));
    const double ratio = row.captured(4).toDouble(), forward_ms = row.captured(1).toDouble();
    QVERIFY2(std::abs(ratio - forward_ms / bound_ms) <= 0.05 * ratio + 0.1, qPrintable(r.out));
  }

  // The mixer's block-stack A/B switch: a path it names is taken (token_major, not the CPU's default),
  // and a mistyped value stops the run with a message naming the variable and its values, instead of
  // quietly measuring the automatic path.
  void mixerStackSwitchIsObeyedOrRefusedByName() {
    const QStringList cell{"bench",     "train", "--arch",  "masked_mixer", "--d-model", "16", "--layers", "2",
                           "--context", "8",     "--vocab", "32",           "--batch",   "2",  "--steps",  "1",
                           "--warmup",  "0"};
    qputenv("MIXERLAB_MIXER_STACK", "fastest");
    const auto refused = runCli(cell);
    qputenv("MIXERLAB_MIXER_STACK", "token_major");
    const auto forced = runCli(cell);
    qunsetenv("MIXERLAB_MIXER_STACK");
    QVERIFY2(refused.exit_code != 0, qPrintable(refused.out));
    QVERIFY2(refused.err.contains("MIXERLAB_MIXER_STACK=\"fastest\"") && refused.err.contains("token_major"),
             qPrintable(refused.err));
    QVERIFY2(forced.exit_code == 0 && forced.out.contains("tokens_per_s"), qPrintable(forced.err + forced.out));
  }

  // `bench generate` names how the cached mixer's steps ran; MIXERLAB_DECODE_STEP=aten,
  // MIXERLAB_ROW_SIMD=generic and MIXERLAB_DECODE_GRAPHS=on are obeyed (and greedy output stays
  // identical), mistyped values are refused naming the variable.
  void decodeStepSwitchesAreObeyedOrRefusedByName() {
    const QStringList cell{
        "bench",   "generate", "--arch",    "masked_mixer", "--d-model",    "32", "--layers",  "1", "--context", "32",
        "--vocab", "64",       "--prompts", "20",           "--new-tokens", "4",  "--repeats", "1", "--threads", "2"};
    const auto fused = runCli(cell);
    QVERIFY2(fused.exit_code == 0 && fused.out.contains("cached-mixer steps: fused fp32 step (") &&
                 fused.out.contains(" products, 3 threads)"),
             qPrintable(fused.err + fused.out));
    qputenv("MIXERLAB_DECODE_STEP", "aten");
    const auto aten = runCli(cell);
    qputenv("MIXERLAB_DECODE_STEP", "fastest");
    const auto bad_step = runCli(cell);
    qunsetenv("MIXERLAB_DECODE_STEP");
    qputenv("MIXERLAB_ROW_SIMD", "generic");
    const auto generic = runCli(cell);
    qputenv("MIXERLAB_ROW_SIMD", "sse9");
    const auto bad_simd = runCli(cell);
    qunsetenv("MIXERLAB_ROW_SIMD");
    qputenv("MIXERLAB_DECODE_GRAPHS", "on");  // the static step (graphed on a GPU), eager on the CPU
    const auto graphs = runCli(cell);
    qputenv("MIXERLAB_DECODE_GRAPHS", "maybe");
    const auto bad_graphs = runCli(cell);
    qunsetenv("MIXERLAB_DECODE_GRAPHS");
    QVERIFY2(aten.exit_code == 0 && aten.out.contains("cached-mixer steps: ATen ops") &&
                 aten.out.contains("greedy output identical"),
             qPrintable(aten.err + aten.out));
    QVERIFY2(generic.exit_code == 0 && generic.out.contains("fused fp32 step (generic products"),
             qPrintable(generic.err + generic.out));
    QVERIFY2(bad_step.exit_code != 0 && bad_step.err.contains("MIXERLAB_DECODE_STEP=\"fastest\"") &&
                 bad_step.err.contains("aten"),
             qPrintable(bad_step.err));
    QVERIFY2(
        bad_simd.exit_code != 0 && bad_simd.err.contains("MIXERLAB_ROW_SIMD=\"sse9\"") && bad_simd.err.contains("avx2"),
        qPrintable(bad_simd.err));
    QVERIFY2(graphs.exit_code == 0 && graphs.out.contains("cached-mixer steps: static step, eager") &&
                 graphs.out.contains("greedy output identical"),
             qPrintable(graphs.err + graphs.out));
    QVERIFY2(bad_graphs.exit_code != 0 && bad_graphs.err.contains("MIXERLAB_DECODE_GRAPHS=\"maybe\""),
             qPrintable(bad_graphs.err));
  }

  // The single-model mode (what `bench train` did before --grid) still runs, here in bf16.
  void singleModelModeStillRuns() {
    auto r =
        runCli({"bench",   "train", "--arch",  "llama", "--d-model", "16", "--layers", "1", "--context",   "8",
                "--vocab", "32",    "--batch", "2",     "--steps",   "2",  "--warmup", "0", "--precision", "bf16"});
    QVERIFY2(r.exit_code == 0, qPrintable(r.err + r.out));
    QVERIFY2(r.out.contains("precision bf16") && r.out.contains("tokens_per_s"), qPrintable(r.out));
    const auto loss = QRegularExpression("loss ([0-9.]+) at the first step, ([0-9.]+) after 2 ").match(r.out);
    QVERIFY2(loss.hasMatch() && loss.captured(2).toDouble() < loss.captured(1).toDouble(), qPrintable(r.out));
    auto two_layers = runCli({"bench", "train", "--layers", "1,2"});
    QVERIFY2(two_layers.exit_code != 0 && two_layers.err.contains("--layers"), qPrintable(two_layers.err));
  }
};

QTEST_GUILESS_MAIN(TestBenchCli)
#include "test_bench_cli.moc"
