// Reliability tests of the trainer and its run directory, in-process on the tiny demo
// project: a checkpoint write that hits the file-size limit (a full disk, as far as the writer can
// tell) fails the run cleanly with no .partial folder and the previous checkpoint intact, and the
// run resumes; stale .partial and .pruned folders are removed on resume; a second trainer on a
// running run is refused by the run lock without touching the run; an empty eval split fails at
// start; damaged weights fail their checksum; a damaged, edited or incomplete latest checkpoint
// (any file against the manifest, the state's step against the folder, a missing
// trainer_state.json) falls back to the newest intact one and says why; every checkpoint file is in
// the manifest; older checkpoints without one still resume; pruning renames a folder away before
// deleting it; "." / ".." / path run ids and a latest.json pointing outside the run are refused;
// status.json follows the step while training and keeps it after a failed resume; unreadable
// metrics lines are reported on resume; a diverging run that stays finite finishes with a warning.
#include <torch/torch.h>
#include <QRegularExpression>
#include <QtTest/QtTest>

#include <sys/inotify.h>
#include <sys/resource.h>
#include <unistd.h>

#include <condition_variable>
#include <csignal>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>

#include "core/analysis/checkpoint_eval.h"
#include "core/config/project_config.h"
#include "core/models/safetensors.h"
#include "core/runs/metrics_log.h"
#include "core/runs/run_status.h"
#include "core/train/checkpoint.h"
#include "core/train/trainer.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/hashing.h"
#include "tests/training_fixture.h"

using namespace mixerlab;
namespace fs = std::filesystem;

namespace {

TrainRequest request(const ProjectConfig& project, const std::string& run, const fs::path& dir, bool resume) {
  TrainRequest r;
  r.project = &project;
  r.run = project.run(run);
  r.run_dir = dir;
  r.resume = resume;
  return r;
}

TrainOutcome train(const ProjectConfig& project, const std::string& run, const fs::path& dir, bool resume,
                   int64_t stop_after_step = 0, std::vector<std::string>* log = nullptr) {
  std::atomic<bool> stop{false};
  TrainRequest r = request(project, run, dir, resume);
  r.stop_requested = &stop;
  r.on_progress = [&](const TrainProgress& p) {
    if (stop_after_step > 0 && p.step >= stop_after_step) stop = true;
  };
  if (log != nullptr) r.on_log = [log](const std::string& line) { log->push_back(line); };
  return trainRun(r);
}

QString joined(const std::vector<std::string>& lines) {
  QString out;
  for (const auto& l : lines) out += QString::fromStdString(l) + "\n";
  return out;
}

// Limits the size of any file this process writes (RLIMIT_FSIZE) for its lifetime; writes past it
// fail with EFBIG (SIGXFSZ ignored), which the writers see as they would a full disk.
class FileSizeLimit {
 public:
  explicit FileSizeLimit(rlim_t bytes) {
    getrlimit(RLIMIT_FSIZE, &saved_);
    std::signal(SIGXFSZ, SIG_IGN);
    rlimit limit = saved_;
    limit.rlim_cur = bytes;
    setrlimit(RLIMIT_FSIZE, &limit);
  }
  ~FileSizeLimit() { setrlimit(RLIMIT_FSIZE, &saved_); }

