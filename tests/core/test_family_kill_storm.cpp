// Kill storm over every model family: each family's tiny CLI run is killed (SIGKILL) at
// exact moments of its checkpoint life, through the MIXERLAB_CRASH_AT kill points: half-way through
// writing a checkpoint's files, half-way through pruning an old one, between pruning's rename and
// its deletes, and after a step folder is published but before latest.json names it; then once from
// outside at a random step. Each kill is followed by `train --resume`, and the run must end exactly
// as the same run trained without interruption: every metrics record once and equal (autoencoders,
// bidirectional models, dropout and the multi-token objective included), byte-identical final
// weights, no hidden folder left over. About 2 minutes on 2 cores for the 12 families.
#include <QtTest/QtTest>

#include <signal.h>

#include <chrono>
#include <random>
#include <thread>

#include "core/models/model_registry.h"
#include "core/runs/run_status.h"
#include "core/train/checkpoint.h"
#include "core/util/atomic_file.h"
#include "tests/kill_storm_support.h"
#include "tests/training_fixture.h"

using namespace mixerlab;
namespace fs = std::filesystem;

namespace {

constexpr int64_t kStormSteps = 40;

// Every family and objective the trainer runs, each as a run of one project (4 heads by default).
const char* const kFamilyRuns = R"([
  {"name": "masked_mixer", "model": {"arch": "masked_mixer"}},
  {"name": "mixer_multihead", "model": {"arch": "masked_mixer", "options": {"mixing": "multi_head", "mixing_heads": 2}}},
  {"name": "mixer_multi_token", "model": {"arch": "masked_mixer", "objective": "multi_token", "mtp_tokens": 2}},
  {"name": "mixer_completion", "model": {"arch": "masked_mixer", "objective": "one_step_completion"}},
  {"name": "llama", "model": {"arch": "llama"}},
  {"name": "gpt", "model": {"arch": "gpt", "options": {"dropout": 0.1}}},
  {"name": "transfixer", "model": {"arch": "transfixer", "options": {"conv_placement": "after_attention"}}},
  {"name": "mamba", "model": {"arch": "mamba", "options": {"d_state": 8}}},
  {"name": "mixer_autoencoder", "model": {"arch": "mixer_autoencoder"}},
  {"name": "transformer_autoencoder", "model": {"arch": "transformer_autoencoder"}},
  {"name": "bidirectional_mixer", "model": {"arch": "bidirectional_mixer"}},
  {"name": "bidirectional_transformer", "model": {"arch": "bidirectional_transformer"}}
])";

fs::path writeFamilyProject(const fs::path& dir) {
  const fs::path path = testing::writeTinyProject(
      dir,
      R"(, "max_steps": 40, "schedule_steps": 40, "checkpoint_every": 5, "keep_checkpoints": 2, "eval_every": 20, )"
      R"("eval_batches": 1)",
      32, 32);
  auto project = nlohmann::json::parse(readFile(path));
  project["defaults"]["model"]["n_heads"] = 4;
  project["runs"] = nlohmann::json::parse(kFamilyRuns);
  // A family or objective the list above does not name yet joins with its defaults, so a new one
  // is stormed without being added here.
  const auto named = [&](const std::string& key, const std::string& value) {
    for (const auto& run : project["runs"]) {
      if (run["model"].value(key, key == "objective" ? "next_token" : "") == value) return true;
    }
    return false;
  };
  for (const auto& info : architectures()) {
    if (!named("arch", info.name)) project["runs"].push_back({{"name", info.name}, {"model", {{"arch", info.name}}}});
  }
  for (const auto& objective : modelObjectiveNames()) {
    if (!named("objective", objective)) {
      project["runs"].push_back(
          {{"name", "mixer_" + objective}, {"model", {{"arch", "masked_mixer"}, {"objective", objective}}}});
    }
  }
  testing::writeText(path, project.dump(2));
  return path;
}

struct Ending {
  bool killed = false;  // ended by SIGKILL
  int exit_code = -1;
  QString output;
};

Ending trainOnce(const fs::path& project, const std::string& run, const fs::path& out, bool resume,
                 const QString& crash_at = QString()) {
  QProcess p;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  if (!crash_at.isEmpty()) env.insert("MIXERLAB_CRASH_AT", crash_at);
  p.setProcessEnvironment(env);
  p.setProcessChannelMode(QProcess::MergedChannels);
  p.start(QString::fromStdString(testing::cliPath().string()), testing::trainArgs(project, run, out, resume));
  p.waitForFinished(300000);
  Ending e;
  e.killed = p.exitStatus() == QProcess::CrashExit;
  e.exit_code = p.exitCode();
  e.output = QString::fromUtf8(p.readAll());
  return e;
}

// The step folders and hidden folders in checkpoints/, for messages.
QString checkpointListing(const fs::path& checkpoints) {
  QStringList names;
  std::error_code ec;
  for (fs::directory_iterator it(checkpoints, ec), end; !ec && it != end; it.increment(ec)) {
    names << QString::fromStdString(it->path().filename().string());
  }
  names.sort();
  return names.join(' ');
}

}  // namespace

class TestFamilyKillStorm : public QObject {
  Q_OBJECT
  fs::path dir_, project_;

  void writeProjectOnce() {
    if (!project_.empty()) return;
    dir_ = testing::makeScratchDir("family-kill-storm");
    project_ = writeFamilyProject(dir_);
  }

