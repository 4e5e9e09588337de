/* hs-report.c — report sentences from labels (McInerney et al. A.3 + variants) */
#include "heatscope/hs-report.h"

#include <string.h>

typedef struct {
  const char *name;
  const char *phrase;   /* with article where English needs one */
  const char *short_name;
} HsConditionInfo;

static const HsConditionInfo conditions[] = {
  { "nodule",           "a nodule",         "nodule" },
  { "mass",             "a mass",           "mass" },
  { "consolidation",    "consolidation",    "consolidation" },
  { "lung opacity",     "lung opacity",     "opacity" },
  { "pleural effusion", "pleural effusion", "effusion" },
  { "pneumothorax",     "pneumothorax",     "pneumothorax" },
  { "cardiomegaly",     "cardiomegaly",     "cardiomegaly" },
  { "atelectasis",      "atelectasis",      "atelectasis" },
};

static const HsConditionInfo *
find_condition (const char *condition)
{
  for (gsize i = 0; i < G_N_ELEMENTS (conditions); i++)
    if (strcmp (conditions[i].name, condition) == 0)
      return &conditions[i];
  return NULL;
}

const char *const *
hs_report_conditions (void)
{
  static const char *const names[] = {
    "nodule", "mass", "consolidation", "lung opacity", "pleural effusion", "pneumothorax",
    "cardiomegaly", "atelectasis", NULL,
  };
  return names;
}

const char *
hs_report_condition_phrase (const char *condition)
{
  const HsConditionInfo *info;

  g_return_val_if_fail (condition != NULL, NULL);
  info = find_condition (condition);
  return info != NULL ? info->phrase : condition;
}

static const char *
condition_short (const char *condition)
{
  const HsConditionInfo *info = find_condition (condition);
  return info != NULL ? info->short_name : condition;
}

char *
hs_report_join_locations (const char *const *locations)
{
  GString *out = g_string_new (NULL);
  guint n = locations != NULL ? g_strv_length ((char **) locations) : 0;

  for (guint i = 0; i < n; i++)
    {
      if (i > 0)
        g_string_append (out, i == n - 1 ? " and " : ", ");
      g_string_append (out, locations[i]);
    }
  return g_string_free (out, FALSE);
}

static char *
capitalize (const char *text)
{
  char *s = g_strdup (text);
  s[0] = g_ascii_toupper (s[0]);
  return s;
}

/* "left"/"right" when every location names that side, else NULL. */
static const char *
common_side (const char *const *locations)
{
  const char *side = NULL;

  if (locations == NULL || locations[0] == NULL)
    return NULL;
  for (guint i = 0; locations[i] != NULL; i++)
    {
      const char *s = g_str_has_prefix (locations[i], "left ") ? "left"
                    : g_str_has_prefix (locations[i], "right ") ? "right" : NULL;
      if (s == NULL || (side != NULL && strcmp (s, side) != 0))
        return NULL;
      side = s;
    }
  return side;
}

static HsReportSentence *
sentence_new (char *text, const char *condition, const char *context,
              const char *const *locations, const char *extra_target, HsReportStyle style)
{
  HsReportSentence *s = g_new0 (HsReportSentence, 1);
  GPtrArray *targets = g_ptr_array_new ();

  s->text = text;
  s->condition = g_strdup (condition);
  s->context = g_strdup (context);
  s->locations = locations != NULL ? g_strdupv ((char **) locations) : g_new0 (char *, 1);
  s->style = style;
  /* every named region is a target: the lesion's anatomy for positive
   * findings, the region said to be clear for negative ones */
  for (guint i = 0; s->locations[i] != NULL; i++)
      g_ptr_array_add (targets, g_strdup (s->locations[i]));
  if (extra_target != NULL)
    g_ptr_array_add (targets, g_strdup (extra_target));
  g_ptr_array_add (targets, NULL);
  s->targets = (char **) g_ptr_array_free (targets, FALSE);
  return s;
}

