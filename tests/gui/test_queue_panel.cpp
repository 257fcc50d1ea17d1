// Widget tests of the queue panel: the waiting runs are listed next first
// with their action, Up/Down reorder them, Remove drops one, the queue is saved to queue.json and a
// new queue (a restart) reads it back in order; durations come from this machine's measured speed.
#include <QtTest/QtTest>

#include <QPushButton>
#include <QTableWidget>

#include "app/gui/launch/queue_panel.h"
#include "app/gui/launch/run_launcher.h"
#include "app/gui/launch/run_queue.h"
#include "app/gui/launch/run_time_estimate.h"
#include "app/gui/project/project_document.h"
#include "app/gui/runs/run_list_model.h"
#include "core/config/project_config.h"
#include "core/models/model_registry.h"
#include "core/runs/run_status.h"
#include "tests/gui_test_support.h"
#include "tests/training_fixture.h"

using namespace mixerlab;
namespace fs = std::filesystem;

namespace {
using testing::NullTarget;

QStringList column(const QTableWidget* table, int c) {
  QStringList out;
  for (int r = 0; r < table->rowCount(); ++r) out << table->item(r, c)->text();
  return out;
}

// Writes a tiny project (100 steps) into dir, opens it in `document` and lists its runs in `runs`.
// Empty when the project opened; otherwise the document's error.
QString openTinyProject(const fs::path& dir, gui::ProjectDocument& document, gui::RunListModel& runs) {
  const fs::path project_file = testing::writeTinyProject(dir, R"(, "max_steps": 100)", 64, 64);
  const QString error = document.open(QString::fromStdString(project_file.string()));
  runs.setProjectRuns(document.runs());
  return error;
}
}  // namespace

class TestQueuePanel : public QObject {
  Q_OBJECT
 private Q_SLOTS:
  void reorderRemoveAndPersist() {
    const fs::path dir = testing::makeScratchDir("queue-panel");
    gui::ProjectDocument document;
    gui::RunListModel runs;
    QCOMPARE(openTinyProject(dir, document, runs), QString());
    const QString state_file = QString::fromStdString((dir / "queue.json").string());
    const QString runs_dir = QString::fromStdString((dir / "runs").string());

    auto queue = std::make_unique<gui::RunQueue>(std::make_unique<NullTarget>(), "p.json", runs_dir);
    QCOMPARE(queue->setStateFile(state_file), QString());
    gui::QueuePanel panel(&runs, &document);
    panel.setQueue(queue.get());
    queue->enqueue("mixer", false);  // starts (on the null target): not waiting
    queue->enqueue("mixer", false, "mixer-a");
    queue->enqueue("mixer", false, "mixer-b");
    queue->enqueue("mixer", true, "mixer-c");
    QTableWidget* table = panel.table();
    QCOMPARE(column(table, 0), (QStringList{"mixer-a", "mixer-b", "mixer-c"}));
    QCOMPARE(column(table, 1), (QStringList{"train", "train", "resume"}));
    QCOMPARE(column(table, 2).front(), QString("?"));  // no run has trained here yet

    table->selectRow(2);
    panel.findChild<QPushButton*>("queue-up")->click();
    QCOMPARE(queue->pending(), (QStringList{"mixer-a", "mixer-c", "mixer-b"}));
    QCOMPARE(column(table, 0), (QStringList{"mixer-a", "mixer-c", "mixer-b"}));
    QCOMPARE(table->currentRow(), 1);  // the moved run stays selected
    table->selectRow(0);
    panel.findChild<QPushButton*>("queue-down")->click();
    QCOMPARE(queue->pending(), (QStringList{"mixer-c", "mixer-a", "mixer-b"}));
    table->selectRow(2);
    panel.findChild<QPushButton*>("queue-remove")->click();
    QCOMPARE(queue->pending(), (QStringList{"mixer-c", "mixer-a"}));
    queue->enqueue("mixer", false, "mixer-fork", "/runs/mixer/checkpoints/step-20");
    const auto saved = queue->waiting();
    QCOMPARE(saved.size(), 3);

    // A restart: a new queue reads the saved one, in order, every field of every entry (the resume
    // flag, the run id and a fork's checkpoint, all with values other than their defaults).
    queue.reset();
    RunStatus busy;  // something runs on the target, so the restored queue waits
    busy.state = RunState::Running;
    busy.pid = QCoreApplication::applicationPid();
    busy.host = hostName();
    fs::create_directories(dir / "runs" / "by-hand");
    writeRunStatus(dir / "runs" / "by-hand", busy);
    gui::RunQueue restored(std::make_unique<NullTarget>(), "p.json", runs_dir);
    QCOMPARE(restored.setStateFile(state_file), QString());
    QCOMPARE(restored.pending(), (QStringList{"mixer-c", "mixer-a", "mixer-fork"}));
    const auto read_back = restored.waiting();
    QCOMPARE(read_back.size(), saved.size());
    for (int i = 0; i < saved.size(); ++i) {
      QCOMPARE(read_back[i].run, saved[i].run);
      QCOMPARE(read_back[i].run_id, saved[i].run_id);
      QCOMPARE(read_back[i].fork_from, saved[i].fork_from);
      QCOMPARE(read_back[i].resume, saved[i].resume);
    }
    QVERIFY(read_back[0].resume);
    QVERIFY(!read_back[1].resume);
    QCOMPARE(read_back[2].fork_from, QString("/runs/mixer/checkpoints/step-20"));
    QCOMPARE(read_back[1].fork_from, QString());
    panel.setQueue(&restored);
    QCOMPARE(column(table, 0), (QStringList{"mixer-c", "mixer-a", "mixer-fork"}));
  }

