// End-to-end tests of the mixerlab executable as a real child process: SIGKILL mid-run and
// --resume continues with no duplicated or missing steps; info, score, export, generate, invert and retrieval work on
// the result.
#include <torch/torch.h>
#include <QElapsedTimer>
#include <QRegularExpression>
#include <QtTest/QtTest>

#include <cerrno>

#include <csignal>
#include <fstream>
#include <thread>

#include <nlohmann/json.hpp>

#include "core/analysis/retrieval/retrieval_dataset.h"
#include "core/models/safetensors.h"
#include "core/runs/metrics_log.h"
#include "core/runs/retrieval_run_record.h"
#include "core/runs/run_status.h"
#include "core/train/checkpoint.h"
#include "core/train/device.h"
#include "core/util/atomic_file.h"
#include "tests/cli_process.h"
#include "tests/training_fixture.h"

using namespace mixerlab;
namespace fs = std::filesystem;

namespace {
using Result = testing::CliResult;
using testing::runCli;

int64_t latestCheckpointStep(const fs::path& run_dir) {
  auto latest = latestCheckpoint(run_dir / "checkpoints");
  return latest ? readTrainerState(*latest).step : 0;
}

QString q(const fs::path& path) { return QString::fromStdString(path.string()); }
}  // namespace

class TestCli : public QObject {
  Q_OBJECT
  fs::path dir_, project_;

  // A 40-step CLI run keeping its step-30 and step-40 checkpoints, trained once for the checkpoint
  // tests to copy; empty when it failed.
  fs::path checkpointedRun() {
    const fs::path run_dir = dir_ / "runs" / "checkpointed";
    if (fs::exists(run_dir / "checkpoints" / "step-00000040")) return run_dir;
    const auto trained =
        runCli({"train", q(project_), "--run", "mixer", "--run-id", "checkpointed", "--max-steps", "40"});
    if (trained.exit_code != 0) qWarning("%s", qPrintable(trained.err));
    return trained.exit_code == 0 ? run_dir : fs::path();
  }

 private Q_SLOTS:
  void initTestCase() {
    dir_ = testing::makeScratchDir("cli");
    project_ = testing::writeTinyProject(
        dir_,
        R"(, "max_steps": 150, "schedule_steps": 150, "checkpoint_every": 15, "eval_every": 50, "keep_checkpoints": 2)",
        64, 64);
  }

  void killAndResumeHasNoGapsOrDuplicates() {
    const fs::path run_dir = dir_ / "runs" / "mixer";
    QProcess child;
    child.start(QString::fromStdString(testing::cliPath().string()),
                {"train", QString::fromStdString(project_.string()), "--run", "mixer"});
    QVERIFY(child.waitForStarted());
    // Wait for the first checkpoint, then kill without warning.
    QTRY_VERIFY_WITH_TIMEOUT(latestCheckpointStep(run_dir) >= 15 || child.state() == QProcess::NotRunning, 240000);
    QVERIFY2(child.state() == QProcess::Running, "the run finished before it could be killed: make it longer");
    ::kill(static_cast<pid_t>(child.processId()), SIGKILL);
    QVERIFY(child.waitForFinished(10000));
    const int64_t killed_at = readMetrics(run_dir / "metrics.jsonl").back().step;
    QCOMPARE(readRunStatus(run_dir)->resolvedForReader().state, RunState::Stopped);

    // Rerunning without --resume refuses to overwrite the run.
    auto refused = runCli({"train", QString::fromStdString(project_.string()), "--run", "mixer"});
    QCOMPARE(refused.exit_code, 1);
    QVERIFY2(refused.err.contains("--resume"), qPrintable(refused.err));

    auto resumed = runCli({"train", QString::fromStdString(project_.string()), "--run", "mixer", "--resume"});
    QVERIFY2(resumed.exit_code == 0, qPrintable(resumed.err + resumed.out));
    QVERIFY2(resumed.out.contains("resumed from"), qPrintable(resumed.out));

    const auto records = readMetrics(run_dir / "metrics.jsonl");
    QCOMPARE(records.size(), size_t{151});  // step 0 + steps 1..150, each exactly once
    for (size_t i = 0; i < records.size(); ++i) QCOMPARE(records[i].step, static_cast<int64_t>(i));
    QVERIFY(killed_at >= 15);
    QCOMPARE(readRunStatus(run_dir)->state, RunState::Finished);
    QCOMPARE(latestCheckpointStep(run_dir), int64_t{150});
    int kept = 0;
    for (const auto& e : fs::directory_iterator(run_dir / "checkpoints"))
      kept += e.path().filename().string().rfind("step-", 0) == 0;
    QCOMPARE(kept, 2);
    QVERIFY(*records.back().eval_loss < *records.front().eval_loss - 1.0);
    // run.json records provenance.
    auto run_json = nlohmann::json::parse(std::ifstream(run_dir / "run.json"));
    QCOMPARE(run_json.at("seed").get<int>(), 42);
    QVERIFY(run_json.at("environment").contains("libraries"));
    QCOMPARE(run_json.at("run").at("model").at("arch").get<std::string>(), std::string("masked_mixer"));
  }