 private:
  rlimit saved_{};
};

void flipAByte(const fs::path& file, size_t from_end) {
  std::string bytes = readFile(file);
  bytes[bytes.size() - from_end] ^= 0x5a;
  std::ofstream(file, std::ios::binary | std::ios::trunc) << bytes;
}

// Rewrites a JSON file with `edit` applied, formatted as the checkpoint writer formats it (so only
// the edited value differs, as in a hand edit).
void editJson(const fs::path& file, const std::function<void(nlohmann::json&)>& edit) {
  nlohmann::json j = nlohmann::json::parse(readFile(file));
  edit(j);
  testing::writeText(file, j.dump(2) + "\n");
}

// Turns a checkpoint into one written before manifests: no manifest.json, no checkpoint_format, and
// the checksums of optimizer.pt and rng.pt in trainer_state.json.
void makeOlderFormat(const fs::path& checkpoint) {
  fs::remove(checkpoint / "manifest.json");
  editJson(checkpoint / "trainer_state.json", [&](nlohmann::json& state) {
    state.erase("checkpoint_format");
    state["file_fnv1a64"] = {{"optimizer.pt", hashHex(readFile(checkpoint / "optimizer.pt"))},
                             {"rng.pt", hashHex(readFile(checkpoint / "rng.pt"))}};
  });
}

// The folders that left a directory, as the kernel reports them (inotify): "deleted NAME" for a
// deletion, "moved NAME" for a rename away.
class FolderExits {
 public:
  explicit FolderExits(const fs::path& dir) : fd_(inotify_init1(IN_NONBLOCK | IN_CLOEXEC)) {
    if (fd_ >= 0 && inotify_add_watch(fd_, dir.c_str(), IN_DELETE | IN_MOVED_FROM) < 0) {
      ::close(fd_);
      fd_ = -1;
    }
  }
  ~FolderExits() {
    if (fd_ >= 0) ::close(fd_);
  }
  bool watching() const { return fd_ >= 0; }
  // The events since the last call ("queue overflow" if the kernel dropped some).
  QStringList take() {
    QStringList out;
    alignas(inotify_event) char buffer[64 * 1024];
    for (ssize_t n; (n = ::read(fd_, buffer, sizeof buffer)) > 0;) {
      for (ssize_t at = 0; at < n;) {
        const auto* event = reinterpret_cast<const inotify_event*>(buffer + at);
        if (event->mask & IN_Q_OVERFLOW) out << "queue overflow";
        if (event->len > 0) out << QString((event->mask & IN_DELETE) ? "deleted " : "moved ") + event->name;
        at += static_cast<ssize_t>(sizeof(inotify_event) + event->len);
      }
    }
    return out;
  }

 private:
  int fd_ = -1;
};

}  // namespace

class TestReliability : public QObject {
  Q_OBJECT
  fs::path dir_;
  ProjectConfig project_;

  // The uninterrupted run the resumed ones must end like (trained once).
  fs::path wholeRun() {
    const fs::path whole = dir_ / "runs" / "whole";
    if (!fs::exists(whole / "status.json") && train(project_, "mixer", whole, false).state != RunState::Finished) {
      throw std::runtime_error("the uninterrupted run did not finish");
    }
    return whole;
  }

 private Q_SLOTS:
  void initTestCase() {
    at::set_num_threads(2);
    dir_ = testing::makeScratchDir("reliability");
    project_ = loadProject(testing::writeTinyProject(dir_));
  }

  // The optimizer state (the largest file) no longer fits: the run fails with a message naming the
  // checkpoint, the status says failed at the step reached, no .partial folder stays, the previous
  // checkpoint is the latest, and once the disk has room the run resumes and finishes.
  void checkpointWriteFailureFailsCleanly() {
    const fs::path dir = dir_ / "runs" / "full-disk";
    QCOMPARE(train(project_, "mixer", dir, false, 4).state, RunState::Stopped);
    const fs::path step4 = *latestCheckpoint(dir / "checkpoints");
    const auto optimizer_bytes = fs::file_size(step4 / "optimizer.pt");
    const auto model_bytes = fs::file_size(step4 / "model.safetensors");
    QVERIFY(model_bytes < optimizer_bytes);
    bool threw = false;
    {
      const FileSizeLimit limit((model_bytes + optimizer_bytes) / 2);
      try {
        train(project_, "mixer", dir, true);
      } catch (const MixerLabError& e) {
        threw = true;
        QVERIFY2(QString(e.what()).contains("cannot write checkpoint") || QString(e.what()).contains("optimizer.pt"),
                 e.what());
      }
    }
    QVERIFY(threw);
    const auto status = readRunStatus(dir);
    QCOMPARE(status->state, RunState::Failed);
    QCOMPARE(status->step, int64_t{8});  // it had trained to the step-8 checkpoint
    for (const auto& entry : fs::directory_iterator(dir / "checkpoints")) {
      QVERIFY2(entry.path().filename().string().rfind(".partial", 0) != 0, entry.path().c_str());
    }
    QCOMPARE(*latestCheckpoint(dir / "checkpoints"), step4);
    QCOMPARE(train(project_, "mixer", dir, true).state, RunState::Finished);
    QCOMPARE(readMetrics(dir / "metrics.jsonl").back().step, int64_t{12});
  }

