// Nothing outside a run folder is written or deleted through a symbolic link planted inside it
// (docs/reliability.md): for every file a run writes (the lock, the log, metrics, status, the
// final-status reserve, the atomic writer's temporary) a link to an outside file is refused with
// the link's name and the outside file keeps its bytes; files written by rename replace the link
// itself (run.json, status.json, an export); a checkpoint step folder that is a link to an outside folder is pruned as
// a link, the outside folder keeping every file; and a whole training run over planted links fails with the link named
// and leaves the outside untouched.
#include <torch/torch.h>
#include <QtTest/QtTest>

#include <unistd.h>

#include <fstream>

#include "core/models/safetensors.h"
#include "core/runs/metrics_log.h"
#include "core/runs/run_directory.h"
#include "core/runs/run_lock.h"
#include "core/runs/run_log.h"
#include "core/runs/run_status.h"
#include "core/runs/space_reserve.h"
#include "core/train/checkpoint.h"
#include "core/train/trainer.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "core/util/no_follow.h"
#include "tests/training_fixture.h"

using namespace mixerlab;
namespace fs = std::filesystem;

namespace {
constexpr const char* kOutsideText = "outside bytes, not MixerLab's\n";

bool mentionsLink(const std::string& error, const fs::path& link) {
  return error.find("symbolic link") != std::string::npos && error.find(link.string()) != std::string::npos &&
         error.find("fix:") != std::string::npos;
}
}  // namespace

class TestRunFolderLinks : public QObject {
  Q_OBJECT
  fs::path dir_;
  int next_ = 0;

  // A fresh run folder and an outside file holding kOutsideText.
  std::pair<fs::path, fs::path> freshRunAndOutsideFile() {
    const fs::path root = dir_ / ("case-" + std::to_string(next_++));
    const fs::path run = root / "runs" / "r";
    fs::create_directories(run);
    const fs::path outside = root / "outside.txt";
    testing::writeText(outside, kOutsideText);
    return {run, outside};
  }

  static void verifyOutsideUnchanged(const fs::path& outside) {
    QVERIFY2(fs::is_regular_file(fs::symlink_status(outside)), outside.c_str());
    QCOMPARE(readFile(outside), std::string(kOutsideText));
  }

 private Q_SLOTS:
  void initTestCase() { dir_ = testing::makeScratchDir("run-folder-links"); }

  // Files opened for writing in place: each refuses a link in its place, naming it.
  void linkedFilesAreRefused() {
    {
      auto [run, outside] = freshRunAndOutsideFile();
      fs::create_symlink(outside, run / ".lock");
      QVERIFY(mentionsLink(testing::errorOf([&] { RunLock lock(run); }), run / ".lock"));
      verifyOutsideUnchanged(outside);
    }
    {
      auto [run, outside] = freshRunAndOutsideFile();
      fs::create_symlink(outside, RunPaths{run}.log());
      QVERIFY(mentionsLink(testing::errorOf([&] { RunLog log(RunPaths{run}.log(), nullptr); }), RunPaths{run}.log()));
      verifyOutsideUnchanged(outside);
    }
    {
      auto [run, outside] = freshRunAndOutsideFile();
      fs::create_symlink(outside, RunPaths{run}.metrics());
      QVERIFY(mentionsLink(testing::errorOf([&] { MetricsWriter writer(RunPaths{run}.metrics()); }),
                           RunPaths{run}.metrics()));
      verifyOutsideUnchanged(outside);
    }
    {
      auto [run, outside] = freshRunAndOutsideFile();
      const fs::path reserve = run / ".final-status-reserve";
      fs::create_symlink(outside, reserve);
      QVERIFY(mentionsLink(testing::errorOf([&] { SpaceReserve held(reserve, 262144); }), reserve));
      verifyOutsideUnchanged(outside);
    }
    {
      auto [run, outside] = freshRunAndOutsideFile();
      fs::create_symlink(outside, RunPaths{run}.status());
      RunStatus stopped;
      stopped.state = RunState::Stopped;
      QVERIFY(mentionsLink(testing::errorOf([&] { overwriteRunStatusInPlace(run, stopped); }), RunPaths{run}.status()));
      verifyOutsideUnchanged(outside);
    }
  }