  void scoreExportAndEval() {
    const fs::path run_dir = dir_ / "runs" / "mixer";
    auto score = runCli({"score", "--checkpoint", QString::fromStdString(run_dir.string()), "--text",
                         "Once upon a time, there was a cat."});
    QVERIFY2(score.exit_code == 0, qPrintable(score.err));
    auto j = nlohmann::json::parse(score.out.toStdString());
    QVERIFY(j.at("tokens").size() > 3);
    QVERIFY(j.at("tokens")[0].at("logprob").is_null());
    for (size_t i = 1; i < j.at("tokens").size(); ++i) QVERIFY(j.at("tokens")[i].at("logprob").get<double>() <= 0.0);

    const fs::path out = dir_ / "export.safetensors";
    auto exp = runCli({"export", "--checkpoint", QString::fromStdString(run_dir.string()), "--out",
                       QString::fromStdString(out.string())});
    QVERIFY2(exp.exit_code == 0, qPrintable(exp.err));
    auto file = loadSafetensors(out);
    auto conv = file.tensors.at("mixerblocks.0.conv.weight");
    QCOMPARE(conv.sizes().vec(), (std::vector<int64_t>{64, 64, 1}));
    QCOMPARE(conv.select(2, 0).triu(1).abs().max().item<double>(), 0.0);

    auto eval = runCli({"eval", "--checkpoint", QString::fromStdString(run_dir.string()), "--max-batches", "2"});
    QVERIFY2(eval.exit_code == 0, qPrintable(eval.err));
    QVERIFY(nlohmann::json::parse(eval.out.toStdString()).at("eval_loss").get<double>() > 0);

    // --out naming a folder is refused before anything is read, naming a file to give instead.
    auto into_folder = runCli({"export", "--checkpoint", QString::fromStdString(run_dir.string()), "--out",
                               QString::fromStdString(dir_.string())});
    QVERIFY(into_folder.exit_code != 0);
    QVERIFY2(into_folder.err.contains("is a folder") && into_folder.err.contains("model.safetensors") &&
                 !into_folder.err.contains("cannot rename"),
             qPrintable(into_folder.err));
    // A prompt file must be a regular file of at most 1 MiB: a folder and a device are refused.
    for (const QString& prompt : {QString::fromStdString(dir_.string()), QString("/dev/zero")}) {
      auto refused = runCli({"generate", "--checkpoint", QString::fromStdString(run_dir.string()), "--prompt-file",
                             prompt, "--max-new-tokens", "2"});
      QVERIFY(refused.exit_code != 0);
      QVERIFY2(refused.err.contains("is not a regular file"), qPrintable(refused.err));
    }
    testing::writeText(dir_ / "big-prompt.txt", std::string((1 << 20) + 1, 'a'));
    auto big = runCli({"generate", "--checkpoint", QString::fromStdString(run_dir.string()), "--prompt-file",
                       QString::fromStdString((dir_ / "big-prompt.txt").string()), "--max-new-tokens", "2"});
    QVERIFY(big.exit_code != 0);
    QVERIFY2(big.err.contains("holds more than 1 MiB"), qPrintable(big.err));
    std::string exactly;
    for (int i = 0; i < (1 << 19); ++i) exactly += "a ";
    testing::writeText(dir_ / "mib-prompt.txt", exactly);
    auto at_limit = runCli({"generate", "--checkpoint", QString::fromStdString(run_dir.string()), "--prompt-file",
                            QString::fromStdString((dir_ / "mib-prompt.txt").string()), "--max-new-tokens", "2"});
    QVERIFY2(at_limit.exit_code == 0, qPrintable(at_limit.err));
  }