  // A kill while a checkpoint was written leaves a .partial folder, one while an old checkpoint
  // was deleted a .pruned folder: both are removed, and logged, at the next start.
  void stalePartialFoldersAreRemovedOnResume() {
    const fs::path dir = dir_ / "runs" / "partial";
    QCOMPARE(train(project_, "mixer", dir, false, 4).state, RunState::Stopped);
    for (const char* stale : {".partial-step-00000008", ".pruned-step-00000002"}) {
      fs::create_directories(dir / "checkpoints" / stale);
      writeFileAtomic(dir / "checkpoints" / stale / "model.safetensors", std::string(4096, 'x'));
    }
    QCOMPARE(listCheckpoints(dir / "checkpoints").size(), size_t{1});  // hidden folders are not checkpoints
    std::vector<std::string> log;
    QCOMPARE(train(project_, "mixer", dir, true, 0, &log).state, RunState::Finished);
    QVERIFY(!fs::exists(dir / "checkpoints" / ".partial-step-00000008"));
    QVERIFY(!fs::exists(dir / "checkpoints" / ".pruned-step-00000002"));
    QVERIFY2(joined(log).contains("removed .partial-step-00000008"), qPrintable(joined(log)));
    QVERIFY2(joined(log).contains("removed .pruned-step-00000002"), qPrintable(joined(log)));
  }

  // While a run trains, a second trainer of the same run directory (a resume, or a fresh start)
  // is refused naming the holder, and writes nothing there: the first run's status stays its own.
  void secondTrainerIsRefusedByTheLock() {
    const fs::path dir = dir_ / "runs" / "locked";
    std::mutex m;
    std::condition_variable cv;
    bool at_step_2 = false, release = false;
    std::atomic<bool> stop{false};
    TrainRequest first = request(project_, "mixer", dir, false);
    first.stop_requested = &stop;
    first.on_progress = [&](const TrainProgress& p) {
      if (p.step != 2) return;
      std::unique_lock<std::mutex> lock(m);
      at_step_2 = true;
      cv.notify_all();
      cv.wait(lock, [&] { return release; });
    };
    TrainOutcome first_outcome;
    std::thread runner([&] { first_outcome = trainRun(first); });
    {
      std::unique_lock<std::mutex> lock(m);
      QVERIFY(cv.wait_for(lock, std::chrono::minutes(2), [&] { return at_step_2; }));
    }
    const auto before = readFile(dir / "status.json");
    for (const bool resume : {true, false}) {
      try {
        trainRun(request(project_, "mixer", dir, resume));
        QFAIL("a second trainer was allowed");
      } catch (const MixerLabError& e) {
        QVERIFY2(QString(e.what()).contains("is in use by pid"), e.what());
      }
    }
    QCOMPARE(readFile(dir / "status.json"), before);
    {
      std::lock_guard<std::mutex> lock(m);
      release = true;
    }
    cv.notify_all();
    runner.join();
    QCOMPARE(first_outcome.state, RunState::Finished);
    QCOMPARE(readRunStatus(dir)->state, RunState::Finished);
    QCOMPARE(train(project_, "mixer", dir, true).state, RunState::Finished);  // the lock went with the run
  }

  void emptyEvalSplitFailsAtStart() {
    const fs::path project_dir = dir_ / "short-eval";
    fs::create_directories(project_dir);
    testing::writeText(project_dir / "eval.txt", "Tom had a red ball.\n");
    const fs::path file = testing::writeTinyProject(project_dir);
    std::string json = readFile(file);
    const std::string eval_path = (testing::sourceDir() / "projects/demo/data/stories-a.txt").string();
    json.replace(json.find(eval_path), eval_path.size(), (project_dir / "eval.txt").string());
    testing::writeText(file, json);
    const ProjectConfig project = loadProject(file);
    try {
      train(project, "mixer", project_dir / "runs" / "mixer", false);
      QFAIL("a run without eval examples started");
    } catch (const MixerLabError& e) {
      QVERIFY2(QString(e.what()).contains("the eval split gives no example"), e.what());
      QVERIFY(QString(e.what()).contains("context_length"));
    }
    QCOMPARE(readRunStatus(project_dir / "runs" / "mixer")->state, RunState::Failed);
  }

  void damagedWeightsFailTheirChecksum() {
    const fs::path dir = dir_ / "runs" / "checksum";
    QCOMPARE(train(project_, "mixer", dir, false, 4).state, RunState::Stopped);
    const fs::path weights = *latestCheckpoint(dir / "checkpoints") / "model.safetensors";
    QVERIFY(loadSafetensors(weights).metadata.count(kSafetensorsChecksumKey) == 1);
    flipAByte(weights, 100);  // inside the last tensor's bytes
    try {
      loadSafetensors(weights);
      QFAIL("damaged weights loaded");
    } catch (const MixerLabError& e) {
      QVERIFY2(QString(e.what()).contains("does not match its checksum"), e.what());
      QVERIFY(QString(e.what()).contains("model.safetensors"));
    }
  }

