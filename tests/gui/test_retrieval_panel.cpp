// Widget tests of the retrieval panel (offscreen) on two real tiny checkpoints, a masked mixer and a
// Llama, trained in-process, over a small synthetic corpus: each column's ranking, scores, marked
// rank and held-out accuracy are what the core's RetrievalSearch gives in-process for the same
// dataset; typing searches once typing pauses, and only the last text is shown; marking a result
// shows where that story ranks in both columns; a dataset folder is reused for the same model and
// pairs and rebuilt when a pairs file changes; a malformed pairs file fails its columns with the
// file named; the project's own stories are searched by their opening sentences; closing the panel
// mid-build joins its threads; a retrieval training is a run
// directory the workbench lists and plots, also when the panel starts it; the main window opens
// the tab.
#include <QtTest/QtTest>

#include <QComboBox>
#include <QLabel>
#include <QLineEdit>
#include <QSpinBox>
#include <QTreeWidget>
#include <chrono>

#include "app/gui/retrieval/retrieval_panel.h"
#include "app/gui/runs/run_list_model.h"
#include "app/gui/shell/main_window.h"
#include "core/analysis/retrieval/retrieval_corpus.h"
#include "core/analysis/retrieval/retrieval_run.h"
#include "core/analysis/retrieval/retrieval_search.h"
#include "core/config/project_config.h"
#include "core/runs/metrics_log.h"
#include "core/runs/run_summary.h"
#include "core/train/checkpoint.h"
#include "core/train/trainer.h"
#include "core/util/atomic_file.h"
#include "core/util/error.h"
#include "tests/training_fixture.h"
#include "widgets/retrieval/retrieval_results_view.h"

using namespace mixerlab;
namespace fs = std::filesystem;

namespace {

constexpr int kTimeoutMs = 120000;
constexpr int kStories = 60;  // 6 held out

QString q(const std::string& s) { return QString::fromStdString(s); }

// Waits until every column is ready (or one failed).
bool waitReady(gui::RetrievalPanel& panel) {
  QSignalSpy failed(&panel, &gui::RetrievalPanel::columnFailed);
  return QTest::qWaitFor(
             [&]() {
               int ready = 0;
               for (int i = 0; i < panel.columnCount(); ++i) ready += panel.isReady(i) ? 1 : 0;
               return ready == panel.columnCount() || failed.count() > 0;
             },
             kTimeoutMs) &&
         failed.count() == 0;
}

// Runs `action` and waits for `columns` result lists.
bool waitResults(gui::RetrievalPanel& panel, int columns, const std::function<void()>& action) {
  QSignalSpy shown(&panel, &gui::RetrievalPanel::resultsShown);
  action();
  return QTest::qWaitFor([&]() { return shown.count() >= columns; }, kTimeoutMs);
}

QString datasetDirOf(const widgets::RetrievalResultsView* view) {
  return view->findChild<QLabel*>("retrieval-column-title")->toolTip().section('\n', 0, 0);
}

}  // namespace

class TestRetrievalPanel : public QObject {
  Q_OBJECT
  fs::path dir_, mixer_, llama_, dataset_;

  // A 60-story dataset folder embedded by the mixer (built once).
  void ensureDataset() {
    if (!dataset_.empty()) return;
    dataset_ = ensureRetrievalDataset(RetrievalCorpus::synthetic(kStories),
                                      ModelSource::checkpoint(resolveCheckpointDir(mixer_)), dir_ / "datasets-core")
                   .dir;
  }

  std::unique_ptr<gui::RetrievalPanel> twoColumnPanel(const QString& root) {
    auto panel = std::make_unique<gui::RetrievalPanel>();
    panel->resize(1200, 700);
    panel->setDatasetsRoot(root);
    panel->setCorpus(RetrievalCorpus::synthetic(kStories));
    [&] {
      QCOMPARE(panel->addModel(q(mixer_.string())), QString());
      QCOMPARE(panel->addModel(q(llama_.string())), QString());
    }();
    return panel;
  }

