// Widget tests of the representation-inversion inspector (offscreen) on real tiny checkpoints, a
// masked mixer and a Llama trained in-process (checkpoints at steps 4, 8 and 12), with the
// mixer's untrained twin: the chart's per-layer Hamming distances are the ones an in-process
// invertTexts gives with the same settings (and the form's options reach the core); the token diff
// marks exactly the mismatched positions of the chosen layer and its tooltip gives the true
// token's rank and the candidates; clicking the chart shows that layer's tokens; Cancel ends a long
// run within a step or so and the model shows as cancelled; the over-training heatmap has one
// column per checkpoint plus the untrained one, equals an in-process invertOverTraining, and
// clicking a cell shows that diff; the saved JSON parses with the CLI's field names; destroying
// the panel or closing the window mid-run joins the worker; the main window opens the Inspect tab.
#include <QtTest/QtTest>

#include <QCheckBox>
#include <QHelpEvent>
#include <QLabel>
#include <QToolTip>

#include <nlohmann/json.hpp>

#include "app/gui/inversion/inversion_panel.h"
#include "app/gui/inversion/over_training_view.h"
#include "app/gui/shell/main_window.h"
#include "app/gui/tooling/event_loop_latency.h"
#include "core/analysis/checkpoint_eval.h"
#include "core/analysis/eval_documents.h"
#include "core/analysis/inversion.h"
#include "core/analysis/inversion_over_training.h"
#include "core/config/project_config.h"
#include "core/train/checkpoint.h"
#include "core/train/trainer.h"
#include "core/util/atomic_file.h"
#include "tests/gui_test_support.h"
#include "tests/training_fixture.h"
#include "widgets/forms/inversion_settings_form.h"
#include "widgets/inversion/inversion_diff_view.h"
#include "widgets/inversion/inversion_heatmap.h"
#include "widgets/inversion/inversion_layer_chart.h"
#include "widgets/inversion/inversion_model_row.h"

using namespace mixerlab;
namespace fs = std::filesystem;

namespace {

constexpr int kTimeoutMs = 120000;
constexpr int kIterations = 30;
constexpr int kLongRunSteps = 1000000;
const QString kText = "Once upon a time, there was a little dog named Max. He liked to play.";

QString q(const std::string& s) { return QString::fromStdString(s); }

bool waitFor(QObject* panel, const char* signal, const std::function<QString()>& start) {
  QSignalSpy done(panel, signal);
  const QString error = start();
  if (!error.isEmpty()) {
    qWarning("start: %s", qPrintable(error));
    return false;
  }
  return done.wait(kTimeoutMs) || done.count() == 1;
}

bool runInspection(gui::InversionPanel& panel) {
  return waitFor(&panel, SIGNAL(runFinished()), [&]() { return panel.invert(); });
}

void setIterations(gui::InversionPanel& panel, int iterations) {
  widgets::InversionFormValues v = panel.settingsForm()->values();
  v.iterations = iterations;
  panel.settingsForm()->setValues(v);
}

// Layer 0 for a million steps: the tiny models take ~30-50 us a step on 2 cores, so this runs for
// half a minute or more, until cancelled, while a bug that ignores the cancel flag still ends.
void setLongRun(gui::InversionPanel& panel) {
  widgets::InversionFormValues v = panel.settingsForm()->values();
  v.all_layers = false;
  v.layers = {0};
  v.iterations = kLongRunSteps;
  panel.settingsForm()->setValues(v);
}

// The settings the form's defaults give, written out here (not through the panel's conversion).
InversionSettings defaultSettings(std::vector<int64_t> layers) {
  InversionSettings s;
  s.layers = std::move(layers);
  s.iterations = kIterations;
  s.learning_rate = 0.02;
  s.top_k = 5;
  s.seed = 1;
  return s;
}

}  // namespace

class TestInversionPanel : public QObject {
  Q_OBJECT
  fs::path dir_, project_file_, mixer_, llama_;
  std::unique_ptr<gui::InversionPanel>
      panel_;  // mixer, its untrained twin, llama: inverted once, read by several tests
  std::vector<std::vector<InversionResult>> expected_;  // in-process results for panel_'s models