  // NaN weights that were saved intact (a valid checksum) used to give `"eval_loss": null` and exit 0.
  void evalOfNonFiniteWeightsFails() {
    const fs::path dir = dir_ / "runs" / "nan-eval";
    QCOMPARE(train(project_, "mixer", dir, false, 4).state, RunState::Stopped);
    const fs::path checkpoint = *latestCheckpoint(dir / "checkpoints");
    auto file = loadSafetensors(checkpoint / "model.safetensors");
    file.tensors["wte.weight"].fill_(std::numeric_limits<float>::quiet_NaN());
    saveSafetensors(checkpoint / "model.safetensors", file.tensors, file.metadata);
    writeCheckpointManifest(checkpoint);  // saved intact: the manifest vouches for the NaN weights
    try {
      evaluateCheckpoint(checkpoint, 1);
      QFAIL("a non-finite eval loss was reported as a result");
    } catch (const MixerLabError& e) {
      QVERIFY2(QString(e.what()).contains("non-finite logits"), e.what());
    }
  }

  // Found by fuzz/metrics_fuzzer and fuzz/checkpoint_state_fuzzer: a float too large for int64_t
  // read as "step" was converted with undefined behaviour. Now the metrics line is unreadable
  // (counted) and the trainer state malformed (a clear error); an integral float still reads.
  void outOfRangeIntegersAreRejected() {
    int skipped = 0;
    const auto records = parseMetricsText("{\"step\": 6.6e20}\n{\"step\": 3.0, \"tokens\": 1e3}\n", &skipped);
    QCOMPARE(skipped, 1);
    QCOMPARE(records.size(), size_t{1});
    QCOMPARE(records[0].step, int64_t{3});
    QCOMPARE(records[0].tokens, int64_t{1000});
    const std::string state =
        R"({"step": 6.1e32, "tokens": 0, "wall_s": 0, "data_position": {"epoch": 0, "index": 0}})";
    try {
      parseTrainerState(state, "fuzz/trainer_state.json");
      QFAIL("an out-of-range step was accepted");
    } catch (const MixerLabError& e) {
      QVERIFY2(QString(e.what()).contains("\"step\" is 6.1e+32"), e.what());
    }
    QCOMPARE(
        parseTrainerState(R"({"step": 7.0, "tokens": 2, "wall_s": 0, "data_position": {"epoch": 1, "index": 4}})", "s")
            .step,
        int64_t{7});
  }