  // `generate`: --json has the prompt ids, the generated ids, the text and per-token probability and
  // top-5; plain mode streams the prompt and then the same greedy text; bad settings name themselves.
  void generateJsonAndStreaming() {
    const QString run_dir = QString::fromStdString((dir_ / "runs" / "mixer").string());
    const QString prompt = "Once upon a time, there was a";
    auto gen = runCli({"generate", "--checkpoint", run_dir, "--prompt", prompt, "--greedy", "--max-new-tokens", "12",
                       "--no-eos-stop", "--json"});
    QVERIFY2(gen.exit_code == 0, qPrintable(gen.err));
    const auto j = nlohmann::json::parse(gen.out.toStdString());
    QVERIFY(!j.at("prompt_ids").empty());
    QCOMPARE(j.at("ids").size(), size_t{12});
    QCOMPARE(j.at("tokens").size(), size_t{12});
    std::string joined;
    for (size_t i = 0; i < j.at("tokens").size(); ++i) {
      const auto& t = j.at("tokens")[i];
      QCOMPARE(t.at("id").get<int>(), j.at("ids")[i].get<int>());
      QCOMPARE(t.at("top").size(), size_t{5});
      QCOMPARE(t.at("top")[0].at("id").get<int>(), t.at("id").get<int>());  // greedy takes the top token
      QVERIFY(t.at("prob").get<double>() > 0);
      joined += t.at("text").get<std::string>();
    }
    QCOMPARE(joined, j.at("text").get<std::string>());
    QCOMPARE(j.at("finish_reason").get<std::string>(), std::string("max_new_tokens"));

    auto streamed = runCli({"generate", "--checkpoint", run_dir, "--prompt", prompt, "--greedy", "--max-new-tokens",
                            "12", "--no-eos-stop"});
    QVERIFY2(streamed.exit_code == 0, qPrintable(streamed.err));
    QCOMPARE(streamed.out, prompt + QString::fromStdString(j.at("text").get<std::string>()) + "\n");
    QVERIFY(streamed.err.contains("tokens/s"));

    // --device: the JSON says where the model ran, and the CPU named explicitly gives the same tokens.
    auto on_cpu = runCli({"generate", "--checkpoint", run_dir, "--prompt", prompt, "--greedy", "--max-new-tokens", "12",
                          "--no-eos-stop", "--json", "--device", "cpu"});
    QVERIFY2(on_cpu.exit_code == 0, qPrintable(on_cpu.err));
    const auto c = nlohmann::json::parse(on_cpu.out.toStdString());
    QCOMPARE(c.at("ids"), j.at("ids"));
    QVERIFY2(c.at("device").get<std::string>().rfind("cpu", 0) == 0, c.at("device").dump().c_str());
    if (!torch::cuda::is_available()) {
      auto no_gpu = runCli({"generate", "--checkpoint", run_dir, "--prompt", prompt, "--device", "cuda"});
      QVERIFY(no_gpu.exit_code != 0);
      QVERIFY2(no_gpu.err.contains("cuda", Qt::CaseInsensitive), qPrintable(no_gpu.err));
    }

    auto no_prompt = runCli({"generate", "--checkpoint", run_dir});
    QVERIFY(no_prompt.exit_code != 0);
    QVERIFY2(no_prompt.err.contains("--prompt"), qPrintable(no_prompt.err));
    auto bad = runCli({"generate", "--checkpoint", run_dir, "--prompt", prompt, "--temperature", "0"});
    QVERIFY(bad.exit_code != 0);
    QVERIFY2(bad.err.contains("temperature"), qPrintable(bad.err));
  }

  // `generate --samples N`: N stories as one decoder batch; with --json one object whose samples
  // carry seeds seed..seed+N-1, sample i the story a plain run with seed + i gives; in plain mode
  // each sample under its own header.
  void generateSamplesAsOneBatch() {
    const QString run_dir = QString::fromStdString((dir_ / "runs" / "mixer").string());
    const QStringList common{
        "generate", "--checkpoint",     run_dir, "--prompt",     "Once upon a time", "--temperature",
        "1.3",      "--max-new-tokens", "8",     "--no-eos-stop"};
    auto many = runCli(common + QStringList{"--seed", "5", "--samples", "3", "--json"});
    QVERIFY2(many.exit_code == 0, qPrintable(many.err));
    const auto j = nlohmann::json::parse(many.out.toStdString());
    QCOMPARE(j.at("samples").size(), size_t{3});
    QCOMPARE(j.at("samples")[1].at("seed").get<int>(), 6);
    auto one = runCli(common + QStringList{"--seed", "6", "--json"});
    QVERIFY2(one.exit_code == 0, qPrintable(one.err));
    QCOMPARE(nlohmann::json::parse(one.out.toStdString()).at("ids"), j.at("samples")[1].at("ids"));
    QVERIFY(j.at("samples")[0].at("ids") != j.at("samples")[1].at("ids"));

    auto plain = runCli(common + QStringList{"--seed", "5", "--samples", "2"});
    QVERIFY2(plain.exit_code == 0, qPrintable(plain.err));
    QVERIFY2(plain.out.contains("--- sample 1 (seed 5, 8 tokens") && plain.out.contains("--- sample 2 (seed 6"),
             qPrintable(plain.out));
    QVERIFY2(plain.err.contains("2 samples decoded as one batch"), qPrintable(plain.err));
    auto none = runCli(common + QStringList{"--samples", "0"});
    QVERIFY(none.exit_code != 0);
    QVERIFY2(none.err.contains("--samples"), qPrintable(none.err));
  }

