/* hs-report.h — report sentences written from finding labels */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Sentences follow McInerney et al. appendix A.3: a positive finding becomes
 * "There is {c} in the {loclist}." (locations joined by ", " and a final
 * " and "), an absent condition "There is no {c}.".  Varied phrasings
 * ("{C} in the {loc}.", "No {c}.", "{Loc}: {c}.", "Small {c} at the {loc}.")
 * and sentences naming a region where nothing is abnormal ("The right lung is
 * clear.", "No effusion on the left.") are chosen by a caller-given variant
 * number, so a seed reproduces the same report. */

typedef enum {
  HS_REPORT_STYLE_TEMPLATE,   /* the A.3 template                         */
  HS_REPORT_STYLE_VARIED,     /* another phrasing of the same labels       */
  HS_REPORT_STYLE_CLEAR,      /* names a region where nothing is abnormal  */
  HS_REPORT_STYLE_GLOBAL,     /* a global negative: no region named        */
} HsReportStyle;

/* One ground-truth finding of an image. */
typedef struct {
  const char        *condition;  /* "nodule", "pleural effusion", ... (see below) */
  const char *const *locations;  /* ImaGenome region names, NULL-terminated        */
  const char        *lesion;     /* name of the lesion's region, or NULL           */
} HsReportFinding;

/* A sentence with its labels and its target region names. */
typedef struct {
  char         *text;
  char         *condition;   /* "abnormality" for "X is clear" sentences */
  char         *context;     /* "positive" or "negative"                 */
  char        **locations;   /* NULL-terminated, may be empty            */
  char        **targets;     /* NULL-terminated, may be empty            */
  HsReportStyle style;
} HsReportSentence;

/* Conditions the generator knows (NULL-terminated, static):
 * nodule, mass, consolidation, lung opacity, pleural effusion, pneumothorax,
 * cardiomegaly, atelectasis.  Unknown conditions are used verbatim. */
const char *const *hs_report_conditions       (void);
/* "a nodule", "pleural effusion", ... : the noun phrase used in sentences. */
const char       *hs_report_condition_phrase  (const char *condition);
/* "a, b and c" (Oxford comma-free, as in A.3); "" for an empty list. */
char             *hs_report_join_locations    (const char *const *locations);

/* A positive sentence; variant 0 is the A.3 template.  Targets are the
 * locations plus the lesion. */
HsReportSentence *hs_report_positive          (const HsReportFinding *finding, guint variant);
/* A negative sentence.  With location NULL: "There is no {c}." (variant 0)
 * or another global negative, no targets.  With a location (e.g. "left
 * lung"): "No {c} on the left." or "There is no {c} in the {loc}.", whose
 * target is that region. */
HsReportSentence *hs_report_negative          (const char *condition, const char *location,
                                               guint variant);
/* "The right lung is clear." and alike; region is an ImaGenome name such as
 * "right lung", "left costophrenic angle", "cardiac silhouette"; the target
 * is that region. */
HsReportSentence *hs_report_clear             (const char *region, guint variant);

HsReportSentence *hs_report_sentence_copy     (const HsReportSentence *sentence);
void              hs_report_sentence_free     (HsReportSentence *sentence);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HsReportSentence, hs_report_sentence_free)

G_END_DECLS