 private Q_SLOTS:
  void initTestCase() {
    dir_ = testing::makeScratchDir("retrieval-panel");
    qputenv("MIXERLAB_CLI", QByteArray::fromStdString(testing::cliPath().string()));  // for panel-started runs
    const ProjectConfig project = loadProject(testing::writeTinyProject(dir_));
    QCOMPARE(testing::trainRunsToTheEnd(project, dir_, {"mixer", "llama"}), QString());
    mixer_ = dir_ / "runs/mixer";
    llama_ = dir_ / "runs/llama";
  }

  // Opening another project (another runs folder) removes the previous one's columns;
  // reopening the same one keeps them.
  void anotherProjectClearsTheColumns() {
    gui::RetrievalPanel panel;
    panel.setDatasetsRoot(q((dir_ / "datasets-d12").string()));
    panel.setCorpus(RetrievalCorpus::synthetic(kStories));
    panel.setRunsDirectory(q((dir_ / "runs").string()));
    QCOMPARE(panel.addModel(q(mixer_.string())), QString());
    panel.setRunsDirectory(q((dir_ / "runs").string()));
    QCOMPARE(panel.columnCount(), 1);
    panel.setRunsDirectory(q((dir_ / "other-project" / "runs").string()));
    QCOMPARE(panel.columnCount(), 0);
  }

  // Every column shows what RetrievalSearch gives in-process on its dataset folder: the same
  // stories in the same order with the same scores, the marked story's rank, and the held-out
  // accuracy over the chosen candidate count.
  void columnsMatchTheCore() {
    auto panel = twoColumnPanel(q((dir_ / "datasets-a").string()));
    QSignalSpy accuracy(panel.get(), &gui::RetrievalPanel::accuracyShown);
    QVERIFY(waitReady(*panel));
    QVERIFY2(QTest::qWaitFor([&]() { return accuracy.count() >= 2; }, kTimeoutMs),
             qPrintable(panel->column(0)->status() + " / " + panel->column(1)->status()));
    QCOMPARE(panel->heldOutCount(), 6);
    panel->setResultCount(8);
    QVERIFY(waitResults(*panel, 2, [&]() { QVERIFY(panel->chooseHeldOut(2)); }));
    QCOMPARE(panel->markedStory(), qint64(kStories - 6 + 2));
    for (int c = 0; c < 2; ++c) {
      const widgets::RetrievalResultsView* view = panel->column(c);
      const RetrievalSearch core(datasetDirOf(view).toStdString());
      QCOMPARE(core.storyCount(), int64_t{kStories});
      const SearchResult want = core.search(panel->query().toStdString(), 8, panel->markedStory());
      QCOMPARE(view->resultCount(), 8);
      for (int r = 0; r < 8; ++r) {
        QCOMPARE(view->result(r).id, want.hits[static_cast<size_t>(r)].id);
        QCOMPARE(view->result(r).score, want.hits[static_cast<size_t>(r)].score);
      }
      QVERIFY2(
          view->markedRankText().startsWith(QString("true match: rank %1 of %2").arg(want.marked_rank).arg(kStories)),
          qPrintable(view->markedRankText()));
      QCOMPARE(view->markedRow(), want.marked_rank <= 8 ? int(want.marked_rank - 1) : -1);
      const auto [top1, top5] = core.heldOutAccuracy(5);  // 32 asked; 6 held out allow 5 (Algorithm 1's draw)
      QVERIFY2(view->status().contains(
                   QString("top-1 %1%, top-5 %2%").arg(100 * top1, 0, 'f', 1).arg(100 * top5, 0, 'f', 1)),
               qPrintable(view->status()));
      QVERIFY(view->status().contains("each among 5 candidates"));
      QVERIFY(view->previewText().contains(q(want.hits[0].story.substr(0, 40))));
    }
    QVERIFY(panel->column(0)->title().contains("masked_mixer"));
    QVERIFY(panel->column(1)->title().contains("llama"));
  }