  void durationsComeFromTheMeasuredSpeed() {
    const fs::path dir = testing::makeScratchDir("queue-eta");
    gui::ProjectDocument document;
    gui::RunListModel runs;
    QCOMPARE(openTinyProject(dir, document, runs), QString());
    // A run that trained here: 1000 tokens/s at 1e6 FLOPs per token = 1 GFLOP/s.
    gui::RunSnapshot measured;
    measured.run = "earlier";
    measured.state = RunState::Finished;
    measured.step = 10;
    measured.tokens = 5000;
    measured.tokens_per_s = 1000;
    measured.new_train = {{10, 5000, 5, 4.0, 5000 * 1e6}};
    runs.applySnapshot(measured);
    const gui::MachineSpeed speed = gui::measuredMachineSpeed(runs);
    QCOMPARE(speed.runs_measured, 1);
    QCOMPARE(speed.training_flops_per_s, 1e9);
    const ProjectConfig& project = *document.parsed();
    const RunConfig& run = project.runs.front();
    const double tokens = 100.0 * run.train.batch_size * run.train.grad_accum_steps * run.model.context_length;
    const double expected_s = tokens * estimateCost(run.model, run.train.batch_size).training_flops_per_token / 1e9;
    const double estimate_s = gui::estimatedRemainingSeconds(project, runs, QString::fromStdString(run.name), speed);
    QVERIFY2(std::abs(estimate_s - expected_s) < 1e-6 * expected_s, qPrintable(QString::number(estimate_s)));
    // A run with progress of its own extrapolates its elapsed time instead.
    runs.setProjectSettings(QString::fromStdString(run.name), {{"train.max_steps", 100}});
    gui::RunSnapshot halfway;
    halfway.run = QString::fromStdString(run.name);
    halfway.state = RunState::Running;
    halfway.step = 50;
    halfway.wall_s = 30;
    runs.applySnapshot(halfway);
    QCOMPARE(gui::estimatedRemainingSeconds(project, runs, halfway.run, speed), 30.0);
    // A fresh run id of the same project run starts its budget afresh: that progress is not its own.
    const double fresh_s = gui::estimatedRemainingSeconds(project, runs, halfway.run, speed, /*from_scratch=*/true);
    QVERIFY2(std::abs(fresh_s - expected_s) < 1e-6 * expected_s, qPrintable(QString::number(fresh_s)));
  }
};

QTEST_MAIN(TestQueuePanel)
#include "test_queue_panel.moc"
