// Made-up loss data for the loss plot tests: a noisy decaying run, and a JSON-lines metrics file
// that grows (and is torn mid-record) the way a training process writes metrics.jsonl.
#pragma once
#include <QtTest/QtTest>

#include <QFile>
#include <QJsonDocument>
#include <QJsonObject>
#include <QWidget>
#include <cmath>
#include <cstdlib>

#include "widgets/plots/loss_series.h"

namespace mixerlab::widgets::testing {

// A run with noisy, decaying train loss and an eval point every 50 steps; flops = tokens x flops_per_token.
inline LossSeries makeRun(const QString& name, int steps, double floor_loss, double flops_per_token, unsigned seed) {
  LossSeries s;
  s.run = name;
  std::srand(seed);
  for (int step = 1; step <= steps; ++step) {
    const double tokens = step * 2048.0;
    const double noise = (std::rand() / double(RAND_MAX) - 0.5) * 0.6;
    const double loss = floor_loss + 4.0 * std::exp(-step / 60.0) + noise;
    s.appendTrain({double(step), tokens, step * 0.25, loss, tokens * flops_per_token});
    if (step % 50 == 0)
      s.appendEval({double(step), tokens, step * 0.25, floor_loss + 4.0 * std::exp(-step / 60.0) + 0.1,
                    tokens * flops_per_token});
  }
  return s;
}

// Gives a plot the tests' size (900 x 500), shows it and waits until it is on screen; false when it
// never got there.
inline bool showPlot(QWidget& plot) {
  plot.resize(900, 500);
  plot.show();
  return QTest::qWaitForWindowExposed(&plot);
}

// Reads whole lines appended to a JSON-lines metrics file since the last call (a torn last line
// waits for the next call), the way the run monitor tails metrics.jsonl.
struct Tail {
  QString path;
  qint64 offset = 0;
  void poll(LossSeries& series) {
    QFile f(path);
    QVERIFY(f.open(QIODevice::ReadOnly));
    f.seek(offset);
    const QByteArray bytes = f.readAll();
    const int end = bytes.lastIndexOf('\n') + 1;
    offset += end;
    for (const QByteArray& line : bytes.left(end).split('\n')) {
      if (line.isEmpty()) continue;
      const QJsonObject o = QJsonDocument::fromJson(line).object();
      LossPoint p{o["step"].toDouble(), o["tokens"].toDouble(), o["wall_s"].toDouble(), 0,
                  o["tokens"].toDouble() * 6e6};
      if (o.contains("train_loss")) p.loss = o["train_loss"].toDouble(), series.appendTrain(p);
      if (o.contains("eval_loss")) p.loss = o["eval_loss"].toDouble(), series.appendEval(p);
    }
  }
};

inline QByteArray metricsLine(int step, double loss_offset) {
  return QStringLiteral("{\"step\":%1,\"tokens\":%2,\"wall_s\":%3,\"train_loss\":%4}\n")
      .arg(step)
      .arg(step * 1024)
      .arg(step * 0.1)
      .arg(5.0 - step * 0.01 + loss_offset)
      .toUtf8();
}

inline void appendBytes(const QString& path, const QByteArray& bytes) {
  QFile f(path);
  QVERIFY(f.open(QIODevice::Append));
  f.write(bytes);
}

inline void appendLines(const QString& path, int from_step, int to_step, double loss_offset) {
  QByteArray bytes;
  for (int step = from_step; step <= to_step; ++step) bytes += metricsLine(step, loss_offset);
  appendBytes(path, bytes);
}

}  // namespace mixerlab::widgets::testing