  void damagedLatestCheckpointFallsBack_data() {
    QTest::addColumn<QString>("file");
    QTest::addColumn<QString>("damage");
    QTest::addColumn<QString>("reason");  // in the log's "skipped step-00000008 because ..."
    QTest::newRow("weights") << "model.safetensors"
                             << "flip a byte"
                             << "does not match the checksum";
    QTest::newRow("optimizer") << "optimizer.pt"
                               << "flip a byte"
                               << "does not match the checksum";
    QTest::newRow("rng") << "rng.pt"
                         << "flip a byte"
                         << "does not match the checksum";
    QTest::newRow("trainer state") << "trainer_state.json"
                                   << "truncate"
                                   << "trainer_state.json";
    // Edits that leave valid JSON were resumed silently (other batches, the
    // wrong step, a train loss of 128).
    QTest::newRow("data position edited") << "trainer_state.json"
                                          << "edit data_position"
                                          << "manifest.json";
    QTest::newRow("step edited") << "trainer_state.json"
                                 << "edit step"
                                 << "manifest.json";
    QTest::newRow("pending loss edited") << "trainer_state.json"
                                         << "edit pending_loss_sum"
                                         << "manifest.json";
    // A whole checkpoint of another step in the step-8 folder (a copy or rename by hand).
    QTest::newRow("checkpoint of another step") << "trainer_state.json"
                                                << "copy step 4"
                                                << "says step 4 but its folder is step-00000008";
    // A missing trainer state was passed over without a word.
    QTest::newRow("trainer state missing") << "trainer_state.json"
                                           << "delete"
                                           << "trainer_state.json is missing";
    QTest::newRow("manifest missing") << "manifest.json"
                                      << "delete"
                                      << "manifest.json is missing";
    QTest::newRow("weights missing") << "model.safetensors"
                                     << "delete"
                                     << "model.safetensors is missing";
  }
  // With the step-8 checkpoint damaged, a resume starts from step 4, says which checkpoint it
  // skipped and why, and ends exactly as an uninterrupted run (the same final eval loss).
  void damagedLatestCheckpointFallsBack() {
    QFETCH(QString, file);
    QFETCH(QString, damage);
    QFETCH(QString, reason);
    const fs::path dir =
        dir_ / "runs" / ("fallback-" + QString(QTest::currentDataTag()).replace(' ', '-').toStdString());
    QCOMPARE(train(project_, "mixer", dir, false, 8).state, RunState::Stopped);
    const fs::path step8 = *latestCheckpoint(dir / "checkpoints");
    QVERIFY(step8.filename() == "step-00000008");
    const fs::path target = step8 / file.toStdString();
    if (damage == "flip a byte") {
      flipAByte(target, 40);
    } else if (damage == "truncate") {
      testing::writeText(target, "{\"step\": ");
    } else if (damage == "edit data_position") {
      editJson(target,
               [](nlohmann::json& j) { j["data_position"]["index"] = j["data_position"]["index"].get<int64_t>() + 1; });
    } else if (damage == "edit step") {
      editJson(target, [](nlohmann::json& j) { j["step"] = 9; });
    } else if (damage == "edit pending_loss_sum") {
      editJson(target, [](nlohmann::json& j) {
        j["pending_loss_sum"] = 128.0 * std::max<int64_t>(1, j["pending_loss_steps"].get<int64_t>());
      });
    } else if (damage == "copy step 4") {
      fs::remove_all(step8);
      fs::copy(dir / "checkpoints" / "step-00000004", step8, fs::copy_options::recursive);
    } else {
      QCOMPARE(damage, QString("delete"));
      QVERIFY(fs::remove(target));
    }
    std::vector<std::string> log;
    QCOMPARE(train(project_, "mixer", dir, true, 0, &log).state, RunState::Finished);
    QVERIFY2(joined(log).contains("resuming from the newest intact checkpoint, step-00000004; skipped step-00000008 "
                                  "because"),
             qPrintable(joined(log)));
    QVERIFY2(joined(log).contains(file) && joined(log).contains(reason), qPrintable(joined(log)));
    const auto a = readMetrics(wholeRun() / "metrics.jsonl"), b = readMetrics(dir / "metrics.jsonl");
    QCOMPARE(b.size(), a.size());
    QCOMPARE(*b.back().eval_loss, *a.back().eval_loss);
  }

  // Every file of a checkpoint is in its manifest, and the files a resume does
  // not read are checked by the readers that do (config.json: eval, fork; tokenizer.model: score,
  // generate, invert).
  void everyCheckpointFileIsInTheManifest() {
    const fs::path dir = dir_ / "runs" / "manifest";
    QCOMPARE(train(project_, "mixer", dir, false, 4).state, RunState::Stopped);
    const fs::path checkpoint = *latestCheckpoint(dir / "checkpoints");
    std::set<std::string> listed, present;
    const nlohmann::json manifest = nlohmann::json::parse(readFile(checkpoint / "manifest.json"));
    for (const auto& [name, entry] : manifest.at("files").items()) listed.insert(name);
    for (const auto& entry : fs::directory_iterator(checkpoint)) present.insert(entry.path().filename().string());
    present.erase("manifest.json");
    QVERIFY(listed == present);
    for (const char* name :
         {"model.safetensors", "optimizer.pt", "rng.pt", "config.json", "tokenizer.model", "trainer_state.json"}) {
      QVERIFY2(listed.count(name) == 1, name);
    }
    for (const std::string name : {"config.json", "tokenizer.model"}) {
      const fs::path copy = dir_ / "runs" / ("manifest-" + name) / "checkpoints" / checkpoint.filename();
      fs::create_directories(copy.parent_path());
      fs::copy(checkpoint, copy, fs::copy_options::recursive);
      flipAByte(copy / name, 10);
      try {
        if (name == "config.json") readCheckpointConfig(copy);
        if (name == "tokenizer.model") checkpointTokenizerFile(copy);
        QFAIL(qPrintable(QString::fromStdString(name) + " was read although it was damaged"));
      } catch (const MixerLabError& e) {
        QVERIFY2(
            QString(e.what()).contains(QString::fromStdString(name) + ": does not match the checksum in manifest.json"),
            e.what());
      }
    }
  }

