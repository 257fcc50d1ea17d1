// The one owner of the GUI's background work: a BackgroundJob runs one JobWorker at a time on a
// QThread it owns, so model loading, generation, inversion, embedding and file polling never block
// the event loop. It holds the job's cancel flag (the worker polls it), gives the worker its share
// of the cores as LibTorch threads and a throttle for its progress reports (see JobWorker), and
// delivers the worker's reports (its signals, forwarded with forward()) on the GUI thread. Every report carries the id
// of the job that sent it and is dropped unless that job is still the current one, so a stopped or replaced job's
// reports, still queued, never reach a later job. Starting a job stops the one before; stop() and the destructor cancel
// and join the thread, so closing a panel mid-job is clean.
//
// Two kinds of job: start() runs the worker's run() and ends the thread when it returns (finished
// follows); startResident() keeps the worker on its thread for the calls post() sends it, until
// stop() (a retrieval column's loaded model, the run monitor's timer).
#pragma once
#include <QObject>
#include <QString>
#include <atomic>
#include <functional>
#include <memory>

#include "app/gui/common/job_worker.h"

class QThread;

namespace mixerlab::gui {

class BackgroundJob : public QObject {
  Q_OBJECT
 public:
  explicit BackgroundJob(QString thread_name, QObject* parent = nullptr);
  ~BackgroundJob() override;  // stop()

  // LibTorch threads for each of `jobs` jobs running at once: an equal share of the cores (more
  // threads than cores would make them fight, and spin), at least one.
  static int coreShare(int jobs);

  // Makes `worker` the current job (stopping the one before) and runs worker->run() on a new
  // thread; when it returns the thread ends and finished(id) follows. The job owns the worker (it
  // is deleted on its thread when the job ends). Connect its signals with forward() before.
  // `jobs_sharing_cores` > 0 gives the worker coreShare(jobs_sharing_cores) LibTorch threads (see
  // JobWorker::useCoreShare); 0 leaves them. Returns the job's id.
  int start(JobWorker* worker, int jobs_sharing_cores = 0);
  // The same, but the worker stays on its thread after run(), for post()ed calls, until stop().
  int startResident(JobWorker* worker, int jobs_sharing_cores = 0);

  // Resident jobs: runs `call` on the job's thread, after the calls posted before it.
  void post(std::function<void()> call);
  // The same, but skipped if another postLatest() call was made before this one started: a query
  // that the next one replaced while it waited is never run.
  void postLatest(std::function<void()> call);
  // From the job's thread: runs `call` on this object's thread unless job `id` (the job the
  // report comes from) is no longer the current one by then.
  void report(int id, std::function<void()> call);

  // Delivers `worker`'s `signal` to `slot` (a function, or a method of `receiver`) on this
  // object's thread while the worker's job is current; the receiver must outlive this job.
  template <typename Worker, typename Signal, typename Slot>
  void forward(Worker* worker, Signal signal, Slot slot);
  template <typename Worker, typename Signal, typename Receiver, typename Method>
  void forward(Worker* worker, Signal signal, Receiver* receiver, Method method);

  void cancel();  // sets the current job's cancel flag: its worker ends early and reports as usual
  void stop();    // cancel, quit and join the thread; its reports still queued are dropped
  bool isRunning() const { return thread_ != nullptr; }
  int id() const { return id_; }  // the current job's id, 0 after stop()
  bool isCurrent(int id) const { return id != 0 && id == id_; }

 Q_SIGNALS:
  void finished(int id);  // a start()ed job's run() returned and its thread is joined

 private:
  int launch(JobWorker* worker, int jobs_sharing_cores, bool resident);
  void onRunReturned(int id);

  QString thread_name_;
  QThread* thread_ = nullptr;
  JobWorker* worker_ = nullptr;  // lives on thread_
  int id_ = 0;
  std::shared_ptr<std::atomic<bool>> cancel_;  // the current worker's
  int latest_posts_ = 0;                       // postLatest() calls made
  std::shared_ptr<std::atomic<int>> latest_post_ = std::make_shared<std::atomic<int>>(0);
};

template <typename Worker, typename Signal, typename Slot>
void BackgroundJob::forward(Worker* worker, Signal signal, Slot slot) {
  const int id = worker->jobId();
  // Direct: the lambda runs on the worker's thread as it emits, and queues the call with the id.
  connect(
      worker, signal, this, [this, id, slot](const auto&... args) { report(id, [slot, args...]() { slot(args...); }); },
      Qt::DirectConnection);
}

template <typename Worker, typename Signal, typename Receiver, typename Method>
void BackgroundJob::forward(Worker* worker, Signal signal, Receiver* receiver, Method method) {
  forward(worker, signal, [receiver, method](const auto&... args) { (receiver->*method)(args...); });
}

}  // namespace mixerlab::gui
