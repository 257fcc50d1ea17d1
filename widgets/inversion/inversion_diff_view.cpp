// InversionDiffView (see inversion_diff_view.h): lays the tokens out as cells in bands, paints
// them on a canvas inside the scroll area and answers tooltips from the same cells.
#include "widgets/inversion/inversion_diff_view.h"

#include <QEvent>
#include <QHelpEvent>
#include <QPainter>
#include <QResizeEvent>
#include <QScrollBar>
#include <QToolTip>
#include <algorithm>

namespace mixerlab::widgets {

namespace {

const QColor kInputBackground(236, 236, 236);
const QColor kTopKBackground(253, 226, 160);  // soft amber: recovered, but not as the top-1
const QColor kMissBackground(244, 170, 164);  // red: the true token is not among the top k
const QColor kMissText(120, 0, 0);
const QColor kPaddingText(170, 170, 170);
constexpr int kCellPadding = 4;  // each side of a token's text
constexpr int kMinCellWidth = 16;
constexpr int kBandGap = 10;     // between wrapped bands
constexpr int kMaxGutter = 190;  // the row labels' column

bool sameInput(const InversionDiffRow& a, const InversionDiffRow& b) {
  if (a.tokens.size() != b.tokens.size()) return false;
  for (int i = 0; i < a.tokens.size(); ++i) {
    if (a.tokens[i].original_id != b.tokens[i].original_id) return false;
  }
  return true;
}

QString recoveredPiece(const InvertedTokenView& t) { return t.candidates.isEmpty() ? QString("?") : t.candidates[0]; }

InversionDiffView::Mark markOf(const InvertedTokenView& t) {
  if (!t.counted) return InversionDiffView::Mark::kPadding;
  if (t.exact) return InversionDiffView::Mark::kExact;
  return t.top_k_match ? InversionDiffView::Mark::kTopK : InversionDiffView::Mark::kMiss;
}

QString markText(InversionDiffView::Mark mark, int top_k) {
  switch (mark) {
    case InversionDiffView::Mark::kExact:
      return QObject::tr("recovered exactly");
    case InversionDiffView::Mark::kTopK:
      return QObject::tr("recovered among the top %1 only").arg(top_k);
    case InversionDiffView::Mark::kMiss:
      return QObject::tr("not recovered (not in the top %1)").arg(top_k);
    case InversionDiffView::Mark::kPadding:
      break;
  }
  return QObject::tr("padding (not counted)");
}

}  // namespace

// The painted surface inside the scroll area; the view owns the layout.
class InversionDiffCanvas : public QWidget {
 public:
  explicit InversionDiffCanvas(InversionDiffView* view) : QWidget(view), view_(view) {
    setMouseTracking(true);
    setAttribute(Qt::WA_OpaquePaintEvent);
  }

 protected:
  void paintEvent(QPaintEvent*) override {
    QPainter p(this);
    p.fillRect(rect(), palette().color(QPalette::Base));
    if (view_->rows_.isEmpty()) {
      p.setPen(palette().color(QPalette::Disabled, QPalette::Text));
      p.drawText(rect().adjusted(8, 8, -8, -8), Qt::AlignCenter | Qt::TextWordWrap, view_->message_);
      return;
    }
    for (const InversionDiffView::Label& label : view_->labels_) {
      if (label.colour.isValid())
        p.fillRect(QRect(label.rect.left(), label.rect.top() + 2, 4, label.rect.height() - 4), label.colour);
      p.setPen(palette().color(QPalette::Text));
      const QRect text_rect = label.rect.adjusted(8, 0, -4, 0);
      p.drawText(text_rect, Qt::AlignLeft | Qt::AlignVCenter,
                 fontMetrics().elidedText(label.text, Qt::ElideMiddle, text_rect.width()));
    }
    for (const InversionDiffView::Cell& cell : view_->cells_) {
      QColor background, text = Qt::black;
      if (cell.input) {
        background = kInputBackground;
        if (cell.mark == InversionDiffView::Mark::kPadding) text = kPaddingText;
      } else if (cell.mark == InversionDiffView::Mark::kTopK) {
        background = kTopKBackground;
      } else if (cell.mark == InversionDiffView::Mark::kMiss) {
        background = kMissBackground;
        text = kMissText;
      } else if (cell.mark == InversionDiffView::Mark::kPadding) {
        text = kPaddingText;
      }
      const QRect box = cell.rect.adjusted(1, 1, -1, -1);
      if (background.isValid()) p.fillRect(box, background);
      p.setPen(text);
      p.drawText(box, Qt::AlignCenter, cell.text);
    }
  }

  bool event(QEvent* event) override {
    if (event->type() == QEvent::ToolTip) {
      auto* help = static_cast<QHelpEvent*>(event);
      const InversionDiffView::Cell* cell = view_->cellAt(help->pos());
      if (cell == nullptr) {
        QToolTip::hideText();
      } else {
        QToolTip::showText(help->globalPos(), view_->toolTipAt(help->pos()), this, cell->rect);
      }
      return true;
    }
    return QWidget::event(event);
  }

