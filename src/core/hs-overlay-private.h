/* hs-overlay-private.h — what hs-overlay.c and hs-overlay-surface.c share */
#pragma once

/* Below this many pixels a second thread costs more than it saves. */
#define HS_OVERLAY_PARALLEL_MIN_PIXELS (256 * 1024)
