// One model's inverted tokens for one layer and input, as the inversion views show them: for each
// position the input's token, the decoded candidates, the rank of the token to recover among all
// decoded scores and whether it was recovered exactly, only among the top k, or not at all. Plain
// data (the app fills it from the core's InversionResult), so the views are testable with made-up
// tokens.
#pragma once
#include <QString>
#include <QVector>

namespace mixerlab::widgets {

struct InvertedTokenView {
  int original_id = 0;
  QString original;             // the input's token piece (e.g. "▁dog")
  int reference_id = 0;         // the token to recover (the input's own unless the research reference)
  QVector<int> candidate_ids;   // decoded from the recovered embedding, most likely first
  QVector<QString> candidates;  // their pieces
  qint64 reference_rank = 0;    // 1-based rank of reference_id among every decoded score
  bool counted = true;          // false at padding
  bool exact = false;           // candidates[0] is the reference token
  bool top_k_match = false;     // the reference token is among the candidates
};

// One row of the diff: a model's recovered tokens at one layer.
struct InversionDiffRow {
  QString model;  // as the legend and the chart name it
  int layer = 0;
  double hamming_top_k = 0, hamming_exact = 0;
  int top_k = 5;
  bool cancelled = false;  // the descent was stopped early: these tokens are where it got to
  QVector<InvertedTokenView> tokens;
};

}  // namespace mixerlab::widgets
