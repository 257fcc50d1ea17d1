// Shared QCustomPlot set-up (see plot_setup.h).
#include "widgets/plots/plot_setup.h"

#include <qcustomplot.h>
#include <QVBoxLayout>

namespace mixerlab::widgets {

void fillWithPlot(QWidget* owner, QCustomPlot* plot, const QString& object_name, int min_width_px, int min_height_px) {
  auto* layout = new QVBoxLayout(owner);
  layout->setContentsMargins(0, 0, 0, 0);
  layout->addWidget(plot);
  plot->setObjectName(object_name);
  plot->setMinimumSize(min_width_px, min_height_px);
}

QCPItemText* addHoverReadout(QCustomPlot* plot, double x, double y, Qt::Alignment alignment, int background_alpha,
                             int frame_grey) {
  auto* readout = new QCPItemText(plot);
  readout->setLayer("legend");
  readout->position->setType(QCPItemPosition::ptAxisRectRatio);
  readout->position->setCoords(x, y);
  readout->setPositionAlignment(alignment);
  readout->setPadding(QMargins(5, 3, 5, 3));
  readout->setBrush(QColor(255, 255, 255, background_alpha));
  readout->setPen(QPen(QColor(frame_grey, frame_grey, frame_grey)));
  readout->setVisible(false);
  return readout;
}

}  // namespace mixerlab::widgets