  // `invert --json` (docs/inversion.md): the documented fields, the embedding layer recovered exactly, and a
  // missing --run for a project file named in the error.
  void invertJson() {
    const QString run_dir = QString::fromStdString((dir_ / "runs" / "mixer").string());
    auto inv = runCli({"invert", "--checkpoint", run_dir, "--text", "Once upon a time, there was a cat.", "--layer",
                       "0", "--layer", "last", "--iterations", "40", "--json"});
    QVERIFY2(inv.exit_code == 0, qPrintable(inv.err));
    const auto j = nlohmann::json::parse(inv.out.toStdString());
    QCOMPARE(j.at("results").size(), size_t{2});
    for (const char* key : {"hamming_top5", "hamming_exact", "epsilon_l1", "loss_curve", "original_tokens",
                            "recovered_tokens", "counted_positions", "layer"}) {
      QVERIFY2(j.at("results")[0].contains(key), key);
    }
    const auto& embedding = j.at("results")[0];
    QCOMPARE(embedding.at("layer").get<int>(), 0);
    QCOMPARE(embedding.at("loss_curve").size(), size_t{40});
    QCOMPARE(embedding.at("original_tokens").size(), size_t{64});  // padded to the context
    QCOMPARE(j.at("results")[1].at("layer").get<int>(), 2);        // "last" of the 2-layer mixer

    auto no_run = runCli({"invert", "--untrained", QString::fromStdString(project_.string()), "--text", "a cat"});
    QVERIFY(no_run.exit_code != 0);
    QVERIFY2(no_run.err.contains("--run"), qPrintable(no_run.err));
  }

