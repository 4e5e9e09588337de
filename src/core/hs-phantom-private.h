/* hs-phantom-private.h — geometry shared by the phantom generator files */
#pragma once

#include "heatscope/hs-phantom.h"
#include "heatscope/hs-dataset-writer.h"
#include "hs-random-private.h"

G_BEGIN_DECLS

/* A phantom's draws: the splitmix64 stream of (seed, stream, index), so
 * each instance and each part of it (anatomy, texture, noise, maps) draws
 * independently of the others. */
void   hs_phantom_rng_init (HsRandom *rng, guint64 seed, guint64 stream, guint64 index);

/* Patient frame: u to the image's right, v down, about [0, 1]²; the
 * patient's right lung is at small u.  "Side coordinates" mirror u for the
 * patient's left (us = 1 − u) so one set of formulas serves both lungs. */
typedef struct {
  double ua, va;      /* apex                                  */
  double uw;          /* lateral chest wall (inner)            */
  double vcp;         /* costophrenic angle height             */
  double vdome;       /* top of the diaphragm dome             */
  double udp;         /* u of the dome's top                   */
  double um;          /* mediastinal border                    */
  double hu, hv;      /* hilum                                 */
} HsLungGeom;

typedef enum {
  HS_LESION_NODULE,
  HS_LESION_MASS,
  HS_LESION_CONSOLIDATION,
  HS_LESION_OPACITY,
  HS_LESION_EFFUSION,
  HS_LESION_PNEUMOTHORAX,
  HS_LESION_CARDIOMEGALY,
  HS_LESION_ATELECTASIS,
  HS_N_LESION_KINDS
} HsLesionKind;

#define HS_MAX_BLOBS 6

typedef struct {
  HsLesionKind kind;
  int          side;          /* 0 patient right, 1 patient left, 2 both */
  double       cu, cv;        /* centre (frame)                          */
  double       r;             /* radius / size (frame)                   */
  double       a1, a2, p1, p2;/* shape harmonics                          */
  double       level;         /* effusion level, PTX width, plate angle   */
  double       density;
  guint        n_blobs;
  double       bu[HS_MAX_BLOBS], bv[HS_MAX_BLOBS], brx[HS_MAX_BLOBS], bry[HS_MAX_BLOBS];
} HsLesionGeom;

#define HS_MAX_LESIONS 4

typedef enum {
  HS_REGION_RIGHT_LUNG, HS_REGION_LEFT_LUNG,
  HS_REGION_RIGHT_UPPER, HS_REGION_RIGHT_MID, HS_REGION_RIGHT_LOWER,
  HS_REGION_LEFT_UPPER, HS_REGION_LEFT_MID, HS_REGION_LEFT_LOWER,
  HS_REGION_RIGHT_CP, HS_REGION_LEFT_CP,
  HS_REGION_RIGHT_HILUM, HS_REGION_LEFT_HILUM,
  HS_REGION_CARDIAC, HS_REGION_MEDIASTINUM,
  HS_REGION_RIGHT_APEX, HS_REGION_LEFT_APEX,
  HS_N_REGIONS
} HsRegionId;

typedef struct {
  guint   width, height;
  double  scale;          /* pixels per frame unit                    */
  double  cx, cy;         /* pixel position of the frame point (.5,.5) */
  double  cos_t, sin_t;
  double  body_w, shoulder_v, neck_w;
  HsLungGeom lung[2];
  /* heart: its right border bulges from the mediastinum below heart_top_r,
   * its left border sweeps out from below the aortic knob (heart_top_l) to
   * the apex; both end on the diaphragm at heart_base */
  double  heart_top_l, heart_top_r, heart_bulge_l, heart_bulge_r, heart_base;
  /* the two borders sampled over [heart_top_l, heart_base] (see
   * hs_phantom_geom_update), so a per-pixel test costs no pow/sin */
#define HS_HEART_SAMPLES 512
  float   heart_left[HS_HEART_SAMPLES + 1], heart_right[HS_HEART_SAMPLES + 1];
  double  heart_umin, heart_umax;   /* the least and greatest value in the two tables */
  double  med_w, med_top;
  double  knob_u, knob_v, knob_r;
  double  carina_v;
  double  rib_v0, rib_step;
  double  spine_w;
  double  breast, breast_u, breast_v;  /* breast shadow radius (0 = none), centre */
  double  exposure, gamma, noise, lung_dark, bone_gain;
  guint64 texture_seed;
  guint   n_lesions;
  HsLesionGeom lesions[HS_MAX_LESIONS];
} HsPhantomGeom;

/* What the rasterizer hands back: pixels, anatomy boxes, lesion masks. */
typedef struct {
  guint16 *pixels;
  gboolean region_found[HS_N_REGIONS];
  int      region_box[HS_N_REGIONS][4];       /* x1, y1, x2, y2 (x2, y2 exclusive) */
  guint8  *lesion_mask[HS_MAX_LESIONS];
  gboolean lesion_found[HS_MAX_LESIONS];
  int      lesion_box[HS_MAX_LESIONS][4];
} HsPhantomRaster;

/* Recomputes the cached heart border tables after the heart changed. */
void     hs_phantom_geom_update   (HsPhantomGeom *g);
gboolean hs_phantom_lung_contains (const HsPhantomGeom *g, int side, double us, double v,
                                   double inset);
int      hs_phantom_lung_zone     (const HsPhantomGeom *g, int side, double v);
void     hs_phantom_frame_to_pixel (const HsPhantomGeom *g, double u, double v,
                                    double *x, double *y);
void     hs_phantom_pixel_to_frame (const HsPhantomGeom *g, double x, double y,
                                    double *u, double *v);
gboolean hs_phantom_render        (const HsPhantomGeom *g, HsPhantomRaster *raster, GError **error);

/* The demo writers (hs-phantom-writer.c, hs-mri-writer.c) share their
 * frame: the dataset writer of OUT (replacing a dataset there when
 * `force`) with images/, masks/ and maps/ staged, the dataset's name,
 * description and model descriptions, `count` instances from `make` (i =
 * 0 … count − 1, files written below `root`, the staging folder), progress,
 * and the commit.  A folder that cannot be created is HS_PHANTOM_ERROR_IO.
 * With `jobs` > 1, `make` runs for whole instances on that many threads at
 * once (it must be safe to: each instance's files are its own) while the
 * calling thread adds the instances to the manifest in index order, so the
 * files are the same bytes for any `jobs`. */
typedef HsInstance *(*HsDemoInstanceFunc) (const char *root, guint i, gpointer data,
                                           GError **error);

typedef struct {
  const char         *name;
  const char         *description;
  const char *const  *models;   /* model, description, …, NULL; may be NULL */
  guint               count;
  HsDemoInstanceFunc  make;
  gpointer            data;
  void              (*progress) (guint done, guint total, gpointer data);
  gpointer            progress_data;
  gboolean            force;
  guint               jobs;     /* 0 or 1: one at a time, on the calling thread */
} HsDemoWrite;

gboolean hs_phantom_writer_write (const char *out_dir, const HsDemoWrite *write, GError **error);

G_END_DECLS