  std::vector<ModelSource> sources() const {
    const fs::path mixer = resolveCheckpointDir(mixer_), llama = resolveCheckpointDir(llama_);
    return {ModelSource::checkpoint(mixer), ModelSource::untrainedLike(mixer), ModelSource::checkpoint(llama)};
  }

 private Q_SLOTS:
  void initTestCase() {
    dir_ = testing::makeScratchDir("inversion-panel");
    project_file_ = testing::writeTinyProject(dir_, R"(, "keep_checkpoints": 5)");
    QCOMPARE(testing::trainRunsToTheEnd(loadProject(project_file_), dir_, {"mixer", "llama"}), QString());
    mixer_ = dir_ / "runs/mixer";
    llama_ = dir_ / "runs/llama";
  }

  // Opening another project (another runs folder) removes the previous one's models;
  // reopening the same one keeps them.
  void anotherProjectClearsTheModels() {
    gui::InversionPanel panel;
    panel.setRunsDirectory(QString::fromStdString((dir_ / "runs").string()));
    QCOMPARE(panel.addModel(QString::fromStdString(mixer_.string())), QString());
    panel.setRunsDirectory(QString::fromStdString((dir_ / "runs").string()));
    QCOMPARE(panel.modelCount(), 1);
    panel.setRunsDirectory(QString::fromStdString((dir_ / "other-project" / "runs").string()));
    QCOMPARE(panel.modelCount(), 0);
  }

  // A run that gets checkpoints after the project was opened appears in Inspect > Over
  // training when the page is shown and when its run list is opened, without reopening the project.
  void overTrainingListsRunsTrainedLater() {
    const fs::path runs = dir_ / "d9" / "runs";
    fs::create_directories(runs);
    fs::copy(mixer_, runs / "mixer", fs::copy_options::recursive);
    gui::OverTrainingView view;
    view.setRunsDirectory(q(runs.string()));
    QCOMPARE(view.runCount(), 1);
    fs::copy(llama_, runs / "llama", fs::copy_options::recursive);  // trained while the window was open
    view.show();
    QVERIFY(QTest::qWaitForWindowExposed(&view));
    QCOMPARE(view.runCount(), 2);
    fs::copy(llama_, runs / "llama-2", fs::copy_options::recursive);
    auto* box = view.findChild<QComboBox*>("over_training_run");
    QVERIFY(box != nullptr);
    const QString chosen = box->currentData().toString();
    box->showPopup();
    QCOMPARE(view.runCount(), 3);
    QCOMPARE(box->currentData().toString(), chosen);  // the choice survives the refresh
    box->hidePopup();
  }

  // An inversion stopped while its loss still fell says so in the status line.
  void underConvergedInversionSaysSo() {
    gui::InversionPanel panel;
    QCOMPARE(panel.addModel(q(mixer_.string())), QString());
    panel.setText(kText);
    setIterations(panel, 3);
    QVERIFY(runInspection(panel));
    QVERIFY2(panel.statusText().contains("still improving") && panel.statusText().contains("raise Iterations"),
             qPrintable(panel.statusText()));
  }