  // Keystrokes restart a short timer; only the text as it stands when typing pauses is searched,
  // and what is shown is that text's ranking.
  void typingSearchesOnceTypingPauses() {
    auto panel = twoColumnPanel(q((dir_ / "datasets-a").string()));
    QVERIFY(waitReady(*panel));
    auto* edit = panel->findChild<QLineEdit*>("retrieval-query");
    QSignalSpy shown(panel.get(), &gui::RetrievalPanel::resultsShown);
    QTest::keyClicks(edit, "a dog at the park", Qt::NoModifier, 5);  // 5 ms apart: faster than the pause
    QVERIFY(QTest::qWaitFor([&]() { return shown.count() >= 2; }, kTimeoutMs));
    QTest::qWait(3 * gui::RetrievalPanel::kTypingPauseMs);
    QCOMPARE(shown.count(), 2);  // one ranking per column, not one per keystroke
    const RetrievalSearch core(datasetDirOf(panel->column(0)).toStdString());
    const auto want = core.search("a dog at the park", 10);
    QCOMPARE(panel->column(0)->result(0).id, want[0].id);
    QCOMPARE(panel->column(0)->result(9).id, want[9].id);
  }

  // Double-clicking a result marks it as the true match; both columns then show where it ranks.
  void markingAResultShowsItsRankInBothColumns() {
    auto panel = twoColumnPanel(q((dir_ / "datasets-a").string()));
    QVERIFY(waitReady(*panel));
    QVERIFY(waitResults(*panel, 2, [&]() {
      panel->setQuery("a cat with a red ball");
      panel->searchNow();
    }));
    auto* list = panel->column(0)->findChild<QTreeWidget*>("retrieval-results");
    const qint64 id = panel->column(0)->result(3).id;
    QVERIFY(waitResults(*panel, 2, [&]() {
      QTreeWidgetItem* item = list->topLevelItem(3);
      Q_EMIT list->itemDoubleClicked(item, 0);
    }));
    QCOMPARE(panel->markedStory(), id);
    QCOMPARE(panel->column(0)->markedRow(), 3);
    QVERIFY(panel->column(0)->markedRankText().startsWith("true match: rank 4 of 60"));
    const RetrievalSearch core(datasetDirOf(panel->column(1)).toStdString());
    const SearchResult other = core.search("a cat with a red ball", 10, id);
    QVERIFY2(panel->column(1)->markedRankText().startsWith(QString("true match: rank %1 of").arg(other.marked_rank)),
             qPrintable(panel->column(1)->markedRankText()));
    QVERIFY(waitResults(*panel, 2, [&]() { panel->clearMark(); }));
    QCOMPARE(panel->markedStory(), qint64(-1));
    QVERIFY(panel->column(0)->markedRankText().isEmpty());
  }

  // The same model and pairs reuse the folder (no re-embedding); a pairs file whose stories
  // changed is embedded again; a malformed one fails the column, naming the file and the line.
  void datasetsAreReusedUntilThePairsChange() {
    const fs::path root = dir_ / "datasets-b";
    const fs::path pairs = dir_ / "pairs.jsonl";
    writeStoryPairs(pairs, syntheticStoryPairs(30, 5));
    auto open = [&](const QString& expect_status) {
      auto panel = std::make_unique<gui::RetrievalPanel>();
      panel->setDatasetsRoot(q(root.string()));
      panel->setCorpus(RetrievalCorpus::file(pairs));
      QCOMPARE(panel->addModel(q(mixer_.string())), QString());
      QVERIFY(waitReady(*panel));
      QVERIFY2(panel->statusText().contains(expect_status), qPrintable(panel->statusText()));
      QCOMPARE(panel->column(0)->title(), QString("mixer \u00b7 step 12  (masked_mixer)"));
    };
    open("embedded 30 stories");
    open("reused the embeddings");
    auto edited = syntheticStoryPairs(30, 6);
    writeStoryPairs(pairs, edited);
    open("embedded 30 stories");
    testing::writeText(pairs, "{\"summary\": \"one\", \"story\": \"two\"}\nnot json\n");
    gui::RetrievalPanel panel;
    panel.setDatasetsRoot(q(root.string()));
    panel.setCorpus(RetrievalCorpus::file(pairs));
    QSignalSpy failed(&panel, &gui::RetrievalPanel::columnFailed);
    QCOMPARE(panel.addModel(q(mixer_.string())), QString());
    QVERIFY(failed.wait(kTimeoutMs));
    const QString error = failed.at(0).at(1).toString();
    QVERIFY2(error.contains("pairs.jsonl") && error.contains("pairs.jsonl:2"), qPrintable(error));
    QVERIFY(panel.column(0)->status().contains("pairs.jsonl"));
    QVERIFY(panel.addModel(q((dir_ / "no-such-run").string())).contains("no-such-run"));
  }

