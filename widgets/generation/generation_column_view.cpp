// GenerationColumnView (see generation_column_view.h).
#include "widgets/generation/generation_column_view.h"

#include <algorithm>

#include <QAbstractTextDocumentLayout>
#include <QComboBox>
#include <QHBoxLayout>
#include <QHelpEvent>
#include <QLabel>
#include <QScrollBar>
#include <QTextCursor>
#include <QTextDocument>
#include <QTextEdit>
#include <QToolButton>
#include <QToolTip>
#include <QVBoxLayout>

#include "widgets/generation/token_probability_scale.h"
#include "widgets/tables/column_header.h"

namespace mixerlab::widgets {

namespace {

// Whitespace made visible for the tooltip (the chosen token's text and the alternatives' pieces,
// whose sentencepiece word marker ▁ is a space too).
QString visibleText(const QString& text) {
  QString out = text;
  out.replace(QChar(0x2581), QChar(0x2423));  // ▁ -> ␣
  out.replace(' ', QChar(0x2423));            // ␣
  out.replace('\n', QChar(0x21B5));           // ↵
  out.replace('\t', QChar(0x21E5));           // ⇥
  return out.toHtmlEscaped();
}

QString probText(double prob) { return QString::number(prob, 'f', prob < 0.001 ? 5 : 3); }

}  // namespace

GenerationColumnView::GenerationColumnView(QWidget* parent) : QFrame(parent) {
  setFrameShape(QFrame::StyledPanel);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 4, 6, 6);
  layout->setSpacing(2);
  auto* top = new QHBoxLayout;
  title_ = makeBoldTitle(this, "column_title", /*selectable=*/true);
  remove_ = makeRemoveButton(this, "remove_column", tr("Remove this column"));
  connect(remove_, &QToolButton::clicked, this, &GenerationColumnView::removeRequested);
  samples_ = new QComboBox(this);
  samples_->setObjectName("sample_choice");
  samples_->setToolTip(tr("The stories of this column, one per seed: pick the one to show"));
  samples_->hide();
  connect(samples_, &QComboBox::activated, this, &GenerationColumnView::sampleChosen);
  top->addWidget(title_, 1);
  top->addWidget(samples_);
  top->addWidget(remove_);
  layout->addLayout(top);
  details_ = new QLabel(this);
  details_->setObjectName("column_details");
  status_ = new QLabel(this);
  status_->setObjectName("column_status");
  for (QLabel* label : {title_, details_, status_}) label->setMinimumWidth(40);
  details_->setWordWrap(true);
  status_->setWordWrap(true);
  layout->addWidget(details_);
  layout->addWidget(status_);
  text_ = new QTextEdit(this);
  text_->setObjectName("column_text");
  text_->setReadOnly(true);
  text_->setUndoRedoEnabled(false);
  text_->setMouseTracking(true);
  text_->viewport()->installEventFilter(this);
  layout->addWidget(text_, 1);
}

void GenerationColumnView::setTitle(const QString& title, const QString& tooltip) {
  title_->setText(title);
  title_->setToolTip(tooltip);
}

void GenerationColumnView::setDetails(const QString& details) { details_->setText(details); }
void GenerationColumnView::setStatus(const QString& status) { status_->setText(status); }
void GenerationColumnView::setRemovable(bool removable) { remove_->setVisible(removable); }
void GenerationColumnView::setRemoveEnabled(bool enabled) { remove_->setEnabled(enabled); }
void GenerationColumnView::setSamples(int count, quint64 first_seed) {
  const QSignalBlocker block(samples_);
  samples_->clear();
  for (int i = 0; i < count; ++i) {
    samples_->addItem(tr("sample %1 of %2 (seed %3)").arg(i + 1).arg(count).arg(first_seed + quint64(i)));
  }
  samples_->setCurrentIndex(count > 0 ? 0 : -1);
  samples_->setVisible(count > 1);
}

int GenerationColumnView::sampleCount() const { return std::max(1, samples_->count()); }
int GenerationColumnView::shownSample() const { return std::max(0, samples_->currentIndex()); }

bool GenerationColumnView::chooseSample(int sample) {
  if (sample < 0 || sample >= samples_->count()) return false;
  samples_->setCurrentIndex(sample);
  Q_EMIT sampleChosen(sample);
  return true;
}

QString GenerationColumnView::title() const { return title_->text(); }
QString GenerationColumnView::details() const { return details_->text(); }
QString GenerationColumnView::status() const { return status_->text(); }

void GenerationColumnView::clearText(const QString& prompt) {
  tokens_.clear();
  spans_.clear();
  text_->clear();
  QString shown = prompt;
  shown.replace("\r\n", "\n");
  QTextCharFormat format;
  format.setForeground(palette().color(QPalette::Disabled, QPalette::Text));
  QTextCursor cursor(text_->document());
  cursor.insertText(shown, format);
  prompt_length_ = cursor.position();
}

void GenerationColumnView::startStory(const QString& prompt) { clearText(prompt); }

QString GenerationColumnView::promptCutMarker(int dropped_tokens) {
  return tr("[%n prompt token(s) not seen: no room in the window] ", nullptr, dropped_tokens);
}