  // The chart shows, per model and layer, the Hamming distances invertTexts gives in-process.
  void chartMatchesInProcessInversion() {
    panel_ = std::make_unique<gui::InversionPanel>();
    panel_->resize(1300, 800);
    QCOMPARE(panel_->addModel(q(mixer_.string())), QString());
    QCOMPARE(panel_->addUntrainedTwin(0), QString());  // the one-click untrained twin
    QCOMPARE(panel_->addModel(q(llama_.string())), QString());
    QVERIFY(!panel_->addUntrainedTwin(0).isEmpty());  // already in the list
    QCOMPARE(panel_->modelCount(), 3);
    QCOMPARE(panel_->modelLabel(0), QString("mixer \u00b7 step 12"));
    QCOMPARE(panel_->modelLabel(1), QString("mixer \u00b7 untrained"));
    QCOMPARE(panel_->settingsForm()->depth(), 2);  // layer boxes 0..2
    panel_->setText(kText);
    setIterations(*panel_, kIterations);
    panel_->show();
    QVERIFY(QTest::qWaitForWindowExposed(panel_.get()));
    QVERIFY(runInspection(*panel_));
    QVERIFY(panel_->hasResults());

    expected_.clear();
    for (const ModelSource& source : sources())
      expected_.push_back(invertTexts(source, {kText.toStdString()}, defaultSettings({0, 1, 2})));
    widgets::InversionLayerChart* chart = panel_->chart();
    QCOMPARE(chart->seriesCount(), 3);
    bool models_differ = false;
    for (int i = 0; i < 3; ++i) {
      QCOMPARE(int(panel_->modelState(i)), int(gui::InversionPanel::ModelState::kDone));
      QCOMPARE(chart->seriesName(i), panel_->modelLabel(i));
      QCOMPARE(int(panel_->results(i).size()), 3);
      for (const InversionResult& r : expected_[i]) {
        const int layer = int(r.layer);
        QCOMPARE(chart->value(i, layer, false), r.hamming_top_k);
        QCOMPARE(chart->value(i, layer, true), r.hamming_exact);
        QCOMPARE(panel_->results(i)[layer].counted_positions, r.counted_positions);
        QVERIFY(std::abs(panel_->results(i)[layer].final_loss - r.final_loss) <= 1e-6 * std::max(1.0, r.final_loss));
        models_differ = models_differ || r.hamming_exact != expected_[0][layer].hamming_exact;
      }
      QVERIFY2(panel_->modelRow(i)->status().startsWith("done"), qPrintable(panel_->modelRow(i)->status()));
    }
    QVERIFY2(models_differ, "every model scored alike: the comparison would not tell a swapped series");
    chart->replotNow();  // The chart's legend is a row of its own, off the curves
    QVERIFY(chart->legendRect().height() > 0);
    QVERIFY2(!chart->legendRect().intersects(chart->axisRect()), "the layer chart's legend covers the curves");
    // The deepest layer is shown first, with every model's scores above the diff.
    QCOMPARE(panel_->shownLayer(), 2);
    const InversionResult& llama_last = expected_[2][2];
    QVERIFY2(panel_->layerSummary().contains(QString("top-5 %1, exact %2")
                                                 .arg(llama_last.hamming_top_k, 0, 'f', 3)
                                                 .arg(llama_last.hamming_exact, 0, 'f', 3)),
             qPrintable(panel_->layerSummary()));
  }

  // The form's options (init, objective, top-k, seed, ticked layers) reach the core.
  void optionsReachTheCore() {
    gui::InversionPanel panel;
    QCOMPARE(panel.addModel(q(llama_.string())), QString());
    panel.setText(kText);
    widgets::InversionFormValues v;
    v.all_layers = false;
    v.layers = {1};
    v.iterations = 20;
    v.learning_rate = 0.05;
    v.paper_init = true;
    v.last_position = true;
    v.top_k = 3;
    v.seed = 7;
    panel.settingsForm()->setValues(v);
    QVERIFY(!panel.settingsForm()->layerBox(0)->isChecked());
    QVERIFY(panel.settingsForm()->layerBox(1)->isChecked());
    QVERIFY(runInspection(panel));
    InversionSettings s;
    s.layers = {1};
    s.iterations = 20;
    s.learning_rate = 0.05;
    s.init = InversionInit::kPaperNormal;
    s.objective = InversionObjective::kLastPosition;
    s.top_k = 3;
    s.seed = 7;
    const auto expected = invertTexts(ModelSource::checkpoint(resolveCheckpointDir(llama_)), {kText.toStdString()}, s);
    QCOMPARE(int(panel.results(0).size()), 1);
    const InversionResult& got = panel.results(0)[0];
    QCOMPARE(got.layer, int64_t(1));
    QCOMPARE(int(got.tokens.front().candidates.size()), 3);
    QCOMPARE(got.loss_curve.size(), expected[0].loss_curve.size());
    for (size_t n = 0; n < got.loss_curve.size(); ++n)
      QVERIFY(std::abs(got.loss_curve[n] - expected[0].loss_curve[n]) <=
              1e-6 * std::max(1.0, expected[0].loss_curve[n]));
    QCOMPARE(panel.chart()->value(0, 1, false), expected[0].hamming_top_k);
    QCOMPARE(panel.chart()->value(0, 1, true), expected[0].hamming_exact);
    QVERIFY(std::isnan(panel.chart()->value(0, 0, false)));  // layer 0 was not ticked
  }