  // `retrieval build|train|eval|query` on synthetic pairs embedded by the trained mixer: eval and
  // query print the documented JSON, train writes one metrics record per epoch.
  void retrievalCommands() {
    const QString run_dir = QString::fromStdString((dir_ / "runs" / "mixer").string());
    const QString data = QString::fromStdString((dir_ / "retrieval-data").string());
    auto build =
        runCli({"retrieval", "build", "--checkpoint", run_dir, "--synthetic", "80", "--out", data, "--device", "cpu"});
    QVERIFY2(build.exit_code == 0, qPrintable(build.err));
    if (!torch::cuda::is_available()) {
      auto no_gpu = runCli({"retrieval", "build", "--checkpoint", run_dir, "--synthetic", "80", "--out",
                            QString::fromStdString((dir_ / "retrieval-gpu").string()), "--device", "cuda"});
      QVERIFY(no_gpu.exit_code != 0);
      QVERIFY2(no_gpu.err.contains("cuda", Qt::CaseInsensitive), qPrintable(no_gpu.err));
    }
    auto eval = runCli({"retrieval", "eval", "--data", data, "--context", "4", "--json"});
    QVERIFY2(eval.exit_code == 0, qPrintable(eval.err));
    const auto e = nlohmann::json::parse(eval.out.toStdString());
    QCOMPARE(e.at("candidates").get<int>(), 3);
    QCOMPARE(e.at("queries").get<int>(), 8);
    QVERIFY(e.at("top1").get<double>() >= 0 && e.at("top5").get<double>() == 1.0);  // 3 candidates: top-5 holds all

    const QString model = QString::fromStdString((dir_ / "retrieval-model").string());
    auto train = runCli({"retrieval", "train", "--data", data, "--out", model, "--context", "4", "--layers", "1",
                         "--epochs", "2", "--batch", "16"});
    QVERIFY2(train.exit_code == 0, qPrintable(train.err));
    QCOMPARE(readMetrics(dir_ / "retrieval-model" / "metrics.jsonl").size(), size_t{2});
    // --research: the research's settings, with the options given laid over them; without
    // it, MixerLab's defaults. retrieval_run.json records what trained.
    const QString research_model = QString::fromStdString((dir_ / "retrieval-research").string());
    auto research = runCli({"retrieval", "train", "--data", data, "--out", research_model, "--context", "4", "--layers",
                            "1", "--epochs", "1", "--batch", "16", "--research"});
    QVERIFY2(research.exit_code == 0, qPrintable(research.err));
    QVERIFY2(research.out.contains("lowest held-out CE"), qPrintable(research.out));
    for (const auto& [folder, researched] : {std::pair<const char*, bool>{"retrieval-model", false},
                                             std::pair<const char*, bool>{"retrieval-research", true}}) {
      const auto record = tryReadRetrievalRunRecord(dir_ / folder);
      QVERIFY(record.has_value());
      QCOMPARE(record->batch_size, int64_t{16});  // given: wins over the research's 512
      QCOMPARE(record->layers, int64_t{1});
      QCOMPARE(record->warmup_steps, researched ? int64_t{500} : int64_t{50});
      QCOMPARE(record->weight_decay, researched ? 0.0 : 0.01);
      QCOMPARE(record->grad_clip_norm, researched ? 1.0 : 0.0);
      QCOMPARE(record->epochs_planned, researched ? int64_t{1} : int64_t{2});
    }
    auto model_eval = runCli({"retrieval", "eval", "--data", data, "--model", model, "--json"});
    QVERIFY2(model_eval.exit_code == 0, qPrintable(model_eval.err));
    QCOMPARE(nlohmann::json::parse(model_eval.out.toStdString()).at("method").get<std::string>(),
             std::string("retrieval_model"));

    auto query = runCli({"retrieval", "query", "--data", data, "--text", "a dog at the park", "--k", "3", "--json"});
    QVERIFY2(query.exit_code == 0, qPrintable(query.err));
    const auto q = nlohmann::json::parse(query.out.toStdString());
    QCOMPARE(q.at("results").size(), size_t{3});
    for (const auto& r : q.at("results")) {
      QVERIFY(r.contains("id") && r.contains("score") && r.contains("story"));
    }
    QVERIFY(q.at("results")[0].at("score").get<double>() >= q.at("results")[1].at("score").get<double>());

    auto missing = runCli({"retrieval", "eval", "--data", QString::fromStdString((dir_ / "nowhere").string())});
    QVERIFY(missing.exit_code != 0);
    QVERIFY2(missing.err.contains("retrieval build"), qPrintable(missing.err));

    // A corpus of stories without summaries: the first --max-stories stories, each its opening
    // sentence's match; exactly one pair source is taken.
    const QString stories =
        QString::fromStdString((testing::sourceDir() / "projects/demo/data/stories-a.txt").string());
    const QString story_data = QString::fromStdString((dir_ / "retrieval-stories").string());
    auto from_stories = runCli({"retrieval", "build", "--checkpoint", run_dir, "--stories", stories, "--max-stories",
                                "30", "--format", "blank_line", "--out", story_data});
    QVERIFY2(from_stories.exit_code == 0, qPrintable(from_stories.err));
    QVERIFY2(from_stories.out.contains("30 pairs (27 train, 3 held out)"), qPrintable(from_stories.out));
    const auto story_pairs = loadRetrievalDataset(story_data.toStdString()).pairs;
    QVERIFY(story_pairs[0].story.rfind(story_pairs[0].summary, 0) == 0 && story_pairs[0].summary.size() < 300);
    auto two_sources = runCli({"retrieval", "build", "--checkpoint", run_dir, "--stories", stories, "--synthetic", "10",
                               "--out", story_data});
    QVERIFY(two_sources.exit_code != 0);
    QVERIFY2(two_sources.err.contains("exactly one of --pairs FILE, --synthetic N or --stories CORPUS"),
             qPrintable(two_sources.err));
  }

  void infoAndErrors() {
    auto info = runCli({"info", QString::fromStdString((testing::sourceDir() / "projects/demo/project.json").string()),
                        "--run", "mixer"});
    QVERIFY2(info.exit_code == 0, qPrintable(info.err));
    QVERIFY(info.out.contains("mixerblocks.3"));
    QVERIFY(info.out.contains("FLOPs"));
    auto bad = runCli({"info", QString::fromStdString(project_.string()), "--run", "nope"});
    QCOMPARE(bad.exit_code, 1);
    QVERIFY(bad.err.contains("mixer, llama"));
    auto usage = runCli({"train"});
    QVERIFY(usage.exit_code != 0);  // CLI11 usage error
    // Crashed before: an empty timing list was averaged and indexed.
    for (const char* steps : {"0", "-3"}) {
      auto bench = runCli({"bench", "train", "--steps", steps, "--d-model", "16", "--layers", "1", "--context", "8"});
      QVERIFY2(bench.exit_code > 0 && bench.err.contains("--steps"), qPrintable(bench.err));
    }
    // A run id is a folder name: "../escape" would have written outside the runs folder.
    auto escape = runCli({"train", QString::fromStdString(project_.string()), "--run", "mixer", "--run-id", "../escape",
                          "--max-steps", "1"});
    QCOMPARE(escape.exit_code, 1);
    QVERIFY2(escape.err.contains("--run-id \"../escape\""), qPrintable(escape.err));
    QVERIFY(!fs::exists(project_.parent_path() / "escape"));
    // Every trainer error was printed twice (the log line and the CLI's report).
    const fs::path short_eval = dir_ / "short-eval";
    fs::create_directories(short_eval);
    testing::writeText(short_eval / "eval.txt", "Tom had a ball.\n");
    std::string json = readFile(testing::writeTinyProject(short_eval));
    const std::string eval_path = (testing::sourceDir() / "projects/demo/data/stories-a.txt").string();
    json.replace(json.find(eval_path), eval_path.size(), (short_eval / "eval.txt").string());
    testing::writeText(short_eval / "project.json", json);
    auto failed = runCli({"train", QString::fromStdString((short_eval / "project.json").string()), "--run", "mixer"});
    QCOMPARE(failed.exit_code, 1);
    QCOMPARE((failed.out + failed.err).count("the eval split gives no example"), 1);
    // A file where a checkpoint folder belongs: a clear message, not a raw filesystem error.
    auto file = runCli({"eval", "--checkpoint", QString::fromStdString(project_.string())});
    QCOMPARE(file.exit_code, 1);
    QVERIFY2(file.err.contains("is a file, not a checkpoint folder"), qPrintable(file.err));
  }