  // Destroying the panel while a large corpus is being embedded cancels the build and joins the
  // thread promptly.
  void closingMidBuildJoins() {
    auto panel = std::make_unique<gui::RetrievalPanel>();
    panel->setDatasetsRoot(q((dir_ / "datasets-c").string()));
    panel->setCorpus(RetrievalCorpus::synthetic(4000));
    QCOMPARE(panel->addModel(q(llama_.string())), QString());
    QVERIFY2(QTest::qWaitFor([&]() { return panel->column(0)->progressVisible(); }, kTimeoutMs),
             qPrintable(panel->column(0)->status()));  // embedding has begun
    QVERIFY(!panel->isReady(0));
    const auto start = std::chrono::steady_clock::now();
    panel.reset();
    const double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    qInfo("panel destroyed mid-build in %.0f ms", ms);
    QVERIFY(!fs::exists(dir_ / "datasets-c" / "synthetic-4000-seed1" / "llama-step-00000012" / "retrieval.json"));
  }

  // A retrieval training is a run directory (status, metrics, log, retrieval_run.json), summarized
  // like any run: finished, "retrieval mixer c=6 on ..." as its architecture, x = pairs seen; a
  // second run into the same folder is refused; bad settings fail it with the reason recorded.
  void retrievalTrainingIsARunDirectory() {
    ensureDataset();
    const fs::path run_dir = dir_ / "runs" / "retrieval-core";
    RetrievalRunRequest request;
    request.data_dir = dataset_;
    request.run_dir = run_dir;
    request.settings.context = 6;  // the 6 held-out stories allow at most 6
    request.settings.layers = 2;
    request.settings.epochs = 3;
    request.settings.batch_size = 16;
    int epochs_seen = 0;
    request.on_epoch = [&](const RetrievalEpoch&) {
      // The run describes itself from its first epoch on, while it runs.
      const RunSummary live = summarizeRun(run_dir);
      QCOMPARE(int(live.state), int(RunState::Running));
      QVERIFY(QString::fromStdString(live.arch).startsWith("retrieval mixer c=6 on mixer"));
      ++epochs_seen;
    };
    RetrievalRunRecord record;
    try {
      record = runRetrievalTraining(request);
    } catch (const std::exception& e) {
      QFAIL(e.what());
    }
    QCOMPARE(epochs_seen, 3);
    QCOMPARE(int(record.epochs.size()), 3);
    const RunSummary summary = summarizeRun(run_dir);
    QCOMPARE(int(summary.state), int(RunState::Finished));
    QCOMPARE(summary.tokens, int64_t{3 * (kStories - 6)});  // pairs seen
    QVERIFY(summary.best_eval_loss.has_value() && summary.last_train_loss.has_value());
    const auto records = readMetrics(run_dir / "metrics.jsonl");
    QCOMPARE(int(records.size()), 3);
    QVERIFY(fs::exists(run_dir / "retrieval_model.safetensors"));
    QCOMPARE(tryReadRetrievalRunRecord(run_dir)->epochs.size(), size_t{3});
    try {
      runRetrievalTraining(request);
      QFAIL("a second run into the same folder was allowed");
    } catch (const MixerLabError& e) {
      QVERIFY2(QString(e.what()).contains("already holds a run"), e.what());
    }
    QCOMPARE(int(readMetrics(run_dir / "metrics.jsonl").size()), 3);  // untouched
    request.run_dir = dir_ / "runs" / "retrieval-too-wide";
    request.settings.context = 500;  // more candidates than stories
    QVERIFY_THROWS_EXCEPTION(MixerLabError, runRetrievalTraining(request));
    const auto failed = readRunStatus(request.run_dir);
    QCOMPARE(int(failed->state), int(RunState::Failed));
    QVERIFY2(QString::fromStdString(failed->reason).contains("context 500"), failed->reason.c_str());
  }