  // Checkpoints written before manifests still resume exactly. Half-deleted by the old pruning (only
  // config.json, rng.pt and trainer_state.json left), one is called incomplete by eval, naming the
  // missing weights, and a fork from it is refused before it writes the new run.
  void olderCheckpointsStillLoad() {
    const fs::path dir = dir_ / "runs" / "older-format";
    QCOMPARE(train(project_, "mixer", dir, false, 8).state, RunState::Stopped);
    for (const fs::path& checkpoint : listCheckpoints(dir / "checkpoints")) makeOlderFormat(checkpoint);
    std::vector<std::string> log;
    QCOMPARE(train(project_, "mixer", dir, true, 0, &log).state, RunState::Finished);
    QVERIFY2(joined(log).contains("step-00000008 at step 8"), qPrintable(joined(log)));
    const auto a = readMetrics(wholeRun() / "metrics.jsonl"), b = readMetrics(dir / "metrics.jsonl");
    QCOMPARE(b.size(), a.size());
    QCOMPARE(*b.back().eval_loss, *a.back().eval_loss);

    const fs::path older = dir / "checkpoints" / "step-00000008";
    QVERIFY(!fs::exists(older / "manifest.json"));
    for (const char* name : {"model.safetensors", "optimizer.pt", "tokenizer.model"}) fs::remove(older / name);
    try {
      evaluateCheckpoint(older, 1);
      QFAIL("an incomplete checkpoint was evaluated");
    } catch (const MixerLabError& e) {
      QVERIFY2(QString(e.what()).contains("is incomplete: model.safetensors is missing"), e.what());
      QVERIFY(!QString(e.what()).contains("cannot open"));
    }
    TrainRequest fork = request(project_, "mixer", dir_ / "runs" / "fork-of-older", false);
    fork.fork_from = older;
    try {
      trainRun(fork);
      QFAIL("forked from an incomplete checkpoint");
    } catch (const MixerLabError& e) {
      QVERIFY2(QString(e.what()).contains("is incomplete: model.safetensors, optimizer.pt are missing"), e.what());
    }
    QVERIFY(!fs::exists(dir_ / "runs" / "fork-of-older" / "run.json"));
  }

  // A step folder only ever leaves checkpoints/ by a rename to a hidden name (and
  // is deleted there), both when it is pruned and when a redone step replaces it, so a kill while
  // its files are deleted cannot leave a step folder with some of them. Seen through inotify.
  void pruningRenamesFoldersAwayBeforeDeleting() {
    const fs::path dir = dir_ / "runs" / "pruning";
    fs::create_directories(dir / "checkpoints");
    FolderExits exits(dir / "checkpoints");
    QVERIFY(exits.watching());
    QCOMPARE(train(project_, "mixer", dir, false, 8).state, RunState::Stopped);
    flipAByte(dir / "checkpoints" / "step-00000008" / "optimizer.pt", 40);    // redone from step 4: replaced
    QCOMPARE(train(project_, "mixer", dir, true).state, RunState::Finished);  // step 12 prunes step 4
    const QStringList seen = exits.take();
    QVERIFY2(seen.filter(QRegularExpression("^deleted step-|queue overflow")).isEmpty(), qPrintable(seen.join(", ")));
    QVERIFY2(seen.contains("moved step-00000004") && seen.contains("moved step-00000008"), qPrintable(seen.join(", ")));
    std::vector<std::string> kept;
    for (const auto& entry : fs::directory_iterator(dir / "checkpoints")) {
      kept.push_back(entry.path().filename().string());
    }
    std::sort(kept.begin(), kept.end());
    QCOMPARE(kept, (std::vector<std::string>{"latest.json", "step-00000008", "step-00000012"}));
  }