  // Files written by rename replace a link itself; a link planted under the temporary's name is
  // removed, not written through.
  void renamedFilesReplaceTheLink() {
    auto [run, outside] = freshRunAndOutsideFile();
    fs::create_symlink(outside, RunPaths{run}.status());
    RunStatus running;
    running.state = RunState::Running;
    writeRunStatus(run, running);
    QVERIFY(fs::is_regular_file(fs::symlink_status(RunPaths{run}.status())));
    QVERIFY(readRunStatus(run).has_value());
    verifyOutsideUnchanged(outside);

    const fs::path target = run / "run.json";
    const fs::path tmp = target.string() + ".tmp-" + std::to_string(::getpid());
    fs::create_symlink(outside, tmp);
    writeFileAtomic(target, "{}\n");
    QCOMPARE(readFile(target), std::string("{}\n"));
    QVERIFY(!fs::exists(fs::symlink_status(tmp)));
    verifyOutsideUnchanged(outside);
    // An export (safetensors, written the same way) over a link: the link goes, the target stays.
    const fs::path exported = run / "export.safetensors";
    fs::create_symlink(outside, exported);
    saveSafetensors(exported, {{"w", torch::ones({2, 2})}});
    QVERIFY(fs::is_regular_file(fs::symlink_status(exported)));
    QCOMPARE(loadSafetensors(exported).tensors.at("w").sum().item<double>(), 4.0);
    verifyOutsideUnchanged(outside);
  }

  // removeNoFollow on a link to a folder removes the link; on a folder, the folder (a link inside
  // it goes as a link).
  void removalNeverFollowsALink() {
    auto [run, outside] = freshRunAndOutsideFile();
    const fs::path outside_dir = outside.parent_path() / "outside-folder";
    fs::create_directories(outside_dir);
    testing::writeText(outside_dir / "keep.txt", kOutsideText);
    fs::create_symlink(outside_dir, run / "linked");
    std::error_code error;
    removeNoFollow(run / "linked", error);
    QVERIFY(!error);
    QVERIFY(!fs::exists(fs::symlink_status(run / "linked")));
    QCOMPARE(readFile(outside_dir / "keep.txt"), std::string(kOutsideText));
    fs::create_directories(run / "folder");
    fs::create_symlink(outside_dir, run / "folder" / "inner-link");
    removeNoFollow(run / "folder", error);
    QVERIFY(!error);
    QVERIFY(!fs::exists(run / "folder"));
    QCOMPARE(readFile(outside_dir / "keep.txt"), std::string(kOutsideText));
    removeNoFollow(run / "never-there", error);
    QVERIFY(!error);
  }

  // A training run whose old checkpoint folder was replaced by a link to an outside folder: pruning
  // removes the link, every outside file stays; the run's own checkpoints are kept as configured.
  void pruningRemovesALinkedCheckpointAsALink() {
    const fs::path project_dir = dir_ / "prune-project";
    const ProjectConfig project = loadProject(testing::writeTinyProject(project_dir, R"(, "keep_checkpoints": 1)"));
    const fs::path run_dir = project_dir / "runs" / "mixer";
    const fs::path outside_dir = project_dir / "outside-folder";
    fs::create_directories(outside_dir);
    for (const char* name : {"model.safetensors", "notes.txt"}) testing::writeText(outside_dir / name, kOutsideText);
    fs::create_directories(RunPaths{run_dir}.checkpoints());
    const fs::path linked_step = RunPaths{run_dir}.checkpoints() / "step-00000001";
    fs::create_symlink(outside_dir, linked_step);
    TrainRequest request;
    request.project = &project;
    request.run = project.run("mixer");
    request.run_dir = run_dir;
    QCOMPARE(trainRun(request).state, RunState::Finished);
    QVERIFY(!fs::exists(fs::symlink_status(linked_step)));
    for (const char* name : {"model.safetensors", "notes.txt"})
      QCOMPARE(readFile(outside_dir / name), std::string(kOutsideText));
    QCOMPARE(listCheckpoints(RunPaths{run_dir}.checkpoints()).size(), size_t{1});
  }

  // A whole run over a planted log link fails before it trains, naming the link, and writes nothing
  // through it.
  void trainingOverALinkedLogFailsAndNamesIt() {
    const fs::path project_dir = dir_ / "log-project";
    const ProjectConfig project = loadProject(testing::writeTinyProject(project_dir));
    const fs::path run_dir = project_dir / "runs" / "mixer";
    fs::create_directories(run_dir);
    const fs::path outside = project_dir / "outside.txt";
    testing::writeText(outside, kOutsideText);
    fs::create_symlink(outside, RunPaths{run_dir}.log());
    TrainRequest request;
    request.project = &project;
    request.run = project.run("mixer");
    request.run_dir = run_dir;
    std::string error;
    try {
      const TrainOutcome outcome = trainRun(request);
      error = outcome.reason;
      QVERIFY(outcome.state != RunState::Finished);
    } catch (const std::exception& e) {
      error = e.what();
    }
    QVERIFY2(mentionsLink(error, RunPaths{run_dir}.log()), error.c_str());
    verifyOutsideUnchanged(outside);
  }
};

QTEST_APPLESS_MAIN(TestRunFolderLinks)
#include "test_run_folder_links.moc"
