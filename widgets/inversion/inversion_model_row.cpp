// InversionModelRow (see inversion_model_row.h).
#include "widgets/inversion/inversion_model_row.h"

#include <QHBoxLayout>
#include <QLabel>
#include <QProgressBar>
#include <QToolButton>
#include <QVBoxLayout>

#include "widgets/tables/column_header.h"

namespace mixerlab::widgets {

InversionModelRow::InversionModelRow(QWidget* parent) : QFrame(parent) {
  setFrameShape(QFrame::StyledPanel);
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(6, 3, 4, 4);
  layout->setSpacing(1);
  auto* top = new QHBoxLayout;
  swatch_ = new QLabel(this);
  swatch_->setFixedSize(10, 10);
  title_ = makeBoldTitle(this, "model_title", /*selectable=*/false);
  twin_ = new QToolButton(this);
  twin_->setObjectName("add_twin");
  twin_->setText(tr("+ untrained"));
  twin_->setAutoRaise(true);
  twin_->setToolTip(tr("Add the untrained twin: the same config and tokenizer, freshly initialised"));
  connect(twin_, &QToolButton::clicked, this, &InversionModelRow::twinRequested);
  remove_ = makeRemoveButton(this, "remove_model", tr("Remove this model"));
  connect(remove_, &QToolButton::clicked, this, &InversionModelRow::removeRequested);
  top->addWidget(swatch_);
  top->addWidget(title_, 1);
  top->addWidget(twin_);
  top->addWidget(remove_);
  layout->addLayout(top);
  details_ = new QLabel(this);
  details_->setObjectName("model_details");
  details_->setWordWrap(true);
  QPalette faint = details_->palette();
  faint.setColor(QPalette::WindowText, QColor(100, 100, 100));
  details_->setPalette(faint);
  layout->addWidget(details_);
  bar_ = new QProgressBar(this);
  bar_->setObjectName("model_progress");
  bar_->setTextVisible(false);
  bar_->setFixedHeight(6);
  bar_->hide();
  layout->addWidget(bar_);
  status_ = new QLabel(this);
  status_->setObjectName("model_status");
  status_->setWordWrap(true);
  status_->setMinimumWidth(40);
  layout->addWidget(status_);
}

void InversionModelRow::setTitle(const QString& title, const QColor& colour, const QString& tooltip) {
  title_->setText(title);
  title_->setToolTip(tooltip);
  swatch_->setStyleSheet(QString("background:%1; border-radius:2px;").arg(colour.name()));
}

void InversionModelRow::setDetails(const QString& details) { details_->setText(details); }
void InversionModelRow::setTwinAvailable(bool available) { twin_->setVisible(available); }

void InversionModelRow::setEditable(bool editable) {
  twin_->setEnabled(editable);
  remove_->setEnabled(editable);
}

void InversionModelRow::setProgress(qint64 done, qint64 total, const QString& text) {
  bar_->show();
  bar_->setRange(0, 1000);
  bar_->setValue(total > 0 ? static_cast<int>(1000 * done / total) : 0);
  status_->setText(text);
}

void InversionModelRow::setStatus(const QString& status) {
  bar_->hide();
  status_->setText(status);
}

QString InversionModelRow::title() const { return title_->text(); }
QString InversionModelRow::status() const { return status_->text(); }
int InversionModelRow::progressPercent() const { return bar_->isHidden() ? -1 : bar_->value() / 10; }

}  // namespace mixerlab::widgets