HsReportSentence *
hs_report_positive (const HsReportFinding *finding, guint variant)
{
  g_autofree char *loclist = NULL;
  g_autofree char *first_loc = NULL;
  g_autofree char *cap_phrase = NULL;
  const char *phrase, *shortname, *side;
  char *text = NULL;
  HsReportStyle style = HS_REPORT_STYLE_VARIED;
  gboolean has_locations;

  g_return_val_if_fail (finding != NULL && finding->condition != NULL, NULL);

  phrase = hs_report_condition_phrase (finding->condition);
  shortname = condition_short (finding->condition);
  cap_phrase = capitalize (phrase);
  loclist = hs_report_join_locations (finding->locations);
  has_locations = finding->locations != NULL && finding->locations[0] != NULL;
  first_loc = has_locations ? capitalize (finding->locations[0]) : NULL;
  side = common_side (finding->locations);

  if (strcmp (finding->condition, "cardiomegaly") == 0 && variant % 4 != 0)
    {
      static const char *const cardio[] = {
        NULL, "The cardiac silhouette is enlarged.", "The heart is enlarged.",
        "Cardiomegaly is present.",
      };
      text = g_strdup (cardio[variant % 4]);
    }
  else if (!has_locations)
    {
      text = variant % 2 == 0 ? g_strdup_printf ("There is %s.", phrase)
                              : g_strdup_printf ("%s.", cap_phrase);
      style = variant % 2 == 0 ? HS_REPORT_STYLE_TEMPLATE : HS_REPORT_STYLE_VARIED;
    }
  else
    switch (variant % 6)
      {
      case 0:
        text = g_strdup_printf ("There is %s in the %s.", phrase, loclist);
        style = HS_REPORT_STYLE_TEMPLATE;
        break;
      case 1:
        text = g_strdup_printf ("%s in the %s.", cap_phrase, loclist);
        break;
      case 2:
        {
          g_autofree char *cap_loclist = capitalize (loclist);
          text = g_strdup_printf ("%s: %s.", cap_loclist, shortname);
        }
        break;
      case 3:
        text = g_strdup_printf ("Small %s at the %s.", shortname, loclist);
        break;
      case 4:
        text = g_strdup_printf ("%s is seen in the %s.", cap_phrase, loclist);
        break;
      default:
        if (side != NULL)
          {
            g_autofree char *cap_side = capitalize (side);
            text = g_strdup_printf ("%s-sided %s.", cap_side, shortname);
          }
        else
          {
            text = g_strdup_printf ("There is %s in the %s.", phrase, loclist);
            style = HS_REPORT_STYLE_TEMPLATE;
          }
        break;
      }
  if (text == NULL)
    {
      text = g_strdup_printf ("There is %s in the %s.", phrase, loclist);
      style = HS_REPORT_STYLE_TEMPLATE;
    }
  return sentence_new (text, finding->condition, "positive", finding->locations,
                       finding->lesion, style);
}

HsReportSentence *
hs_report_negative (const char *condition, const char *location, guint variant)
{
  const char *shortname;
  char *text;

  g_return_val_if_fail (condition != NULL, NULL);

  shortname = condition_short (condition);
  if (location == NULL)
    {
      switch (variant % 3)
        {
        case 0:
          text = g_strdup_printf ("There is no %s.", condition);
          return sentence_new (text, condition, "negative", NULL, NULL, HS_REPORT_STYLE_TEMPLATE);
        case 1:
          text = g_strdup_printf ("No %s.", shortname);
          break;
        default:
          text = g_strdup_printf ("No evidence of %s.", shortname);
          break;
        }
      return sentence_new (text, condition, "negative", NULL, NULL, HS_REPORT_STYLE_GLOBAL);
    }
  else
    {
      const char *const locations[] = { location, NULL };
      const char *side = g_str_has_prefix (location, "left ") ? "left"
                       : g_str_has_prefix (location, "right ") ? "right" : NULL;

      switch (variant % 3)
        {
        case 1:
          if (side != NULL)
            {
              text = g_strdup_printf ("No %s on the %s.", shortname, side);
              break;
            }
          G_GNUC_FALLTHROUGH;
        case 0:
          text = g_strdup_printf ("There is no %s in the %s.", condition, location);
          break;
        default:
          text = g_strdup_printf ("The %s shows no %s.", location, shortname);
          break;
        }
      return sentence_new (text, condition, "negative", locations, NULL, HS_REPORT_STYLE_CLEAR);
    }
}

HsReportSentence *
hs_report_clear (const char *region, guint variant)
{
  const char *const locations[] = { region, NULL };
  g_autofree char *cap = NULL;
  const char *condition = "abnormality";
  char *text;

  g_return_val_if_fail (region != NULL, NULL);

  cap = capitalize (region);
  if (strcmp (region, "cardiac silhouette") == 0)
    {
      static const char *const heart[] = {
        "The cardiac silhouette is normal in size.", "Heart size is normal.",
        "The heart is not enlarged.",
      };
      text = g_strdup (heart[variant % 3]);
      condition = "cardiomegaly";
    }
  else if (g_str_has_suffix (region, "costophrenic angle"))
    text = variant % 2 == 0 ? g_strdup_printf ("The %s is sharp.", region)
                            : g_strdup_printf ("The %s is clear.", region);
  else if (g_str_has_suffix (region, "hilar structures"))
    text = variant % 2 == 0 ? g_strdup_printf ("The %s are normal.", region)
                            : g_strdup_printf ("%s: unremarkable.", cap);
  else
    switch (variant % 3)
      {
      case 0:
        text = g_strdup_printf ("The %s is clear.", region);
        break;
      case 1:
        text = g_strdup_printf ("%s: clear.", cap);
        break;
      default:
        text = g_strdup_printf ("No abnormality in the %s.", region);
        break;
      }
  return sentence_new (text, condition, "negative", locations, NULL, HS_REPORT_STYLE_CLEAR);
}

HsReportSentence *
hs_report_sentence_copy (const HsReportSentence *sentence)
{
  HsReportSentence *s;

  g_return_val_if_fail (sentence != NULL, NULL);
  s = g_new0 (HsReportSentence, 1);
  s->text = g_strdup (sentence->text);
  s->condition = g_strdup (sentence->condition);
  s->context = g_strdup (sentence->context);
  s->locations = g_strdupv (sentence->locations);
  s->targets = g_strdupv (sentence->targets);
  s->style = sentence->style;
  return s;
}

void
hs_report_sentence_free (HsReportSentence *sentence)
{
  if (sentence == NULL)
    return;
  g_free (sentence->text);
  g_free (sentence->condition);
  g_free (sentence->context);
  g_strfreev (sentence->locations);
  g_strfreev (sentence->targets);
  g_free (sentence);
}