  // The diff shows every counted position of every model, highlights exactly those not recovered
  // exactly (amber when among the top k, red otherwise), and its tooltip gives the true token's rank.
  void diffMarksExactlyTheMismatches() {
    QVERIFY(panel_);
    widgets::InversionDiffView* diff = panel_->diffView();
    int highlighted = 0, misses = 0;
    for (int layer = 0; layer <= 2; ++layer) {
      panel_->showLayer(layer);
      QCOMPARE(diff->rowCount(), 3);
      for (int row = 0; row < 3; ++row) {
        const InversionResult& r = expected_[row][layer];
        QCOMPARE(diff->row(row).layer, layer);
        QVector<int> counted, mismatched;
        for (int p = 0; p < int(r.tokens.size()); ++p) {
          const InvertedToken& t = r.tokens[p];
          if (!t.counted) continue;
          counted.push_back(p);
          if (!t.exact) mismatched.push_back(p);
          const auto want = t.exact         ? widgets::InversionDiffView::Mark::kExact
                            : t.top_k_match ? widgets::InversionDiffView::Mark::kTopK
                                            : widgets::InversionDiffView::Mark::kMiss;
          QCOMPARE(int(diff->mark(row, p)), int(want));
          QCOMPARE(diff->row(row).tokens[p].candidate_ids.value(0), t.candidates[0]);
          misses += t.top_k_match ? 0 : 1;
        }
        QCOMPARE(diff->shownPositions(row), counted);  // padding hidden, every real token shown
        QCOMPARE(diff->highlightedPositions(row), mismatched);
        highlighted += mismatched.size();
      }
    }
    QVERIFY2(highlighted > 0 && misses > 0, "no mismatch to check: invert with fewer steps");
    diff->setShowPadding(true);
    QCOMPARE(diff->shownPositions(0).size(), int(expected_[0][2].tokens.size()));
    diff->setShowPadding(false);

    // A mismatched token of the llama at the last layer: hover shows its rank and candidates.
    panel_->showLayer(2);
    const InversionResult& r = expected_[2][2];
    int position = -1;
    for (int p = 0; p < int(r.tokens.size()) && position < 0; ++p) {
      if (r.tokens[p].counted && !r.tokens[p].exact && !diff->cellRect(2, p).isEmpty()) position = p;
    }
    QVERIFY(position >= 0);
    const InvertedToken& t = r.tokens[position];
    QWidget* canvas = diff->canvas();
    const QPoint at = diff->cellRect(2, position).center();
    diff->ensureVisible(at.x(), at.y());
    QHelpEvent help(QEvent::ToolTip, at, canvas->mapToGlobal(at));
    QApplication::sendEvent(canvas, &help);
    QTRY_VERIFY(QToolTip::isVisible());
    const QString tip = QToolTip::text();
    QVERIFY2(tip.contains(QString("rank of the true token among all decoded tokens: <b>%1</b>").arg(t.reference_rank)),
             qPrintable(tip));
    // Where the token is, counted in the text's own tokens (the context is left-padded).
    int padding_before = 0, text_before = 0;
    for (int p = 0; p < position; ++p) (r.tokens[p].counted ? text_before : padding_before) += 1;
    const QString place =
        padding_before == 0
            ? QString("layer 2, token %1 of the text").arg(text_before + 1)
            : QString("layer 2, token %1 of the text (context position %2: %3 padding tokens come first)")
                  .arg(text_before + 1)
                  .arg(position + 1)
                  .arg(padding_before);
    QVERIFY2(tip.contains(place), qPrintable(tip));
    for (const std::string& piece : t.candidate_texts)
      QVERIFY2(tip.contains(widgets::InversionDiffView::visiblePiece(q(piece)).toHtmlEscaped()), qPrintable(tip));
    QToolTip::hideText();
    // The input token above lists every model's rank of it.
    const QString input_tip = diff->toolTipAt(diff->inputCellRect(0, position).center());
    for (int row = 0; row < 3; ++row)
      QVERIFY2(input_tip.contains(QString("rank %1").arg(expected_[row][2].tokens[position].reference_rank)),
               qPrintable(input_tip));
  }

