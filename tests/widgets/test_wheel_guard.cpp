// The mouse wheel over a form scrolls the form. An editor that does not have focus
// passes the wheel on to the scroll area (its value stays); once clicked or tabbed into, the wheel
// changes it as usual. Checked for the settings editors (field_editors.h) and the run form's
// choice boxes (ConfigForm). Links mixerlab_widgets only.
#include <QtTest/QtTest>

#include <QtTest/qtestspontaneevent.h>
#include <QApplication>
#include <QComboBox>
#include <QLineEdit>
#include <QScrollArea>
#include <QScrollBar>
#include <QVBoxLayout>

#include "widgets/forms/config_form.h"
#include "widgets/forms/field_editors.h"

using namespace mixerlab::widgets;

namespace {

// A wheel notch down over `target`, delivered as the window system delivers it (spontaneous, so
// QApplication propagates it to the parents when the target does not take it).
void wheelDown(QWidget* target) {
  const QPointF local(target->width() / 2.0, target->height() / 2.0);
  QWheelEvent wheel(local, target->mapToGlobal(local), QPoint(), QPoint(0, -120), Qt::NoButton, Qt::NoModifier,
                    Qt::NoScrollPhase, false);
  QSpontaneKeyEvent::setSpontaneous(&wheel);
  QApplication::sendEvent(target, &wheel);
}

FieldSpec choiceSpec(const QString& key) {
  FieldSpec spec;
  spec.key = key;
  spec.label = key;
  spec.type = FieldSpec::Choice;
  spec.choices = {"next_token", "multi_token", "one_step_completion"};
  spec.default_value = "next_token";
  return spec;
}

// A scroll area 200 px high over a 2000 px page that holds `editor` at the top.
struct ScrolledPage {
  QScrollArea area;
  QWidget* page = new QWidget;
  explicit ScrolledPage(QWidget* editor) {
    auto* layout = new QVBoxLayout(page);
    layout->addWidget(editor);
    layout->addSpacing(2000);
    area.setWidget(page);
    area.resize(300, 200);
    area.show();
  }
};

}  // namespace

class TestWheelGuard : public QObject {
  Q_OBJECT

 private Q_SLOTS:
  void wheelOverAnUnfocusedEditorScrollsTheForm() {
    auto* combo = choiceEditor(choiceSpec("model.objective"), nullptr);
    auto* other_field = new QLineEdit;  // where the focus is while the wheel passes over the combo
    ScrolledPage scrolled(combo);
    scrolled.page->layout()->addWidget(other_field);
    QVERIFY(QTest::qWaitForWindowExposed(&scrolled.area));
    other_field->setFocus(Qt::OtherFocusReason);
    QTRY_VERIFY(!combo->hasFocus());
    const int index = combo->currentIndex();
    wheelDown(combo);
    QCOMPARE(combo->currentIndex(), index);
    QVERIFY2(scrolled.area.verticalScrollBar()->value() > 0, "the scroll area did not scroll");
    // Focused, the wheel works on the editor again.
    scrolled.area.activateWindow();
    combo->setFocus(Qt::OtherFocusReason);
    QVERIFY(QTest::qWaitForWindowActive(&scrolled.area));
    QTRY_VERIFY(combo->hasFocus());
    wheelDown(combo);
    QVERIFY(combo->currentIndex() != index);
    QCOMPARE(combo->focusPolicy(), Qt::StrongFocus);
  }

  void theRunFormsChoicesKeepTheirValueUnderTheWheel() {
    ConfigForm form;
    form.setSchema({choiceSpec("model.objective")});
    QScrollArea area;
    area.setWidget(&form);
    area.setWidgetResizable(true);
    area.resize(400, 120);
    area.show();
    QVERIFY(QTest::qWaitForWindowExposed(&area));
    auto* combo = form.findChild<QComboBox*>("model.objective");
    QVERIFY(combo);
    const QString before = combo->currentText();
    wheelDown(combo);
    QCOMPARE(combo->currentText(), before);
    QCOMPARE(combo->focusPolicy(), Qt::StrongFocus);
    area.takeWidget();  // the form lives on the stack
  }
};

QTEST_MAIN(TestWheelGuard)
#include "test_wheel_guard.moc"