  // A reader of a live run whose checkpoint is pruned while it reads (the folder renamed away, a
  // file then missing) reads the run's newest checkpoint instead, never reporting damage; a step
  // folder the caller named gets a message saying it was pruned; a fault with the folder in place
  // (a really missing file) is reported as it was.
  void checkpointPrunedWhileReadIsNotDamage() {
    const fs::path dir = dir_ / "runs" / "pruned-while-read";
    QCOMPARE(train(project_, "mixer", dir, false).state, RunState::Finished);  // steps 4 (pruned), 8, 12
    const fs::path step8 = dir / "checkpoints" / "step-00000008", step12 = dir / "checkpoints" / "step-00000012";
    QVERIFY(fs::exists(step8) && fs::exists(step12));
    std::vector<fs::path> read_from;
    const auto pruneFirstRead = [&](const fs::path& checkpoint) {
      read_from.push_back(checkpoint);
      if (read_from.size() == 1) {
        fs::rename(checkpoint, checkpoint.parent_path() / (".pruned-" + checkpoint.filename().string()));
        throw MixerLabError("checkpoint " + checkpoint.string() + " is incomplete: model.safetensors is missing");
      }
      return readTrainerState(checkpoint).step;
    };
    QCOMPARE(readResolvedCheckpoint(dir, pruneFirstRead), int64_t{8});
    QCOMPARE(read_from, (std::vector<fs::path>{step12, step8}));
    read_from.clear();
    const std::string named = testing::errorOf([&] { readResolvedCheckpoint(step8, pruneFirstRead); });
    QVERIFY2(named.find("checkpoint " + step8.string() + " was removed while it was read") != std::string::npos &&
                 named.find("fix: pass the run folder") != std::string::npos,
             named.c_str());
    QCOMPARE(read_from.size(), size_t{1});
    // Damage, the folder in place: reported, not retried.
    const fs::path other = dir_ / "runs" / "damaged-in-place";
    QCOMPARE(train(project_, "mixer", other, false).state, RunState::Finished);
    int reads = 0;
    const std::string damaged = testing::errorOf([&] {
      readResolvedCheckpoint(other, [&](const fs::path& checkpoint) -> int64_t {
        ++reads;
        throw MixerLabError("checkpoint " + checkpoint.string() + " is damaged");
      });
    });
    QVERIFY2(damaged.find("is damaged") != std::string::npos, damaged.c_str());
    QCOMPARE(reads, 1);
  }

  void runFoldersStayInsideTheRunsFolder() {
    for (const char* id : {".", "..", ".hidden"}) {
      try {
        train(project_, "mixer", dir_ / "runs" / id, false);
        QFAIL(id);
      } catch (const MixerLabError& e) {
        QVERIFY2(QString(e.what()).contains("run folder name"), e.what());
      }
    }
    for (const char* name : {".", ".."}) {
      std::string json = readFile(dir_ / "project.json");
      json.replace(json.find("\"name\": \"mixer\""), 15, std::string("\"name\": \"") + name + "\"");
      testing::writeText(dir_ / "bad-names.json", json);
      try {
        loadProject(dir_ / "bad-names.json");
        QFAIL(name);
      } catch (const MixerLabError& e) {
        QVERIFY2(QString(e.what()).contains("starts with '.'"), e.what());
      }
    }
    // latest.json naming a folder outside the run is ignored in favour of the run's own checkpoints.
    const fs::path dir = dir_ / "runs" / "latest-outside";
    QCOMPARE(train(project_, "mixer", dir, false, 4).state, RunState::Stopped);
    fs::create_directories(dir_ / "outside");
    testing::writeText(dir_ / "outside" / "trainer_state.json", "{}");
    testing::writeText(dir / "checkpoints" / "latest.json", "{\"checkpoint\": \"../../../outside\", \"step\": 99}");
    QCOMPARE(latestCheckpoint(dir / "checkpoints")->filename().string(), std::string("step-00000004"));
  }

  // status.json has the step while training (checkpoint at step 4 seen at step 5), and a resume
  // that fails before it restores anything keeps the step the run had reached.
  void statusFollowsTheStep() {
    const fs::path dir = dir_ / "runs" / "status";
    int64_t seen_at_5 = -1;
    std::atomic<bool> stop{false};
    TrainRequest r = request(project_, "mixer", dir, false);
    r.stop_requested = &stop;
    r.on_progress = [&](const TrainProgress& p) {
      if (p.step == 5) seen_at_5 = readRunStatus(dir)->step;
      if (p.step >= 8) stop = true;
    };
    QCOMPARE(trainRun(r).state, RunState::Stopped);
    QCOMPARE(seen_at_5, int64_t{4});
    QCOMPARE(readRunStatus(dir)->step, int64_t{8});
    for (const fs::path& c : listCheckpoints(dir / "checkpoints")) flipAByte(c / "optimizer.pt", 40);
    try {
      train(project_, "mixer", dir, true);
      QFAIL("resumed from damaged checkpoints");
    } catch (const MixerLabError& e) {
      QVERIFY2(QString(e.what()).contains("no checkpoint of"), e.what());
      QVERIFY(QString(e.what()).contains("optimizer.pt"));
      QVERIFY(!QString(e.what()).contains("frame #"));  // no C++ stack trace in the message
    }
    const auto status = readRunStatus(dir);
    QCOMPARE(status->state, RunState::Failed);
    QCOMPARE(status->step, int64_t{8});
  }