  // "Train retrieval model" in the panel starts a `mixerlab retrieval train` child process writing
  // a run of the project, and the main window's run list and plot pick it up like any run.
  void panelTrainingShowsInTheWorkbench() {
    gui::MainWindow window;
    QCOMPARE(window.openProject(q((dir_ / "project.json").string())), QString());
    gui::RetrievalPanel* panel = window.retrievalPanel();
    panel->setCorpus(RetrievalCorpus::synthetic(kStories));
    QCOMPARE(window.showRetrieval({"mixer"}), QString());
    QVERIFY(waitReady(*panel));
    QString error;
    const QString run = panel->trainRetrievalModel(0, 3, &error);
    QVERIFY2(!run.isEmpty(), qPrintable(error));
    QCOMPARE(run, QString("retrieval-mixer-step-00000012"));
    QTRY_COMPARE_WITH_TIMEOUT(window.runState(run), QString("finished"), kTimeoutMs);
    const widgets::LossSeries* series = window.runModel()->series(run);
    QVERIFY(series != nullptr);
    QTRY_COMPARE_WITH_TIMEOUT(int(series->eval.size()), 3, 10000);
    QCOMPARE(int(series->train.size()), 3);
    const int row = window.runModel()->rowOf(run);
    QVERIFY(window.runModel()
                ->data(window.runModel()->index(row, gui::RunListModel::Architecture))
                .toString()
                .startsWith("retrieval mixer c=6"));  // 32 capped at the 6 held-out stories
    QCOMPARE(panel->trainRetrievalModel(0, 3, &error), QString("retrieval-mixer-step-00000012-2"));  // a fresh name
  }

  // With no datasets folder chosen, a checkpoint's datasets go to its project's retrieval/ folder
  // (where the open project puts them), not into runs/, where they would list as a run.
  void datasetsDefaultToTheCheckpointsProject() {
    gui::RetrievalPanel panel;
    panel.setCorpus(RetrievalCorpus::synthetic(kStories));
    QCOMPARE(panel.addModel(q(mixer_.string())), QString());
    QCOMPARE(panel.datasetsRoot(), q((dir_ / "retrieval").string()));
    QVERIFY(waitReady(panel));
  }

