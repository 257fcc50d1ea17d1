// The inversion inspector's settings: which layers (all, or ticked ones among 0..N, 0 being the
// embedding), the descent's steps and initial step size, the start embedding (the research code's
// N(0,1) or the paper's N(1/2, 1/20)), the objective (every position or the last one), the token
// each position must recover (the input's, or the research's noisy pseudo-inverse), top-k and the
// seed. Each field's range, default, label and tooltip come from the plain specs the app passes
// in (made from the core's declarations). Plain values out (InversionFormValues); the app maps
// them onto the core's settings.
#pragma once
#include <QVector>
#include <QWidget>

#include "widgets/forms/form_field_spec.h"

class QCheckBox;
class QComboBox;
class QDoubleSpinBox;
class QGridLayout;
class QSpinBox;

namespace mixerlab::widgets {

// Zero values, not defaults: the form's defaults come from its field specs (defaults(), or values()
// of a new form), except the layers, which are not a declared field (the form starts with all).
struct InversionFormValues {
  bool all_layers = true;
  QVector<int> layers;  // ticked layers when not all, ascending
  int iterations = 0;
  double learning_rate = 0;
  bool paper_init = false;          // init "paper": N(1/2, 1/20) instead of N(0, 1)
  bool last_position = false;       // objective "last": the last position's output only
  bool research_reference = false;  // reference "research": the noisy pseudo-inverse tokens instead of the input's
  int top_k = 0;
  quint64 seed = 0;
};

class InversionSettingsForm : public QWidget {
  Q_OBJECT
 public:
  // `fields`: the specs of iterations, learning_rate, init, objective, reference, top_k and seed.
  explicit InversionSettingsForm(const QVector<FieldSpec>& fields, QWidget* parent = nullptr);

  // Offers layers 0..depth (the deepest chosen model's); ticks made survive where they still exist.
  void setDepth(int depth);
  int depth() const { return static_cast<int>(layer_boxes_.size()) - 1; }
  InversionFormValues values() const;
  void setValues(const InversionFormValues& values);
  InversionFormValues defaults() const { return defaults_; }  // the specs' defaults, every layer
  QCheckBox* allLayersBox() const { return all_layers_; }
  QCheckBox* layerBox(int layer) const { return layer_boxes_.value(layer); }

 Q_SIGNALS:
  void changed();

 private:
  void updateLayerBoxes();

  QCheckBox* all_layers_ = nullptr;
  QGridLayout* layer_grid_ = nullptr;
  QVector<QCheckBox*> layer_boxes_;
  QVector<int> ticked_;  // the ticks, kept across depth changes
  QSpinBox* iterations_ = nullptr;
  QDoubleSpinBox* learning_rate_ = nullptr;
  QComboBox* init_ = nullptr;
  QComboBox* objective_ = nullptr;
  QComboBox* reference_ = nullptr;
  QSpinBox* top_k_ = nullptr;
  QSpinBox* seed_ = nullptr;
  InversionFormValues defaults_;
};

}  // namespace mixerlab::widgets