  void unreadableMetricsLinesAreReported() {
    const fs::path dir = dir_ / "runs" / "metrics-lines";
    QCOMPARE(train(project_, "mixer", dir, false, 4).state, RunState::Stopped);
    std::string text = readFile(dir / "metrics.jsonl");
    text.insert(text.find('\n') + 1, "{\"step\": 1, garbage\n");
    testing::writeText(dir / "metrics.jsonl", text);
    std::vector<std::string> log;
    QCOMPARE(train(project_, "mixer", dir, true, 0, &log).state, RunState::Finished);
    QVERIFY2(joined(log).contains("1 unreadable line(s)"), qPrintable(joined(log)));
  }

  // A model far larger than this machine's memory is refused before anything is allocated, with
  // the estimate and what to lower (it used to end in a raw allocator error).
  void oversizedModelIsRefusedWithAnEstimate() {
    ProjectConfig project = project_;
    for (RunConfig& run : project.runs) {
      run.model.d_model = 32768;
      run.model.n_layers = 64;
    }
    const fs::path dir = dir_ / "runs" / "oversized";
    try {
      train(project, "mixer", dir, false);
      QFAIL("an oversized model started");
    } catch (const MixerLabError& e) {
      QVERIFY2(QString(e.what()).contains("needs about") && QString(e.what()).contains("available"), e.what());
      QVERIFY(QString(e.what()).contains("batch_size"));
    }
    QCOMPARE(readRunStatus(dir)->state, RunState::Failed);
  }

  // Learning rate 0.3 without clipping sends the tiny mixer's loss far above ln(512) while it stays
  // finite: the run finishes, with the warning in the log and in its final status.
  void divergingRunFinishesWithAWarning() {
    ProjectConfig project = project_;
    for (RunConfig& run : project.runs) {
      run.train.learning_rate = 0.3;
      run.train.grad_clip_norm = 0;
    }
    const fs::path dir = dir_ / "runs" / "diverging";
    std::vector<std::string> log;
    // While it trains on past the warning, its status says so (the runs table marks it then).
    std::vector<std::string> running_reasons;
    TrainRequest r = request(project, "mixer", dir, false);
    r.on_log = [&log](const std::string& line) { log.push_back(line); };
    r.on_progress = [&](const TrainProgress&) {
      const auto status = readRunStatus(dir);
      if (status && status->state == RunState::Running && !status->reason.empty())
        running_reasons.push_back(status->reason);
    };
    const TrainOutcome outcome = trainRun(r);
    if (outcome.state == RunState::Failed)
      QSKIP(qPrintable("the loss became non-finite: " + QString::fromStdString(outcome.reason)));
    QCOMPARE(outcome.state, RunState::Finished);
    QVERIFY2(joined(log).contains("has probably diverged"), qPrintable(joined(log)));
    QVERIFY(QString::fromStdString(readRunStatus(dir)->reason).startsWith("warning: "));
    QVERIFY(!running_reasons.empty());
    QVERIFY2(running_reasons.back().rfind("warning: train loss ", 0) == 0, running_reasons.back().c_str());
    // train.stop_on_divergence: the same run fails at the first diverged record, before its budget,
    // with the warning as its reason.
    for (RunConfig& run : project.runs) run.train.stop_on_divergence = true;
    const fs::path stopped_dir = dir_ / "runs" / "diverging-stopped";
    const TrainOutcome stopped = train(project, "mixer", stopped_dir, false);
    QCOMPARE(stopped.state, RunState::Failed);
    QVERIFY2(stopped.reason.rfind("diverged: train loss ", 0) == 0 &&
                 stopped.reason.find("(train.stop_on_divergence)") != std::string::npos,
             stopped.reason.c_str());
    QVERIFY(stopped.step < project.run("mixer").train.max_steps);
    QCOMPARE(readRunStatus(stopped_dir)->state, RunState::Failed);
    QCOMPARE(readMetrics(stopped_dir / "metrics.jsonl").back().step, stopped.step);
  }
};

QTEST_APPLESS_MAIN(TestReliability)
#include "test_reliability.moc"
