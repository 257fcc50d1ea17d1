// Tests of the GUI's one owner of background work, with real threads: a BackgroundJob delivers its
// worker's reports in order and then finished(id); the reports a superseded job still had queued
// are dropped; cancel reaches the worker (which still reports); destroying the job mid-run joins
// the thread, deletes the worker and drops its last reports; a resident job runs posted calls on
// its thread and skips a postLatest() call replaced before it started; a job's share of the cores
// becomes its thread's LibTorch threads; a LatestRequestLoader delivers only the newest answer.
#include <QtTest/QtTest>

#include <ATen/Parallel.h>
#include <atomic>
#include <memory>
#include <vector>

#include "app/gui/common/background_job.h"
#include "app/gui/common/latest_request_loader.h"

using namespace mixerlab;

namespace {

constexpr int kTimeoutMs = 10000;
constexpr int kWaitForCancelMs = 3000;  // a worker waiting for its cancel gives up after this

// What a worker did, readable after it is gone.
struct Trace {
  std::atomic<bool> ran{false}, saw_cancel{false}, returned{false}, destroyed{false};
  std::atomic<int> emitted{0}, torch_threads{0};
  std::atomic<QThread*> thread{nullptr};
};

// Emits `reports` numbered reports at once, then (with `until_cancelled`) polls the cancel flag
// for up to kWaitForCancelMs, and ends with a last report numbered -1.
class ReportingWorker : public gui::JobWorker {
  Q_OBJECT
 public:
  ReportingWorker(QString label, int reports, bool until_cancelled, std::shared_ptr<Trace> trace)
      : label_(std::move(label)), reports_(reports), until_cancelled_(until_cancelled), trace_(std::move(trace)) {}
  ~ReportingWorker() override { trace_->destroyed = true; }

  void run() override {
    trace_->thread = QThread::currentThread();
    useCoreShare();
    trace_->torch_threads = at::get_num_threads();
    trace_->ran = true;
    for (int i = 0; i < reports_; ++i) {
      Q_EMIT report(label_, i);
      ++trace_->emitted;
    }
    QElapsedTimer clock;  // bounded, so a job whose cancel never arrives fails instead of hanging
    clock.start();
    while (until_cancelled_ && !cancelled() && clock.elapsed() < kWaitForCancelMs) QThread::msleep(1);
    trace_->saw_cancel = cancelled();
    if (cancelled()) QThread::msleep(50);  // ends its step, as a descent or a generation would
    Q_EMIT report(label_, -1);
    trace_->returned = true;
  }

 Q_SIGNALS:
  void report(const QString& label, int number);

 private:
  QString label_;
  int reports_;
  bool until_cancelled_;
  std::shared_ptr<Trace> trace_;
};

struct Received {
  std::vector<std::pair<QString, int>> reports;
};

// Waits without running the event loop, so reports stay queued.
bool spinUntil(const std::function<bool()>& done) {
  QElapsedTimer clock;
  clock.start();
  while (!done()) {
    if (clock.elapsed() > kTimeoutMs) return false;
    QThread::msleep(1);
  }
  return true;
}

ReportingWorker* worker(gui::BackgroundJob& job, const QString& label, int reports, bool until_cancelled,
                        const std::shared_ptr<Trace>& trace, const std::shared_ptr<Received>& received) {
  auto* w = new ReportingWorker(label, reports, until_cancelled, trace);
  job.forward(w, &ReportingWorker::report,
              [received](const QString& from, int number) { received->reports.emplace_back(from, number); });
  return w;
}

}  // namespace

