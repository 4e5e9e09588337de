/* hs-mri-lesions.h — ground truth by construction on brain MRI slices
 *
 * The benchmark recipe of Oliveira et al. ("Benchmark data to study the
 * influence of pre-training on explanation performance in MR image
 * classification"): lesions are grown from white noise, sorted into a
 * regular and an irregular class by their compactness, and multiplied into
 * axial slices where their position is known exactly, so that an
 * explanation can be scored against the pixels that decide the class
 * (`explanation_precision`, metrics.md).
 *
 * The steps are small pure functions so that each can be tested alone:
 * Gaussian smoothing, Otsu binarisation, erosion/dilation with the
 * 3 × 3 cross, 8-connected components, and the perimeter of
 * skimage.measure.regionprops (so compactness = 4πA/p² is the number
 * scikit-image gives). */
#pragma once

#include <glib.h>
#include "hs-image.h"
#include "hs-target.h"

G_BEGIN_DECLS

#define HS_MRI_ERROR (hs_mri_error_quark ())
GQuark hs_mri_error_quark (void);

typedef enum {
  HS_MRI_ERROR_INVALID,     /* bad parameters                                   */
  HS_MRI_ERROR_BACKGROUND,  /* a background folder or slice that cannot be used */
  HS_MRI_ERROR_NO_ROOM,     /* the lesions do not fit into the slice's tissue   */
} HsMriError;   /* writing fails with the dataset writer's and HS_PHANTOM_ERROR_IO */

typedef enum {
  HS_MRI_LESION_REGULAR,    /* compactness above regular_min   */
  HS_MRI_LESION_IRREGULAR,  /* compactness below irregular_max */
} HsMriLesionClass;

/* "regular", "irregular": the class names, used as the dataset's queries. */
const char *hs_mri_lesion_class_to_string (HsMriLesionClass klass);

/* The recipe's parameters; hs_mri_lesion_params_init sets the paper's. */
typedef struct {
  double intensity;       /* w: the lesion core is multiplied by w (0.5)           */
  guint  min_count;       /* lesions per slice, drawn uniformly in [min, max] (3)  */
  guint  max_count;       /* (5)                                                   */
  double regular_min;     /* compactness above this is regular (0.8)               */
  double irregular_max;   /* compactness below this is irregular (0.4)             */
  double smoothing;       /* σ of the Gaussian on the white noise, px (2)           */
  double edge_sigma;      /* σ of the Gaussian on the lesion edges, px (0.75)       */
  guint  margin;          /* px around a lesion that its soft edge may reach (2)   */
  guint  field;           /* side of one white-noise field, px (64)                */
  /* Area bounds of a kept component (not in the paper's text): both classes
   * in one size range, so that size does not give the class away. */
  guint  min_area;        /* smallest component kept, px (25)                      */
  guint  max_area;        /* largest component kept, px (200)                      */
} HsMriLesionParams;

void     hs_mri_lesion_params_init  (HsMriLesionParams *params);
/* FALSE with HS_MRI_ERROR_INVALID and a message naming the bad value. */
gboolean hs_mri_lesion_params_check (const HsMriLesionParams *params, GError **error);

/* ---- the pure steps ---- */

typedef enum {
  HS_MRI_BORDER_REFLECT,  /* d c b a | a b c d (scipy.ndimage "reflect") */
  HS_MRI_BORDER_ZERO,     /* 0 outside                                  */
} HsMriBorder;

/* Separable Gaussian of standard deviation `sigma` truncated at `radius`
 * pixels (weights exp(−d²/2σ²) normalised to sum 1), in place on w × h
 * doubles.  sigma ≤ 0 or radius 0 leaves the data as it is. */
void     hs_mri_gaussian         (double *data, guint w, guint h, double sigma, guint radius,
                                  HsMriBorder border);
/* Otsu on u = floor(255·(v − min)/(max − min)) (metrics.md's otsu_iou
 * quantisation): out[i] = 1 where u > t, else 0.  Returns t. */
guint    hs_mri_otsu_binarise    (const double *values, gsize n, guint8 *out);
/* Erosion and dilation with the 3 × 3 cross (skimage.morphology.disk(1)),
 * outside the image counting as 0; out may not be in. */
void     hs_mri_erode            (const guint8 *in, guint8 *out, guint w, guint h);
void     hs_mri_dilate           (const guint8 *in, guint8 *out, guint w, guint h);
/* Erosion then dilation, in place. */
void     hs_mri_open             (guint8 *data, guint w, guint h);
/* 8-connected components of the non-zero pixels: labels[i] = 1..n in the
 * order of each component's first pixel in row-major order, 0 outside.
 * Returns n. */
guint    hs_mri_label            (const guint8 *in, guint w, guint h, guint32 *labels);
/* skimage.measure.perimeter(image, neighbourhood=4): border pixels (in the
 * image, not in its erosion by the cross, outside = 0) weighted by their
 * border neighbours (1, √2 or (1 + √2)/2). */
double   hs_mri_perimeter        (const guint8 *in, guint w, guint h);
/* 4πA/p²; 0 when p = 0. */
double   hs_mri_compactness      (double area, double perimeter);

/* One lesion shape: its tight box and pixels (one allocation with the
 * struct). */