  // A token's place is said in the text's own tokens, padding named as padding; the charts'
  // measures have a plain-language caption and a y label short enough not to be cut.
  void tokenPlacesAndMeasuresAreExplained() {
    QVector<widgets::InvertedTokenView> tokens(4);
    tokens[0].counted = tokens[1].counted = false;
    QCOMPARE(widgets::InversionDiffView::placeInText(tokens, 2),
             QString("token 1 of the text (context position 3: 2 padding tokens come first)"));
    QCOMPARE(widgets::InversionDiffView::placeInText(tokens, 3),
             QString("token 2 of the text (context position 4: 2 padding tokens come first)"));
    QVERIFY(widgets::InversionDiffView::placeInText(tokens, 1).startsWith("padding at context position 2"));
    QCOMPARE(widgets::InversionDiffView::placeInText(QVector<widgets::InvertedTokenView>(3), 0),
             QString("token 1 of the text"));
    QVERIFY(panel_);
    auto* caption = panel_->findChild<QLabel*>("inversion_measures_caption");
    QVERIFY(caption != nullptr);
    QVERIFY(caption->text().contains("Hamming distance") && caption->text().contains("L1 / |target|"));
    QVERIFY(caption->text().contains("top-k") && caption->text().contains("exact"));
    QCOMPARE(panel_->chart()->valueAxisLabel(), QString("Hamming distance"));
  }

  // Clicking the chart near a layer shows that layer's tokens in the diff.
  void chartClickShowsThatLayer() {
    QVERIFY(panel_);
    panel_->showLayer(2);
    widgets::InversionLayerChart* chart = panel_->chart();
    chart->replotNow();
    const QPointF at = chart->pixelOf(1, 0.5);
    QTest::mouseClick(chart->plotArea(), Qt::LeftButton, {}, at.toPoint());
    QCOMPARE(panel_->shownLayer(), 1);
    QCOMPARE(chart->selectedLayer(), 1);
    for (int row = 0; row < 3; ++row) {
      const InversionResult& r = expected_[row][1];
      QCOMPARE(panel_->diffView()->row(row).layer, 1);
      QCOMPARE(panel_->diffView()->row(row).hamming_exact, r.hamming_exact);
      for (int p = 0; p < int(r.tokens.size()); ++p)
        QCOMPARE(panel_->diffView()->row(row).tokens[p].candidate_ids.value(0), r.tokens[p].candidates[0]);
    }
  }

  void savedJsonParses() {
    QVERIFY(panel_);
    const fs::path path = dir_ / "inversion.json";
    QCOMPARE(panel_->saveResults(q(path.string())), QString());
    const nlohmann::json j = nlohmann::json::parse(readFile(path));
    QCOMPARE(q(j.at("texts")[0].get<std::string>()), kText);
    QCOMPARE(j.at("settings").at("iterations").get<int>(), kIterations);
    QCOMPARE(q(j.at("settings").at("init").get<std::string>()), QString("standard"));
    QCOMPARE(int(j.at("models").size()), 3);
    QCOMPARE(j.at("models")[1].at("untrained").get<bool>(), true);
    QCOMPARE(q(j.at("models")[2].at("architecture").get<std::string>()), QString("llama"));
    for (int i = 0; i < 3; ++i) {
      const nlohmann::json& results = j.at("models")[i].at("results");
      QCOMPARE(int(results.size()), 3);
      for (int layer = 0; layer < 3; ++layer) {
        const nlohmann::json& r = results[layer];
        QCOMPARE(r.at("layer").get<int>(), layer);
        QCOMPARE(r.at("hamming_top5").get<double>(), expected_[i][layer].hamming_top_k);
        QCOMPARE(r.at("hamming_exact").get<double>(), expected_[i][layer].hamming_exact);
        QCOMPARE(int(r.at("reference_rank").size()), int(expected_[i][layer].tokens.size()));
        for (const char* key : {"original_tokens", "recovered_tokens", "candidates", "counted", "loss_curve",
                                "epsilon_l1", "counted_positions"})
          QVERIFY2(r.contains(key), key);
      }
    }
  }