  // The project's own stories (no summaries) can be searched: the corpus list offers them, the
  // count box limits how many are read, each held-out query is a story's opening sentence and marks
  // that story, and the embeddings are kept in a folder named for the corpus and the limit. Another
  // project moves the columns to its stories; no project at all, to the synthetic ones.
  void projectStoriesAreSearchable() {
    gui::MainWindow window;
    QCOMPARE(window.openProject(q((dir_ / "project.json").string())), QString());
    gui::RetrievalPanel* panel = window.retrievalPanel();
    auto* box = panel->findChild<QComboBox*>("retrieval-corpus");
    auto* count = panel->findChild<QSpinBox*>("retrieval-synthetic-count");
    QVERIFY(box != nullptr && count != nullptr);
    const int item = box->findText("Project corpus (stories-b.txt)");
    QVERIFY2(item >= 0, qPrintable(box->itemText(1)));
    box->setCurrentIndex(item);
    Q_EMIT box->activated(item);
    QCOMPARE(panel->corpus().kind, RetrievalCorpusKind::StoryCorpus);
    QCOMPARE(q(panel->corpus().story_source), q((testing::sourceDir() / "projects/demo/data/stories-b.txt").string()));
    QCOMPARE(panel->corpus().story_format, CorpusFormat::BlankLine);
    QCOMPARE(panel->corpus().max_stories, int64_t{2000});
    QCOMPARE(count->value(), 2000);
    QCOMPARE(count->prefix(), QString("first "));
    count->setValue(40);
    Q_EMIT count->editingFinished();
    QCOMPARE(panel->corpus().max_stories, int64_t{40});
    QCOMPARE(panel->addModel(q(mixer_.string())), QString());
    QVERIFY(waitReady(*panel));
    QCOMPARE(panel->heldOutCount(), 4);
    const std::vector<StoryPair> pairs = panel->corpus().pairs();
    QCOMPARE(pairs.size(), size_t{40});
    QVERIFY(waitResults(*panel, 1, [&]() { QVERIFY(panel->chooseHeldOut(1)); }));
    QCOMPARE(panel->query(), q(pairs[37].summary));
    QVERIFY(pairs[37].story.rfind(pairs[37].summary, 0) == 0);  // the story opens with its query
    QCOMPARE(panel->markedStory(), qint64{37});
    QVERIFY2(panel->column(0)->markedRankText().startsWith("true match: rank "),
             qPrintable(panel->column(0)->markedRankText()));
    QVERIFY(fs::exists(dir_ / "retrieval" / panel->corpus().id() / "mixer-step-00000012" / "retrieval.json"));
    QVERIFY(panel->corpus().id().rfind("stories-stories-b-40-", 0) == 0);

    const fs::path other = testing::makeScratchDir("retrieval-other-project");
    testing::writeText(other / "tales.txt", "Ann ran. She won.\n\nBob sat. He ate.\n\nCat hid. It slept.\n");
    auto project = nlohmann::json::parse(std::ifstream(testing::writeTinyProject(other)));
    project["corpus"] = {{"train", (other / "tales.txt").string()}, {"format", "blank_line"}};
    testing::writeText(other / "project.json", project.dump(2));
    QCOMPARE(window.openProject(q((other / "project.json").string())), QString());
    QCOMPARE(panel->corpus().kind, RetrievalCorpusKind::StoryCorpus);
    QCOMPARE(q(panel->corpus().story_source), q((other / "tales.txt").string()));
    QCOMPARE(panel->corpus().max_stories, int64_t{40});
    QVERIFY(box->findText("Project corpus (tales.txt)") >= 0 && box->findText("Project corpus (stories-b.txt)") < 0);
    panel->setProjectCorpus(std::nullopt);
    QCOMPARE(panel->corpus().kind, RetrievalCorpusKind::Synthetic);
    QVERIFY(box->findData(static_cast<int>(RetrievalCorpusKind::StoryCorpus)) < 0);
    QCOMPARE(box->currentText(), QString("Synthetic stories"));
    QCOMPARE(count->prefix(), QString());
  }

  void mainWindowOpensTheRetrieveTab() {
    gui::MainWindow window;
    QCOMPARE(window.openProject(q((dir_ / "project.json").string())), QString());
    QCOMPARE(window.showRetrieval({"mixer", "untrained:llama"}), QString());
    gui::RetrievalPanel* panel = window.retrievalPanel();
    QCOMPARE(panel->columnCount(), 2);
    QCOMPARE(panel->datasetsRoot(), q((dir_ / "retrieval").string()));
    QVERIFY(panel->column(1)->title().startsWith("untrained llama"));
    panel->setCorpus(RetrievalCorpus::synthetic(kStories));
    QVERIFY(waitReady(*panel));
    QVERIFY(fs::exists(dir_ / "retrieval" / "synthetic-60-seed1" / "llama-step-00000012-untrained" / "retrieval.json"));
    QVERIFY(window.showRetrieval({"mixer"}).contains("at most 2"));
  }
};

QTEST_MAIN(TestRetrievalPanel)
#include "test_retrieval_panel.moc"