 private:
  InversionDiffView* view_;
};

InversionDiffView::InversionDiffView(QWidget* parent) : QScrollArea(parent) {
  canvas_ = new InversionDiffCanvas(this);
  canvas_->setObjectName("inversion_diff_canvas");
  setWidget(canvas_);
  setWidgetResizable(false);
  setHorizontalScrollBarPolicy(Qt::ScrollBarAlwaysOff);
  setMinimumHeight(90);
  clear();
}

void InversionDiffView::setRows(const QVector<InversionDiffRow>& rows, const QVector<QColor>& colours) {
  rows_ = rows;
  colours_ = colours;
  group_of_row_.clear();
  for (int r = 0; r < rows_.size(); ++r) {
    int group = r;
    for (int g = 0; g < r && group == r; ++g) {
      if (group_of_row_[g] == g && sameInput(rows_[g], rows_[r])) group = g;
    }
    group_of_row_.push_back(group);
  }
  message_.clear();
  relayout();
}

void InversionDiffView::clear(const QString& message) {
  rows_.clear();
  colours_.clear();
  group_of_row_.clear();
  message_ = message.isEmpty() ? tr("Run an inversion: the recovered tokens of the chosen layer show here.") : message;
  relayout();
}

void InversionDiffView::setShowPadding(bool shown) {
  show_padding_ = shown;
  relayout();
}

void InversionDiffView::resizeEvent(QResizeEvent* event) {
  QScrollArea::resizeEvent(event);
  relayout();
}

void InversionDiffView::relayout() {
  cells_.clear();
  labels_.clear();
  const int width = std::max(200, viewport()->width());
  const QFontMetrics fm(canvas_->font());
  const int line_h = fm.height() + 6;
  int gutter = fm.horizontalAdvance(tr("input")) + 16;
  for (const InversionDiffRow& row : rows_) gutter = std::max(gutter, fm.horizontalAdvance(row.model) + 16);
  gutter = std::min(gutter, std::min(kMaxGutter, width / 3));
  int y = 4;
  for (int first = 0; first < rows_.size(); ++first) {
    if (group_of_row_[first] != first) continue;
    QVector<int> members;
    for (int r = first; r < rows_.size(); ++r) {
      if (group_of_row_[r] == first) members.push_back(r);
    }
    const InversionDiffRow& lead = rows_[first];
    QVector<int> positions;  // drawn: counted by any member (every position with padding shown)
    for (int p = 0; p < lead.tokens.size(); ++p) {
      bool counted = show_padding_;
      for (int r : members) counted = counted || (p < rows_[r].tokens.size() && rows_[r].tokens[p].counted);
      if (counted) positions.push_back(p);
    }
    const int band_h = line_h * (1 + static_cast<int>(members.size()));
    auto addLabels = [&](int band_y) {
      labels_.push_back({QRect(0, band_y, gutter, line_h), tr("input"), QColor()});
      for (int m = 0; m < members.size(); ++m) {
        const int r = members[m];
        labels_.push_back({QRect(0, band_y + line_h * (m + 1), gutter, line_h), rows_[r].model,
                           r < colours_.size() ? colours_[r] : QColor()});
      }
    };
    addLabels(y);
    int x = gutter;
    for (int p : positions) {
      const InvertedTokenView& in = lead.tokens[p];
      const QString input_text = visiblePiece(in.original);
      int w = fm.horizontalAdvance(input_text);
      QVector<QString> recovered;
      for (int r : members) {
        recovered.push_back(visiblePiece(recoveredPiece(rows_[r].tokens[p])));
        w = std::max(w, fm.horizontalAdvance(recovered.back()));
      }
      w = std::max(kMinCellWidth, w + 2 * kCellPadding);
      if (x + w > width - 2 && x > gutter) {  // wrap into a new band
        y += band_h + kBandGap;
        x = gutter;
        addLabels(y);
      }
      cells_.push_back({first, p, true, markOf(in), QRect(x, y, w, line_h), input_text});
      for (int m = 0; m < members.size(); ++m) {
        const int r = members[m];
        cells_.push_back(
            {r, p, false, markOf(rows_[r].tokens[p]), QRect(x, y + line_h * (m + 1), w, line_h), recovered[m]});
      }
      x += w;
    }
    y += band_h + kBandGap * 2;
  }
  const int height = rows_.isEmpty() ? std::max(60, viewport()->height()) : y;
  canvas_->resize(width, height);
  canvas_->update();
}

const InversionDiffView::Cell* InversionDiffView::findCell(int row, int position, bool input) const {
  const int key_row = input && row < group_of_row_.size() ? group_of_row_[row] : row;
  for (const Cell& cell : cells_) {
    if (cell.input == input && cell.row == key_row && cell.position == position) return &cell;
  }
  return nullptr;
}

const InversionDiffView::Cell* InversionDiffView::cellAt(const QPoint& pos) const {
  for (const Cell& cell : cells_) {
    if (cell.rect.contains(pos)) return &cell;
  }
  return nullptr;
}

QVector<int> InversionDiffView::shownPositions(int row) const {
  QVector<int> out;
  for (const Cell& cell : cells_) {
    if (!cell.input && cell.row == row) out.push_back(cell.position);
  }
  return out;
}

QVector<int> InversionDiffView::highlightedPositions(int row) const {
  QVector<int> out;
  for (const Cell& cell : cells_) {
    if (!cell.input && cell.row == row && (cell.mark == Mark::kTopK || cell.mark == Mark::kMiss))
      out.push_back(cell.position);
  }
  return out;
}

InversionDiffView::Mark InversionDiffView::mark(int row, int position) const {
  const Cell* cell = findCell(row, position, false);
  return cell ? cell->mark : Mark::kPadding;
}

QRect InversionDiffView::cellRect(int row, int position) const {
  const Cell* cell = findCell(row, position, false);
  return cell ? cell->rect : QRect();
}

QRect InversionDiffView::inputCellRect(int row, int position) const {
  const Cell* cell = findCell(row, position, true);
  return cell ? cell->rect : QRect();
}

QString InversionDiffView::toolTipAt(const QPoint& canvas_pos) const {
  const Cell* cell = cellAt(canvas_pos);
  if (cell == nullptr) return {};
  return cell->input ? inputToolTip(cell->row, cell->position) : recoveredToolTip(rows_[cell->row], cell->position);
}

QString InversionDiffView::visiblePiece(const QString& piece) {
  QString out = piece;
  out.replace(QChar(0x2581), QChar(0x2423));  // ▁ -> ␣
  out.replace(' ', QChar(0x2423));
  out.replace('\n', QChar(0x21B5));
  out.replace('\t', QChar(0x21E5));
  return out;
}

QString InversionDiffView::recoveredToolTip(const InversionDiffRow& row, int position) {
  const InvertedTokenView& t = row.tokens[position];
  const Mark mark = markOf(t);
  QString html = QString("<b>%1</b> &nbsp;layer %2, %3<br/>")
                     .arg(row.model.toHtmlEscaped())
                     .arg(row.layer)
                     .arg(placeInText(row.tokens, position));
  html += tr("input \u201c%1\u201d, recovered \u201c%2\u201d: %3")
              .arg(visiblePiece(t.original).toHtmlEscaped(), visiblePiece(recoveredPiece(t)).toHtmlEscaped(),
                   markText(mark, row.top_k));
  if (t.reference_id != t.original_id)
    html += "<br/>" + tr("token to recover (research reference): id %1").arg(t.reference_id);
  html += "<br/>" + tr("rank of the true token among all decoded tokens: <b>%1</b>").arg(t.reference_rank);
  html += "<br/>" + tr("top %1 decoded:").arg(t.candidates.size()) + "<table cellspacing='0' cellpadding='1'>";
  for (int i = 0; i < t.candidates.size(); ++i) {
    const bool truth = i < t.candidate_ids.size() && t.candidate_ids[i] == t.reference_id;
    const QString open = truth ? "<b>" : "", close = truth ? "</b>" : "";
    html += QString("<tr><td>%1.</td><td>%2\u201c%3\u201d%4%5</td></tr>")
                .arg(i + 1)
                .arg(open, visiblePiece(t.candidates[i]).toHtmlEscaped(), close,
                     truth ? tr(" &nbsp;(the true token)") : QString());
  }
  html += "</table>";
  if (row.cancelled) html += tr("<i>cancelled: the descent stopped early</i>");
  return html;
}

QString InversionDiffView::placeInText(const QVector<InvertedTokenView>& tokens, int position) {
  int padding_before = 0, text_before = 0;
  for (int i = 0; i < position && i < tokens.size(); ++i) (tokens[i].counted ? text_before : padding_before) += 1;
  if (position < tokens.size() && !tokens[position].counted)
    return tr("padding at context position %1 (a text shorter than the context is padded on the left; "
              "padding is not counted)")
        .arg(position + 1);
  if (padding_before == 0) return tr("token %1 of the text").arg(text_before + 1);
  return tr("token %1 of the text (context position %2: %3 padding tokens come first)")
      .arg(text_before + 1)
      .arg(position + 1)
      .arg(padding_before);
}

QString InversionDiffView::inputToolTip(int group_first_row, int position) const {
  const InvertedTokenView& in = rows_[group_first_row].tokens[position];
  QString html = tr("<b>input</b>, %1: \u201c%2\u201d (id %3)")
                     .arg(placeInText(rows_[group_first_row].tokens, position))
                     .arg(visiblePiece(in.original).toHtmlEscaped())
                     .arg(in.original_id);
  html += "<table cellspacing='0' cellpadding='1'>";
  for (int r = 0; r < rows_.size(); ++r) {
    if (group_of_row_[r] != group_first_row) continue;
    const InvertedTokenView& t = rows_[r].tokens[position];
    html += QString("<tr><td>%1</td><td>&nbsp;\u201c%2\u201d</td><td>&nbsp;%3</td></tr>")
                .arg(rows_[r].model.toHtmlEscaped(), visiblePiece(recoveredPiece(t)).toHtmlEscaped(),
                     tr("rank %1").arg(t.reference_rank));
  }
  return html + "</table>";
}

}  // namespace mixerlab::widgets