class TestBackgroundJob : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void reportsArriveInOrderThenFinished() {
    gui::BackgroundJob job("test-job");
    auto trace = std::make_shared<Trace>();
    auto received = std::make_shared<Received>();
    QSignalSpy finished(&job, &gui::BackgroundJob::finished);
    const int id = job.start(worker(job, "a", 100, false, trace, received));
    QVERIFY(id > 0);
    QVERIFY(job.isRunning());
    QVERIFY(finished.wait(kTimeoutMs));
    QCOMPARE(finished.at(0).at(0).toInt(), id);
    QVERIFY(!job.isRunning());
    QVERIFY(trace->thread.load() != QThread::currentThread());  // it ran on the job's thread
    QVERIFY(trace->destroyed);                                  // and was deleted there
    QCOMPARE(int(received->reports.size()), 101);
    for (int i = 0; i < 100; ++i) QCOMPARE(received->reports[size_t(i)].second, i);
    QCOMPARE(received->reports.back().second, -1);  // every report came before finished
  }

  // A job started while another's reports are still queued: only the new job's reports arrive.
  void staleReportsOfASupersededJobAreDropped() {
    gui::BackgroundJob job("test-job");
    auto old_trace = std::make_shared<Trace>(), new_trace = std::make_shared<Trace>();
    auto received = std::make_shared<Received>();
    const int old_id = job.start(worker(job, "old", 200, true, old_trace, received));
    QVERIFY(
        spinUntil([&emitted = old_trace->emitted]() { return emitted == 200; }));  // 200 reports queued, none delivered
    QSignalSpy finished(&job, &gui::BackgroundJob::finished);
    const int new_id = job.start(worker(job, "new", 5, false, new_trace, received));  // stops the old job
    QVERIFY(new_id != old_id);
    QVERIFY(!job.isCurrent(old_id));
    QVERIFY(old_trace->saw_cancel && old_trace->returned && old_trace->destroyed);
    QVERIFY(finished.wait(kTimeoutMs));
    QCOMPARE(finished.at(0).at(0).toInt(), new_id);
    QTest::qWait(20);
    for (const auto& [from, number] : received->reports) QCOMPARE(from, QString("new"));
    QCOMPARE(int(received->reports.size()), 6);
  }

  // Cancel is not stop: the worker sees the flag, ends, and its reports (the last one included) arrive.
  void cancelReachesTheWorker() {
    gui::BackgroundJob job("test-job");
    auto trace = std::make_shared<Trace>();
    auto received = std::make_shared<Received>();
    QSignalSpy finished(&job, &gui::BackgroundJob::finished);
    job.start(worker(job, "a", 3, true, trace, received));
    QTRY_VERIFY_WITH_TIMEOUT(trace->ran, kTimeoutMs);
    QTest::qWait(50);
    QVERIFY(job.isRunning());  // it waits for the cancel
    job.cancel();
    QVERIFY(finished.wait(kTimeoutMs));
    QVERIFY(trace->saw_cancel);
    QCOMPARE(int(received->reports.size()), 4);
    QCOMPARE(received->reports.back().second, -1);
  }

  // Destroying the job mid-run cancels and joins its thread before it returns; the worker is
  // deleted and its reports still queued never arrive.
  void destructionJoinsTheThread() {
    auto job = std::make_unique<gui::BackgroundJob>("test-job");
    auto trace = std::make_shared<Trace>();
    auto received = std::make_shared<Received>();
    job->start(worker(*job, "a", 0, true, trace, received));
    QTRY_VERIFY_WITH_TIMEOUT(trace->ran, kTimeoutMs);
    QElapsedTimer clock;
    clock.start();
    job.reset();
    QVERIFY(trace->returned);   // run() had returned: the thread was joined
    QVERIFY(trace->destroyed);  // and the worker deleted
    QVERIFY2(clock.elapsed() < 5000, qPrintable(QString::number(clock.elapsed())));
    QTest::qWait(50);
    QCOMPARE(int(received->reports.size()), 0);  // its last report was dropped with the job
  }

  // A resident job runs posted calls on its thread, in order; a postLatest() call replaced by a
  // newer one before it started is skipped; stop() ends the thread and deletes the worker.
  void residentJobRunsPostedCalls() {
    gui::BackgroundJob job("test-job");
    auto trace = std::make_shared<Trace>();
    auto received = std::make_shared<Received>();
    job.startResident(worker(job, "a", 1, false, trace, received));
    auto order = std::make_shared<std::vector<int>>();  // written on the job's thread only
    std::atomic<QThread*> call_thread{nullptr};
    std::atomic<bool> blocker_started{false}, done{false};
    job.post([&]() {
      call_thread = QThread::currentThread();
      blocker_started = true;
      QThread::msleep(600);  // the next calls queue up behind this one
    });
    QVERIFY(spinUntil([&]() { return blocker_started.load(); }));
    job.postLatest([order]() { order->push_back(1); });  // replaced by the next before its turn
    job.postLatest([order]() { order->push_back(2); });
    job.post([order, &done]() {
      order->push_back(3);
      done = true;
    });
    QVERIFY(spinUntil([&]() { return done.load(); }));
    QCOMPARE(call_thread.load(), trace->thread.load());
    QVERIFY(call_thread.load() != QThread::currentThread());
    QCOMPARE(*order, (std::vector<int>{2, 3}));
    QVERIFY(job.isRunning());  // resident: it stays after run() and the calls
    job.stop();
    QVERIFY(!job.isRunning());
    QVERIFY(trace->destroyed);
  }

  // A job's share of the cores becomes its thread's LibTorch intra-op threads.
  void coreShareSetsLibTorchThreads() {
    const int cores = QThread::idealThreadCount();
    QCOMPARE(gui::BackgroundJob::coreShare(1), std::max(1, cores));
    QCOMPARE(gui::BackgroundJob::coreShare(cores * 4), 1);
    for (const int jobs : {cores, 1}) {
      gui::BackgroundJob job("test-job");
      auto trace = std::make_shared<Trace>();
      auto received = std::make_shared<Received>();
      QSignalSpy finished(&job, &gui::BackgroundJob::finished);
      job.start(worker(job, "a", 0, false, trace, received), jobs);
      QVERIFY(finished.wait(kTimeoutMs));
      QCOMPARE(trace->torch_threads.load(), gui::BackgroundJob::coreShare(jobs));
    }
  }

  // Requests 1 (slow, running), 2 and 3 in a row: 2 never runs, 1's answer is dropped, 3's arrives.
  void newestLoaderRequestWins() {
    gui::LatestRequestLoader loader("test-loader");
    auto ran = std::make_shared<std::vector<int>>();  // written on the loader's thread only
    std::vector<int> delivered;
    std::atomic<bool> first_started{false};
    auto load = [&, ran](int number, int sleep_ms) -> gui::LatestRequestLoader::Load {
      return [&, ran, number, sleep_ms]() -> std::function<void()> {
        ran->push_back(number);
        if (number == 1) first_started = true;
        QThread::msleep(static_cast<unsigned long>(sleep_ms));
        return [&delivered, number]() { delivered.push_back(number); };
      };
    };
    loader.request(load(1, 1000));
    QVERIFY(spinUntil([&]() { return first_started.load(); }));
    loader.request(load(2, 0));
    loader.request(load(3, 0));
    QVERIFY(loader.isLoading());
    QTRY_VERIFY_WITH_TIMEOUT(!loader.isLoading(), kTimeoutMs);
    QTest::qWait(50);
    QCOMPARE(delivered, std::vector<int>{3});
    QCOMPARE(*ran, (std::vector<int>{1, 3}));
    loader.request(load(4, 0));
    QTRY_VERIFY_WITH_TIMEOUT(!loader.isLoading(), kTimeoutMs);
    QCOMPARE(delivered, (std::vector<int>{3, 4}));
  }
};

QTEST_GUILESS_MAIN(TestBackgroundJob)
#include "test_background_job.moc"