 private Q_SLOTS:
  void initTestCase() { writeProjectOnce(); }

  void everyFamilyResumesExactlyAfterKillsAtEveryCheckpointStage_data() {
    QTest::addColumn<QString>("run");
    // Every run of the written project: the list above and the families and objectives it joined.
    writeProjectOnce();
    const nlohmann::json project = nlohmann::json::parse(readFile(project_));
    for (const auto& run : project.at("runs")) {
      const std::string name = run.at("name").get<std::string>();
      QTest::newRow(name.c_str()) << QString::fromStdString(name);
    }
  }

  void everyFamilyResumesExactlyAfterKillsAtEveryCheckpointStage() {
    QFETCH(QString, run);
    const std::string name = run.toStdString();
    const fs::path reference = dir_ / "reference";
    const Ending uninterrupted = trainOnce(project_, name, reference, false);
    QVERIFY2(!uninterrupted.killed && uninterrupted.exit_code == 0, qPrintable(uninterrupted.output));

    const fs::path storm = dir_ / "storm";
    const fs::path run_dir = storm / name;
    const fs::path checkpoints = run_dir / "checkpoints";
    // Checkpoints every 5 steps, the newest 2 kept: the first pruning comes with step 15.
    struct Kill {
      const char* crash_at;
      const char* hidden_prefix;  // the hidden folder the kill must leave behind ("" for none)
    };
    const Kill kills[] = {
        {"checkpoint-file@3", ".partial-"},  // the first checkpoint: weights, optimizer and RNG written
        {"prune-file@2", ".pruned-"},        // step-5 pruned when step-15 lands, two files deleted
        {"checkpoint-published@2", ""},      // step-25 in place, latest.json still names step-20
        {"prune-renamed@1", ".pruned-"},     // redoing step-25: its old folder renamed, not deleted
        {"checkpoint-file@6", ".partial-"},  // step-25 again: its manifest written, the folder still hidden
    };
    bool resume = false;
    for (const Kill& kill : kills) {
      const Ending e = trainOnce(project_, name, storm, resume, kill.crash_at);
      QVERIFY2(e.killed, qPrintable(QString("%1: the run never reached the kill point (exit %2): %3")
                                        .arg(kill.crash_at)
                                        .arg(e.exit_code)
                                        .arg(e.output.right(600))));
      if (*kill.hidden_prefix != '\0') {
        QVERIFY2(testing::hiddenCheckpointFolderExists(checkpoints, kill.hidden_prefix),
                 qPrintable(QString("%1 left no %2 folder: %3")
                                .arg(kill.crash_at, kill.hidden_prefix, checkpointListing(checkpoints))));
      }
      resume = true;
    }
    // One more kill from outside, at a random step of what is left.
    std::mt19937 rng(static_cast<unsigned>(qHash(run)));
    const int64_t target = std::min<int64_t>(kStormSteps - 3, testing::lastLoggedStep(run_dir) + 1 + rng() % 8);
    QProcess child;
    child.start(QString::fromStdString(testing::cliPath().string()), testing::trainArgs(project_, name, storm, true));
    QVERIFY(child.waitForStarted());
    const auto give_up = std::chrono::steady_clock::now() + std::chrono::minutes(2);
    while (child.state() == QProcess::Running && testing::lastLoggedStep(run_dir) < target &&
           std::chrono::steady_clock::now() < give_up) {
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
    QVERIFY2(child.state() == QProcess::Running, "the run ended before its outside kill");
    ::kill(static_cast<pid_t>(child.processId()), SIGKILL);
    QVERIFY(child.waitForFinished(10000));

    const Ending last = trainOnce(project_, name, storm, true);
    QVERIFY2(!last.killed && last.exit_code == 0, qPrintable(last.output));
    const auto want = readMetrics(reference / name / "metrics.jsonl");
    const auto got = readMetrics(run_dir / "metrics.jsonl");
    QCOMPARE(got.size(), want.size());
    QCOMPARE(testing::comparableRecords(got), testing::comparableRecords(want));
    const fs::path weights = "checkpoints/step-00000040/model.safetensors";
    QVERIFY2(readFile(run_dir / weights) == readFile(reference / name / weights),
             "the resumed run's final weights differ from the uninterrupted run's");
    QCOMPARE(readRunStatus(run_dir)->state, RunState::Finished);
    QVERIFY2(!testing::hiddenCheckpointFolderExists(checkpoints, ".partial-") &&
                 !testing::hiddenCheckpointFolderExists(checkpoints, ".pruned-"),
             qPrintable(checkpointListing(checkpoints)));
    QCOMPARE(listCheckpoints(checkpoints).size(), size_t{2});
  }

  // A kill point that is not armed never fires (every normal run): the same run with a point that
  // does not exist, or a malformed hit count, trains to the end.
  void unarmedKillPointsNeverFire() {
    const fs::path out = dir_ / "unarmed";
    for (const QString& crash_at : {QString("no-such-point"), QString("checkpoint-file@x")}) {
      const Ending e = trainOnce(project_, "masked_mixer", out / crash_at.toStdString(), false, crash_at);
      QVERIFY2(!e.killed && e.exit_code == 0, qPrintable(crash_at + ": " + e.output.right(600)));
    }
  }
};

QTEST_GUILESS_MAIN(TestFamilyKillStorm)
#include "test_family_kill_storm.moc"