  // Cancel stops the descent within a step or so; the model shows as cancelled, with the layer and
  // step it reached. Progress arrives while it runs (throttled), and the event loop keeps serving.
  void cancelEndsPromptly() {
    gui::InversionPanel panel;
    QCOMPARE(panel.addModel(q(llama_.string())), QString());
    QCOMPARE(panel.addModel(q(mixer_.string())), QString());
    panel.setText(kText);
    setLongRun(panel);
    panel.show();
    gui::EventLoopLatency probe;
    QSignalSpy finished(&panel, &gui::InversionPanel::runFinished);
    QCOMPARE(panel.invert(), QString());
    QTRY_VERIFY_WITH_TIMEOUT(panel.modelRow(0)->status().contains("step"), kTimeoutMs);
    probe.start();
    QTest::qWait(500);
    probe.stop();
    QVERIFY(panel.isRunning());
    QElapsedTimer clock;
    clock.start();
    panel.cancel();
    QVERIFY(finished.wait(10000) || finished.count() == 1);
    const qint64 cancel_ms = clock.elapsed();
    QVERIFY2(cancel_ms < 1000, qPrintable(QString("cancel took %1 ms").arg(cancel_ms)));
    QCOMPARE(int(panel.modelState(0)), int(gui::InversionPanel::ModelState::kCancelled));
    QCOMPARE(int(panel.modelState(1)), int(gui::InversionPanel::ModelState::kSkipped));
    QVERIFY2(panel.modelRow(0)->status().contains("cancelled at layer 0"), qPrintable(panel.modelRow(0)->status()));
    QVERIFY(panel.modelRow(1)->status().contains("cancelled"));
    QVERIFY(panel.statusText().contains("cancelled"));
    QVERIFY(!panel.results(0).empty() && panel.results(0).back().cancelled);
    QVERIFY(panel.results(0).back().loss_curve.size() < size_t(kLongRunSteps));
    QCOMPARE(panel.chart()->seriesCount(), 1);  // the cancelled layer is not a score: no point drawn
    QVERIFY(std::isnan(panel.chart()->value(0, 0, false)));
    qInfo("cancel took %lld ms; event loop while inverting: max %.1f ms, p99 %.1f ms (%d samples)", cancel_ms,
          probe.maxLatencyMs(), probe.p99LatencyMs(), probe.sampleCount());
    QVERIFY2(probe.sampleCount() >= 10, qPrintable(QString::number(probe.sampleCount())));
  }

  // One column per checkpoint plus the untrained twin first, values as invertOverTraining gives
  // them in-process, and clicking a cell shows that checkpoint's tokens at that layer.
  void overTrainingHeatmap() {
    gui::InversionPanel panel;
    panel.resize(1300, 800);
    panel.show();
    QVERIFY(QTest::qWaitForWindowExposed(&panel));
    panel.showOverTrainingPage();
    gui::OverTrainingView* view = panel.overTraining();
    QCOMPARE(view->setRun(q(mixer_.string())), QString());
    QCOMPARE(panel.settingsForm()->depth(), 2);  // the layer boxes follow the run when no model is chosen
    view->setEvalDocuments(2);
    setIterations(panel, kIterations);
    QVERIFY(waitFor(&panel, SIGNAL(overTrainingFinished()), [&]() { return panel.invertOverTraining(); }));
    QVERIFY(view->hasGrid());

    const fs::path dir = resolveCheckpointDir(mixer_);
    const auto texts = evalSplitDocuments(checkpointProject(dir, readCheckpointConfig(dir)), 2);
    QCOMPARE(int(view->texts().size()), 2);
    QCOMPARE(q(view->texts()[1]), q(texts[1]));
    const auto checkpoints = listCheckpoints(mixer_ / "checkpoints");
    QCOMPARE(int(checkpoints.size()), 3);
    const InversionOverTraining expected = invertOverTraining(mixer_, texts, defaultSettings({0, 1, 2}));
    widgets::InversionHeatmap* heatmap = view->heatmap();
    QCOMPARE(heatmap->columnCount(), int(checkpoints.size()) + 1);
    QCOMPARE(heatmap->rowCount(), 3);
    QCOMPARE(heatmap->columnLabel(0), QString("untrained"));
    QCOMPARE(heatmap->columnLabel(1), QString("4"));
    QCOMPARE(heatmap->columnLabel(3), QString("12"));
    for (int row = 0; row < 3; ++row)
      for (int column = 0; column < 4; ++column)
        QCOMPARE(heatmap->value(row, column), expected.hamming_top_k[row][column]);

    heatmap->replotNow();
    QTest::mouseClick(heatmap->plotArea(), Qt::LeftButton, {}, heatmap->cellCenter(2, 1));
    QVERIFY2(view->cellTitle().contains("step 4, layer 2"), qPrintable(view->cellTitle()));
    const InversionResult& cell = expected.results[1][2 * texts.size()];  // layer 2, input 0
    QCOMPARE(cell.layer, int64_t(2));
    widgets::InversionDiffView* diff = view->diffView();
    QCOMPARE(diff->rowCount(), 1);
    QCOMPARE(diff->row(0).layer, 2);
    for (int p = 0; p < int(cell.tokens.size()); ++p)
      QCOMPARE(diff->row(0).tokens[p].candidate_ids.value(0), cell.tokens[p].candidates[0]);
    QVERIFY(view->showCell(0, 0, 1));  // the untrained column, layer 0, second input
    QCOMPARE(diff->row(0).tokens.back().original_id, expected.results[0][1].tokens.back().original_id);
    QVERIFY(view->cellTitle().contains("untrained, layer 0"));

    const fs::path path = dir_ / "over-training.json";
    QCOMPARE(panel.saveResults(q(path.string())), QString());
    const nlohmann::json j = nlohmann::json::parse(readFile(path)).at("over_training");
    QCOMPARE(int(j.at("columns").size()), 4);
    QCOMPARE(q(j.at("columns")[0].at("checkpoint").get<std::string>()), QString("untrained"));
    QCOMPARE(j.at("hamming_top_k")[2][3].get<double>(), expected.hamming_top_k[2][3]);
    QCOMPARE(int(j.at("results")[1].size()), 3 * 2);
  }