  void editedTrainerStateIsSkippedOnResume_data() {
    QTest::addColumn<QString>("digit");  // a pattern whose group 1 is the digit that is changed
    QTest::newRow("data position") << R"("index": \d*(\d))";
    QTest::newRow("step") << R"("step": 4(0))";  // 40 -> 41
    QTest::newRow("pending loss") << R"("pending_loss_sum": (\d))";
  }
  // One digit edited in the newest checkpoint's trainer_state.json
  // (the data position, the step, the train-loss window) was resumed silently, "resumed from
  // ...step-00000040 at step 40" on other batches. Now the resume skips it, says why, and
  // starts from step 30.
  void editedTrainerStateIsSkippedOnResume() {
    QFETCH(QString, digit);
    const fs::path base = checkpointedRun();
    QVERIFY(!base.empty());
    const QString run_id = "edited-" + QString(QTest::currentDataTag()).replace(' ', '-');
    const fs::path run_dir = dir_ / "runs" / run_id.toStdString();
    fs::copy(base, run_dir, fs::copy_options::recursive);
    const fs::path state_file = run_dir / "checkpoints" / "step-00000040" / "trainer_state.json";
    QString state = QString::fromStdString(readFile(state_file));
    const QRegularExpressionMatch match = QRegularExpression(digit).match(state);
    QVERIFY2(match.hasMatch(), qPrintable(state));
    const int at = match.capturedStart(1);
    state[at] = QChar('0' + (state[at].digitValue() + 1) % 10);
    testing::writeText(state_file, state.toStdString());

    auto resumed =
        runCli({"train", q(project_), "--run", "mixer", "--run-id", run_id, "--resume", "--max-steps", "40"});
    const QString output = resumed.out + resumed.err;
    QVERIFY2(resumed.exit_code == 0, qPrintable(output));
    QVERIFY2(!output.contains("step-00000040 at step"), qPrintable(output));
    QVERIFY2(output.contains("skipped step-00000040 because") &&
                 output.contains("trainer_state.json: does not match the checksum in manifest.json"),
             qPrintable(output));
    QVERIFY2(output.contains("step-00000030 at step 30"), qPrintable(output));
    QCOMPARE(readTrainerState(run_dir / "checkpoints" / "step-00000040").step, int64_t{40});  // written anew
  }

  // A checkpoint folder left half-deleted by a kill during pruning
  // (only config.json, rng.pt and trainer_state.json) made eval and --fork-from fail with "cannot
  // open .../model.safetensors". Now both say the checkpoint is incomplete, which files are missing
  // and what to use instead; the fork writes no run; the run folder evaluates its latest checkpoint.
  void incompleteCheckpointIsCalledIncomplete() {
    const fs::path base = checkpointedRun();
    QVERIFY(!base.empty());
    const fs::path run_dir = dir_ / "runs" / "half-deleted";
    fs::copy(base, run_dir, fs::copy_options::recursive);
    const fs::path step30 = run_dir / "checkpoints" / "step-00000030";
    for (const char* name : {"model.safetensors", "optimizer.pt", "tokenizer.model", "manifest.json"}) {
      QVERIFY(fs::remove(step30 / name));
    }
    auto eval = runCli({"eval", "--checkpoint", q(step30), "--max-batches", "1"});
    auto fork = runCli({"train", q(project_), "--run", "mixer", "--run-id", "fork-of-half-deleted", "--fork-from",
                        q(step30), "--max-steps", "32"});
    for (const auto& refused : {eval, fork}) {
      QCOMPARE(refused.exit_code, 1);
      QVERIFY2(refused.err.contains("step-00000030 is incomplete") && refused.err.contains("model.safetensors") &&
                   refused.err.contains("optimizer.pt") && refused.err.contains("use another checkpoint"),
               qPrintable(refused.err));
      QVERIFY2(!refused.err.contains("cannot open"), qPrintable(refused.err));
    }
    QVERIFY(!fs::exists(dir_ / "runs" / "fork-of-half-deleted" / "run.json"));
    auto whole = runCli({"eval", "--checkpoint", q(run_dir), "--max-batches", "1"});
    QVERIFY2(whole.exit_code == 0, qPrintable(whole.err));
  }

