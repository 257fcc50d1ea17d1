// One column of the side-by-side generation panel: a header (checkpoint, architecture and
// decoder, live status with tokens/s and the finish reason) over a read-only text view holding the
// prompt in grey and the generated tokens, each on the background colour of its probability. Hovering
// a token shows its probability and the five most likely tokens at that step. Plain data in
// (TokenView), so tests fill it with made-up tokens; the app streams real ones into it. A round of
// several samples adds a sample chooser to the header; the view shows one sample at a time, and the
// panel refills it when another is chosen.
#pragma once
#include <QFrame>
#include <QString>
#include <QVector>

#include "widgets/generation/token_view.h"

class QComboBox;
class QLabel;
class QTextEdit;
class QToolButton;

namespace mixerlab::widgets {

class GenerationColumnView : public QFrame {
  Q_OBJECT
 public:
  explicit GenerationColumnView(QWidget* parent = nullptr);

  void setTitle(const QString& title, const QString& tooltip = {});
  void setDetails(const QString& details);  // e.g. "masked_mixer · cached-mixer decoder"
  void setStatus(const QString& status);    // e.g. "40 tokens · 812 tokens/s · finished: eos"
  void setRemovable(bool removable);        // shows or hides the close button
  void setRemoveEnabled(bool enabled);
  // A round of `count` samples, sample i drawn with seed first_seed + i: the chooser lists them
  // ("sample 2 of 3 (seed 8)") and shows sample 0; with count 1 it hides.
  void setSamples(int count, quint64 first_seed);
  int sampleCount() const;
  int shownSample() const;        // the sample the text shows
  bool chooseSample(int sample);  // as if picked in the chooser; false if out of range

  // Starts a new story: the prompt in grey, no tokens yet.
  void startStory(const QString& prompt);
  void appendToken(const TokenView& token);
  void appendTokens(const QVector<TokenView>& tokens);  // one layout pass for the batch
  // Cuts the generated text to its first `generated_length` characters (a stop string ends the
  // story before the text of the token that completed it).
  void truncateGenerated(int generated_length);
  // The model saw only the end of the prompt (`seen_prompt`; the window had no room for the first
  // `dropped_tokens`): the prompt shown becomes a marker saying so, then what was seen, so the story
  // continues what is on screen. Generated tokens keep their colours and tooltips.
  void showPromptCut(const QString& seen_prompt, int dropped_tokens);
  static QString promptCutMarker(int dropped_tokens);
  // The prompt and a plain text after it, without colours or tooltips (the true continuation).
  void setPlainStory(const QString& prompt, const QString& text);

  QString title() const;
  QString details() const;
  QString status() const;
  QString generatedText() const;  // the shown text after the prompt
  int tokenCount() const { return tokens_.size(); }
  const TokenView& token(int index) const { return tokens_[index]; }
  // The token under a point of the text view's viewport; -1 over the prompt or empty space.
  int tokenAt(const QPoint& viewport_pos) const;
  // The token's viewport rectangle (its first line when it wraps; empty when it shows no text).
  QRect tokenRect(int index) const;
  static QString tokenToolTip(const TokenView& token);
  QTextEdit* textView() const { return text_; }

 Q_SIGNALS:
  void removeRequested();
  void sampleChosen(int sample);  // picked in the chooser: the text should show that sample

 protected:
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  struct Span {
    int start = 0, end = 0;  // document positions of the token's text
  };
  void clearText(const QString& prompt);

  QLabel* title_ = nullptr;
  QLabel* details_ = nullptr;
  QLabel* status_ = nullptr;
  QToolButton* remove_ = nullptr;
  QComboBox* samples_ = nullptr;
  QTextEdit* text_ = nullptr;
  int prompt_length_ = 0;
  QVector<TokenView> tokens_;
  QVector<Span> spans_;
};

}  // namespace mixerlab::widgets