  // The first model's eval-split documents are offered as inputs.
  void evalDocumentBecomesTheInput() {
    gui::InversionPanel panel;
    QCOMPARE(panel.addModel(q(mixer_.string())), QString());
    QTRY_VERIFY_WITH_TIMEOUT(panel.evalDocumentCount() > 0, kTimeoutMs);
    const fs::path dir = resolveCheckpointDir(mixer_);
    const auto expected =
        evalSplitDocuments(checkpointProject(dir, readCheckpointConfig(dir)), gui::InversionPanel::kEvalDocuments);
    QCOMPARE(panel.evalDocumentCount(), int(expected.size()));
    QVERIFY(panel.chooseEvalDocument(1));
    QCOMPARE(panel.text(), q(expected[1]));
  }

  // Destroying the panel mid-run cancels and joins the worker.
  void destroyingMidRunJoinsTheThread() {
    auto panel = std::make_unique<gui::InversionPanel>();
    QCOMPARE(panel->addModel(q(llama_.string())), QString());
    panel->setText(kText);
    setLongRun(*panel);
    QCOMPARE(panel->invert(), QString());
    QTRY_VERIFY_WITH_TIMEOUT(panel->modelRow(0)->status().contains("step"), kTimeoutMs);
    const qint64 destroy_ms = testing::msToDestroy(panel);
    QVERIFY2(destroy_ms < 5000, qPrintable(QString::number(destroy_ms)));
    QTest::qWait(50);  // stray queued reports must find nothing to crash on
  }

  void mainWindowOpensTheInspectTab() {
    gui::MainWindow window;
    QCOMPARE(window.openProject(q(project_file_.string())), QString());
    QCOMPARE(window.showInspection({"mixer", "untrained:mixer", q(llama_.string())}), QString());
    gui::InversionPanel* panel = window.inversionPanel();
    QVERIFY(panel->isVisibleTo(&window));
    QCOMPARE(panel->modelCount(), 3);
    QCOMPARE(panel->modelLabel(1), QString("mixer \u00b7 untrained"));
    QVERIFY(!window.showInspection({"mixer"}).isEmpty());  // already in the list
    panel->setText(kText);
    setLongRun(*panel);
    QCOMPARE(panel->invert(), QString());
    QTRY_VERIFY_WITH_TIMEOUT(panel->modelRow(0)->status().contains("step"), kTimeoutMs);
    window.close();  // closing mid-run stops the worker
    QVERIFY(!panel->isRunning());
  }

  void cleanupTestCase() { panel_.reset(); }
};

QTEST_MAIN(TestInversionPanel)
#include "test_inversion_panel.moc"