  // `--run-id -rf` made a folder named "-rf" (an option to any shell command over the
  // runs), and a 300-character run id failed with a raw "File name too long" filesystem error.
  void runIdsAreShortAndNeverOptions() {
    auto option = runCli(
        {"train", QString::fromStdString(project_.string()), "--run", "mixer", "--run-id", "-rf", "--max-steps", "1"});
    QCOMPARE(option.exit_code, 1);
    QVERIFY2(option.err.contains("--run-id \"-rf\" starts with '-'"), qPrintable(option.err + option.out));
    QVERIFY(!fs::exists(project_.parent_path() / "runs" / "-rf"));
    const QString long_id(300, 'a');
    auto too_long = runCli({"train", QString::fromStdString(project_.string()), "--run", "mixer", "--run-id", long_id,
                            "--max-steps", "1"});
    QCOMPARE(too_long.exit_code, 1);
    QVERIFY2(too_long.err.contains("300 characters long, more than the 100"), qPrintable(too_long.err));
    QVERIFY2(!too_long.err.contains("filesystem error") && !too_long.err.contains(long_id), qPrintable(too_long.err));
  }

  // A one-character corpus made SentencePiece's trainer segfault (exit 139); 5,000
  // characters gave "corpus too small". `train` reaches the same check (test_tokenizer).
  void tokenizerTrainOnOneCharacterCorpusIsRefused() {
    const fs::path dir = dir_ / "one-character";
    testing::writeText(dir / "a.txt", std::string(50000, 'a'));
    const QString model = QString::fromStdString((dir / "a.model").string());
    auto result = runCli({"tokenizer", "train", "--corpus", QString::fromStdString((dir / "a.txt").string()),
                          "--vocab-size", "512", "--out", model});
    QCOMPARE(result.exit_code, 1);
    QVERIFY2(result.err.contains("a.txt: document 1 has a run of 50000 characters without a space") &&
                 result.err.contains("only 1 distinct character") && result.err.contains("32768"),
             qPrintable(result.err));
    QVERIFY(!fs::exists(dir / "a.model"));
  }

  // 100,000 nested arrays in a project's description crashed `info` (SIGSEGV) and
  // 60,000 echoed the whole 120 KB value in the error.
  void deeplyNestedProjectFileIsRefusedBriefly() {
    for (const int levels : {60000, 100000}) {
      std::string json = readFile(project_);
      json.replace(json.find('{'), 1, "{\"description\": " + std::string(levels, '[') + std::string(levels, ']') + ",");
      const fs::path deep = dir_ / "deep" / "project.json";
      testing::writeText(deep, json);
      auto info = runCli({"info", QString::fromStdString(deep.string()), "--run", "mixer"});
      QCOMPARE(info.exit_code, 1);
      QVERIFY2(info.err.contains("project.json:1:") && info.err.contains("nested deeper than 256 levels"),
               qPrintable(info.err.left(500)));
      QVERIFY2(info.err.size() < 500, qPrintable(info.err.left(500)));
    }
  }

  // Train.threads 1024 on 2 cores started 862 threads and made no progress in 120 s.
  void threadsFarAboveTheCoresAreRefused() {
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    if (4 * cores >= 1024) QSKIP("this machine has enough cores for 1024 threads");
    const fs::path project = testing::writeTinyProject(dir_ / "many-threads", R"(, "threads": 1024)");
    QElapsedTimer timer;
    timer.start();
    auto result = runCli({"train", QString::fromStdString(project.string()), "--run", "mixer"}, 60000);
    QCOMPARE(result.exit_code, 1);
    const QString expected = QString("train.threads is 1024 but this machine has %1 CPU core").arg(cores);
    const QString printed = result.out + result.err;  // the trainer's log line or the CLI's report
    QVERIFY2(printed.contains(expected) && printed.contains(QString("at most %1").arg(4 * cores)), qPrintable(printed));
    QVERIFY2(timer.elapsed() < 60000, "refused before the threads start, not after a hang");
    QVERIFY(!fs::exists(project.parent_path() / "runs" / "mixer"));  // before the run folder exists
  }

