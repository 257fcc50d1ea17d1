// QCustomPlot set-up the charts share: the inversion charts (heatmap, layer chart, loss plot) each
// wrap one plot that fills the chart edge to edge, and the charts with a hover readout show it in
// the same framed text box.
#pragma once
#include <QString>
#include <Qt>

class QCPItemText;
class QCustomPlot;
class QWidget;

namespace mixerlab::widgets {

// Makes `plot` the only child laid out in `owner` (no margins), with `object_name` and a minimum size.
void fillWithPlot(QWidget* owner, QCustomPlot* plot, const QString& object_name, int min_width_px, int min_height_px);

// A hidden hover-readout box on the legend layer at (x, y) in axis-rect ratios, aligned there by
// `alignment`: white with `background_alpha`, framed in the grey `frame_grey`.
QCPItemText* addHoverReadout(QCustomPlot* plot, double x, double y, Qt::Alignment alignment, int background_alpha,
                             int frame_grey);

}  // namespace mixerlab::widgets