void GenerationColumnView::showPromptCut(const QString& seen_prompt, int dropped_tokens) {
  QString seen = seen_prompt;
  seen.replace("\r\n", "\n");
  QTextCursor cursor(text_->document());
  cursor.beginEditBlock();
  cursor.setPosition(0);
  cursor.setPosition(prompt_length_, QTextCursor::KeepAnchor);
  cursor.removeSelectedText();
  QTextCharFormat marker;
  marker.setFontItalic(true);
  marker.setForeground(QColor(0xb0, 0x00, 0x20));
  cursor.insertText(promptCutMarker(dropped_tokens), marker);
  QTextCharFormat prompt;
  prompt.setForeground(palette().color(QPalette::Disabled, QPalette::Text));
  cursor.insertText(seen, prompt);
  cursor.endEditBlock();
  const int shift = cursor.position() - prompt_length_;
  prompt_length_ = cursor.position();
  for (Span& span : spans_) {
    span.start += shift;
    span.end += shift;
  }
}

void GenerationColumnView::appendToken(const TokenView& token) { appendTokens({token}); }

void GenerationColumnView::appendTokens(const QVector<TokenView>& tokens) {
  if (tokens.isEmpty()) return;
  QScrollBar* bar = text_->verticalScrollBar();
  const bool follow = bar->value() == bar->maximum();
  QTextCursor cursor(text_->document());
  cursor.movePosition(QTextCursor::End);
  cursor.beginEditBlock();
  for (const TokenView& token : tokens) {
    QTextCharFormat format;
    format.setBackground(tokenProbabilityColor(token.prob));
    format.setForeground(Qt::black);
    const int start = cursor.position();
    cursor.insertText(token.text, format);
    tokens_.push_back(token);
    spans_.push_back({start, cursor.position()});
  }
  cursor.endEditBlock();
  if (follow) bar->setValue(bar->maximum());
}

void GenerationColumnView::truncateGenerated(int generated_length) {
  const int end = prompt_length_ + generated_length;
  QTextCursor cursor(text_->document());
  cursor.movePosition(QTextCursor::End);
  if (cursor.position() <= end) return;
  cursor.setPosition(end);
  cursor.movePosition(QTextCursor::End, QTextCursor::KeepAnchor);
  cursor.removeSelectedText();
  for (Span& span : spans_) {
    span.start = std::min(span.start, end);
    span.end = std::min(span.end, end);
  }
}

void GenerationColumnView::setPlainStory(const QString& prompt, const QString& text) {
  clearText(prompt);
  QTextCursor cursor(text_->document());
  cursor.movePosition(QTextCursor::End);
  cursor.insertText(text, QTextCharFormat());
}

QString GenerationColumnView::generatedText() const { return text_->toPlainText().mid(prompt_length_); }

int GenerationColumnView::tokenAt(const QPoint& viewport_pos) const {
  const QPoint offset(text_->horizontalScrollBar()->value(), text_->verticalScrollBar()->value());
  int position = text_->document()->documentLayout()->hitTest(viewport_pos + offset, Qt::ExactHit);
  if (position < 0) return -1;
  QTextCursor caret(text_->document());
  caret.setPosition(position);
  // hitTest gives the caret position nearest the point: right of the character under the mouse
  // when the mouse is over that character's right half.
  if (position > 0 && text_->cursorRect(caret).left() > viewport_pos.x()) --position;
  const auto it =
      std::upper_bound(spans_.begin(), spans_.end(), position, [](int p, const Span& span) { return p < span.end; });
  if (it == spans_.end() || it->start > position || it->start == it->end) return -1;
  return static_cast<int>(it - spans_.begin());
}

QRect GenerationColumnView::tokenRect(int index) const {
  const Span& span = spans_[index];
  if (span.start == span.end) return {};
  QTextCursor caret(text_->document());
  caret.setPosition(span.start);
  const QRect left = text_->cursorRect(caret);
  caret.setPosition(span.end);
  const QRect right = text_->cursorRect(caret);
  // A token that wraps (or ends in a newline): its first line, to the viewport's right edge.
  const int right_x = right.top() == left.top() ? right.left() : text_->viewport()->width();
  return QRect(left.topLeft(), QPoint(std::max(right_x, left.left() + 2), left.bottom()));
}

QString GenerationColumnView::tokenToolTip(const TokenView& token) {
  QString html = QString("<b>\u201c%1\u201d</b> &nbsp; p = %2").arg(visibleText(token.text), probText(token.prob));
  if (token.top.isEmpty()) return html;
  html += "<br/>" + tr("top %1 at this step:").arg(token.top.size()) + "<table cellspacing='0' cellpadding='1'>";
  for (int i = 0; i < token.top.size(); ++i) {
    const TokenAlternativeView& alt = token.top[i];
    const bool chosen = alt.id == token.id;
    const QString open = chosen ? "<b>" : "", close = chosen ? "</b>" : "";
    html += QString("<tr><td>%1.</td><td>%2\u201c%3\u201d%4</td><td align='right'>&nbsp;&nbsp;%2%5%4</td></tr>")
                .arg(i + 1)
                .arg(open, visibleText(alt.text), close, probText(alt.prob));
  }
  return html + "</table>";
}

bool GenerationColumnView::eventFilter(QObject* watched, QEvent* event) {
  if (watched == text_->viewport() && event->type() == QEvent::ToolTip) {
    auto* help = static_cast<QHelpEvent*>(event);
    const int index = tokenAt(help->pos());
    if (index < 0) {
      QToolTip::hideText();
    } else {
      QToolTip::showText(help->globalPos(), tokenToolTip(tokens_[index]), text_->viewport(), tokenRect(index));
    }
    return true;
  }
  return QFrame::eventFilter(watched, event);
}

}  // namespace mixerlab::widgets