  // Numeric options say what is wrong in a line (not CLI11's 309-digit double bound), refuse an
  // integer too large for 64 bits instead of clamping it, and take the smallest value allowed;
  // an unknown --device is refused by the option and a device this machine lacks before any run
  // folder exists.
  void numbersAndDevicesAreCheckedAtTheDoor() {
    const QString project = QString::fromStdString(project_.string());
    // Every call here must be refused at once: a value let through would start a run, and the
    // bounded wait fails this function by name instead of hanging the program.
    constexpr int kRefusalMs = 60000;
    const auto zero = runCli({"train", project, "--run", "mixer", "--run-id", "zero", "--max-steps", "0"}, kRefusalMs);
    QVERIFY(zero.exit_code != 0);
    QVERIFY2(zero.err.contains("value 0 must be above 0") && !zero.err.contains("1797693"), qPrintable(zero.err));
    const auto huge = runCli(
        {"train", project, "--run", "mixer", "--run-id", "huge", "--max-steps", "99999999999999999999"}, kRefusalMs);
    QVERIFY(huge.exit_code != 0);
    QVERIFY2(huge.err.contains("value 99999999999999999999 is too large (at most 9223372036854775807)"),
             qPrintable(huge.err));
    const auto negative =
        runCli({"train", project, "--run", "mixer", "--run-id", "negative", "--threads", "-1"}, kRefusalMs);
    QVERIFY(negative.exit_code != 0);
    QVERIFY2(negative.err.contains("value -1 must be 0 or more"), qPrintable(negative.err));
    const auto word = runCli({"launch", "--nproc", "two", "--", "train", project, "--run", "mixer"}, kRefusalMs);
    QVERIFY(word.exit_code != 0);
    QVERIFY2(word.err.contains("value two is not a number"), qPrintable(word.err));
    const auto tpu = runCli({"train", project, "--run", "mixer", "--run-id", "tpu", "--device", "tpu"}, kRefusalMs);
    QVERIFY(tpu.exit_code != 0);
    QVERIFY2(tpu.err.contains("unknown device \"tpu\""), qPrintable(tpu.err));
    const auto one = runCli({"info", project, "--run", "mixer", "--batch-size", "1"}, kRefusalMs);
    QVERIFY2(one.exit_code == 0, qPrintable(one.err));
    for (const char* bad : {"0", "-1"}) {
      const auto refused = runCli({"info", project, "--run", "mixer", "--batch-size", bad}, kRefusalMs);
      QVERIFY2(refused.exit_code != 0 && refused.err.contains("must be above 0"), qPrintable(refused.err));
    }
    if (cudaDeviceCount() == 0) {
      const auto cuda =
          runCli({"train", project, "--run", "mixer", "--run-id", "no-gpu", "--device", "cuda"}, kRefusalMs);
      QVERIFY(cuda.exit_code != 0);
      QVERIFY2(cuda.err.contains("CUDA"), qPrintable(cuda.err));
      QVERIFY(!fs::exists(project_.parent_path() / "runs" / "no-gpu"));
    }
    for (const char* id : {"zero", "huge", "negative", "tpu"})
      QVERIFY2(!fs::exists(project_.parent_path() / "runs" / id), id);
  }

  // A write that fails for a reason other than space names that reason's fix: a path component
  // longer than the file system allows gets "a shorter path" from train (no raw filesystem error,
  // no "free disk space", no run folder), and each errno its own fix.
  void writeFailuresNameTheirOwnFix() {
    const std::string long_name(300, 'x');
    const auto too_long = runCli({"train", QString::fromStdString(project_.string()), "--run", "mixer", "--out",
                                  QString::fromStdString((dir_ / long_name).string()), "--max-steps", "1"});
    QVERIFY(too_long.exit_code != 0);
    QVERIFY2(too_long.err.contains("use a shorter path") && !too_long.err.contains("filesystem error") &&
                 !too_long.err.contains("free disk space"),
             qPrintable(too_long.err));
    QCOMPARE(writeErrorFix(ENOSPC), std::string("free disk space"));
    QCOMPARE(writeErrorFix(EDQUOT), std::string("free disk space"));
    QVERIFY(writeErrorFix(ENAMETOOLONG).find("shorter path") != std::string::npos);
    for (const int err : {EACCES, EPERM, EROFS}) QVERIFY(writeErrorFix(err).find("not writable") != std::string::npos);
    QVERIFY(writeErrorFix(EIO).find("check that the folder") != std::string::npos);
    const std::string atomic = testing::errorOf([&] { writeFileAtomic(dir_ / long_name, "x"); });
    QVERIFY2(atomic.find("use a shorter path") != std::string::npos, atomic.c_str());
  }
};

QTEST_GUILESS_MAIN(TestCli)
#include "test_cli.moc"
