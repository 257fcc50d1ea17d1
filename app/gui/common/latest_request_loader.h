// Loads things off the GUI thread where only the newest request matters (the eval documents of the
// checkpoint now first in a panel): requests are answered one at a time on a thread of its own (a
// resident BackgroundJob), a request superseded before its turn is never run, and an answer is
// delivered only if no newer request was made meanwhile; earlier answers are dropped. The
// destructor waits for a load in progress.
#pragma once
#include <QObject>
#include <QString>
#include <functional>

namespace mixerlab::gui {

class BackgroundJob;

class LatestRequestLoader : public QObject {
  Q_OBJECT
 public:
  // Runs on the loader's thread and must not throw (catch, and deliver the error); returns what to
  // run on the GUI thread with the answer.
  using Load = std::function<std::function<void()>()>;

  explicit LatestRequestLoader(const QString& thread_name, QObject* parent = nullptr);
  ~LatestRequestLoader() override;

  void request(Load load);
  bool isLoading() const { return answered_ < requested_; }  // the newest answer is still to come

 private:
  BackgroundJob* job_ = nullptr;
  int requested_ = 0;  // the newest request's number
  int answered_ = 0;   // the last delivered
};

}  // namespace mixerlab::gui
