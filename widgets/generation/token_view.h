// One generated token as the generation views show it: the text it adds, the model's probability
// of it and the most likely alternatives at that step. Plain data (the app fills it from the core's
// GeneratedToken), so the views are testable with made-up tokens.
#pragma once
#include <QString>
#include <QVector>

namespace mixerlab::widgets {

struct TokenAlternativeView {
  int id = 0;
  QString text;  // the piece as the tokenizer spells it (e.g. "▁the")
  double prob = 0;
};

struct TokenView {
  int id = 0;
  QString text;  // what the token adds to the decoded text
  double prob = 0;
  QVector<TokenAlternativeView> top;  // most likely first
};

}  // namespace mixerlab::widgets