typedef struct {
  guint   width, height;
  guint8 *pixels;         /* width × height, 1 inside */
  guint   area;
  double  perimeter;      /* hs_mri_perimeter of pixels */
  double  compactness;
} HsMriShape;

void     hs_mri_shape_free       (HsMriShape *shape);

/* The shapes of one white-noise field (params->field square, noise from
 * `seed`): smoothing, Otsu, erosion, opening, a second erosion for the
 * irregular class, then the components of `klass` (by compactness) with
 * min_area ≤ area ≤ max_area that do not touch the field's border.
 * Appends HsMriShape* to `out` (free with hs_mri_shape_free). */
void     hs_mri_lesion_shapes    (const HsMriLesionParams *params, HsMriLesionClass klass,
                                  guint64 seed, GPtrArray *out);

/* The soft lesion L in [0, 1] of a shape: the shape padded by `margin` zero
 * pixels on every side, then the Gaussian of `edge_sigma` truncated at
 * `margin` (zero border).  (width + 2·margin) × (height + 2·margin). */
double  *hs_mri_shape_soften     (const HsMriShape *shape, double edge_sigma, guint margin);

/* ---- a slice with lesions ---- */

typedef struct {
  guint8     *mask;         /* width × height of the slice: 255 where the insertion
                             * changed the pixel, else 0 (disjoint across lesions) */
  HsBox       box;          /* the tight box of the mask                           */
  HsMriShape *shape;        /* the shape it was made from                          */
} HsMriLesion;

typedef struct {
  HsMriLesionClass klass;
  guint        width, height;
  guint16     *pixels;      /* the slice with the lesions, 16-bit grey              */
  guint        n_lesions;
  HsMriLesion *lesions;
} HsMriSlice;

void     hs_mri_slice_free       (HsMriSlice *slice);

/* Inserts `n` lesions (n = 0: drawn from [min_count, max_count]) of `klass`
 * into a copy of `background` (w × h, 16-bit): each lesion's support (its
 * soft lesion's box) lies where `allowed` is non-zero and overlaps no
 * other's; pixel' = round(pixel · (1 − (1 − w)·L)), clamped to 16 bits.
 * The same arguments give the same slice.  HS_MRI_ERROR_NO_ROOM when the
 * lesions do not fit. */
HsMriSlice *hs_mri_slice_make    (const guint16 *background, const guint8 *allowed,
                                  guint width, guint height, HsMriLesionClass klass, guint n,
                                  const HsMriLesionParams *params, guint64 seed,
                                  GError **error);

/* ---- procedural brain slices (hs-mri-phantom.c) ---- */

#define HS_MRI_DEFAULT_SIZE 256
#define HS_MRI_MIN_SIZE     64

/* An axial T1-weighted brain slice at the level of the lateral ventricles:
 * scalp, skull (tables and diploë), CSF, folded cortex, white matter,
 * ventricles, deep grey nuclei, a smooth bias field and noise; the same
 * (seed, index, w, h) gives the same pixels everywhere.  Returns w × h
 * 16-bit pixels and, when `brain` is not NULL, a w × h mask of the
 * parenchyma (1 in grey or white matter). */
guint16 *hs_mri_phantom_render   (guint64 seed, guint64 index, guint width, guint height,
                                  guint8 **brain, GError **error);

/* ---- the dataset (hs-mri-writer.c) ---- */

typedef struct {
  guint64  seed;
  guint    count;
  guint    width, height;      /* phantom size; HS_MRI_DEFAULT_SIZE when 0          */
  const char *background;      /* folder of slices (PNG, JPEG, DICOM), NULL = phantoms */
  HsMriLesionParams params;
  gboolean baselines;          /* add the sobel, laplace and random null-baseline maps */
  gboolean force;              /* replace a dataset already in OUT                  */
  void   (*progress) (guint done, guint total, gpointer data);
  gpointer progress_data;
  guint    jobs;               /* instances generated at once (0 or 1: one); same files */
} HsMriWriteOptions;

void     hs_mri_write_options_init (HsMriWriteOptions *options);

/* The slice files of a background folder (searched in subfolders, sorted by
 * path): .png, .jpg, .jpeg, .dcm.  HS_MRI_ERROR_BACKGROUND when the folder
 * is missing or holds none.  Free with g_strfreev. */
char   **hs_mri_list_backgrounds (const char *folder, GError **error);
/* A slice as 16-bit grey (colour to luma, samples scaled to 0..65535) and
 * the tissue where lesions may go (Otsu's foreground, eroded); one-line
 * errors naming the file for unreadable and too small (< HS_MRI_MIN_SIZE)
 * slices. */
guint16 *hs_mri_load_background  (const char *path, guint *width, guint *height,
                                  guint8 **allowed, GError **error);

/* Writes OUT/heatscope.json, OUT/images/ (16-bit PNG), OUT/masks/ (one per
 * lesion and one per slice for the class region) and, with baselines,
 * OUT/maps/, through the dataset writer (staged, locked, switched in whole).
 * Instance i: class regular for even seed + i, irregular for odd; query
 * "class:<class>" with the class name as its text, targeting the union of
 * the lesions.  Same options ⇒ byte-identical files. */
gboolean hs_mri_write_dataset    (const char *out_dir, const HsMriWriteOptions *options,
                                  GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HsMriSlice, hs_mri_slice_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC (HsMriShape, hs_mri_shape_free)

G_END_DECLS
