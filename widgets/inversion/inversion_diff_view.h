// The token-level diff of representation inversion: the input's tokens on one line and, aligned
// under each, every model's recovered token (its top-1 decoded candidate) for one layer. Exact
// recoveries stay plain, positions recovered only among the top k are marked in a soft amber and
// misses in red; padding is hidden (or shown dimmed). Hovering a recovered token lists the rank of
// the true token among all decoded tokens and the top-k candidates; hovering an input token lists
// every model's rank. Long inputs wrap into bands. Models whose inputs tokenise differently get an
// input line of their own. Plain data in (InversionDiffRow), so tests fill it with made-up tokens.
#pragma once
#include <QColor>
#include <QRect>
#include <QScrollArea>
#include <QString>
#include <QVector>

#include "widgets/inversion/inversion_token_view.h"

namespace mixerlab::widgets {

class InversionDiffView : public QScrollArea {
  Q_OBJECT
 public:
  enum class Mark { kPadding, kExact, kTopK, kMiss };

  explicit InversionDiffView(QWidget* parent = nullptr);

  // One row per model, each the same layer of the same input; `colours` (optional, per row) are
  // the models' colours in the chart, shown as a bar beside their lines.
  void setRows(const QVector<InversionDiffRow>& rows, const QVector<QColor>& colours = {});
  void clear(const QString& message = {});  // no rows; `message` in their place
  void setShowPadding(bool shown);
  bool showPadding() const { return show_padding_; }

  int rowCount() const { return static_cast<int>(rows_.size()); }
  const InversionDiffRow& row(int index) const { return rows_[index]; }
  // What is drawn, read back from the laid-out cells (tests and tooltips use the same cells).
  QVector<int> shownPositions(int row) const;        // in order
  QVector<int> highlightedPositions(int row) const;  // drawn amber or red
  Mark mark(int row, int position) const;            // kPadding also for a position not drawn
  QRect cellRect(int row, int position) const;       // the recovered token's cell, canvas coordinates
  QRect inputCellRect(int row, int position) const;  // the input token above it
  QWidget* canvas() const { return canvas_; }
  QString toolTipAt(const QPoint& canvas_pos) const;  // empty off the cells

  static QString recoveredToolTip(const InversionDiffRow& row, int position);
  // Where a token sits, in words: "token k of the text" counting only the text's own tokens, and,
  // when padding fills the context before the text, its position in the context too.
  static QString placeInText(const QVector<InvertedTokenView>& tokens, int position);
  // The piece with its whitespace made visible (▁ and spaces as ␣, newlines as ↵).
  static QString visiblePiece(const QString& piece);

 protected:
  void resizeEvent(QResizeEvent* event) override;

 private:
  friend class InversionDiffCanvas;
  struct Cell {
    int row = 0;       // the model row; with input = true, the first row of its group
    int position = 0;  // token position in the padded input
    bool input = false;
    Mark mark = Mark::kExact;
    QRect rect;
    QString text;
  };
  struct Label {
    QRect rect;
    QString text;
    QColor colour;  // a bar beside a model's line; invalid for the input line
  };
  void relayout();
  QString inputToolTip(int group_first_row, int position) const;
  const Cell* cellAt(const QPoint& pos) const;
  const Cell* findCell(int row, int position, bool input) const;

  QWidget* canvas_ = nullptr;
  QVector<InversionDiffRow> rows_;
  QVector<QColor> colours_;
  QVector<int> group_of_row_;  // index of the row's first row with the same input tokens
  QVector<Cell> cells_;
  QVector<Label> labels_;
  QString message_;
  bool show_padding_ = false;
};

}  // namespace mixerlab::widgets
