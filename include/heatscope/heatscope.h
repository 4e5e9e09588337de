/* heatscope.h — the one public header of libheatscope */
#pragma once

#define HS_INSIDE_HEATSCOPE_H

#include "hs-limits.h"
#include "hs-atomic-file.h"
#include "hs-stop-point.h"
#include "hs-safe-open.h"
#include "hs-image.h"
#include "hs-npy.h"
#include "hs-attention-map.h"
#include "hs-dataset.h"
#include "hs-summary.h"
#include "hs-resample.h"
#include "hs-text.h"
#include "hs-report.h"
#include "hs-phantom.h"
#include "hs-colormap.h"
#include "hs-overlay.h"
#include "hs-contour.h"
#include "hs-legend.h"
#include "hs-figure.h"
#include "hs-safetensors.h"
#include "hs-model.h"
#include "hs-target.h"
#include "hs-metrics.h"
#include "hs-baselines.h"
#include "hs-csv.h"
#include "hs-threshold-table.h"
#include "hs-rle.h"
#include "hs-import.h"
#include "hs-agreement.h"
#include "hs-annotation.h"
#include "hs-backend-exec.h"
#include "hs-perturb.h"
#include "hs-parallel.h"

#undef HS_INSIDE_HEATSCOPE_H
