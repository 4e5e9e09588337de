/* hs-prompt-panel.c — the query of the view: a report sentence or a prompt */
#include <glib/gi18n.h>
#include <math.h>

#include <heatscope/hs-text.h>

#include "hs-css-private.h"
#include "hs-prompt-panel.h"
#include "hs-utils-private.h"
#include "hs-tag-strip.h"

struct _HsPromptPanel
{
  GtkWidget       parent_instance;

  GtkListBox     *sentence_list;
  GtkTextView    *prompt_view;
  GtkLabel       *status_label;
  GtkWidget      *status_box;
  GtkWidget      *token_area;
  GtkFlowBox     *token_box;
  GtkLabel       *token_key;      /* what the colours and percentages mean */
  GtkLabel       *token_shown;    /* which map the canvas shows */
  HsTagStrip     *tag_strip;      /* the shown map's tag attention */

  HsDataset      *dataset;
  HsInstance     *instance;     /* borrowed from dataset */
  char           *model;
  HsSentence     *sentence;     /* borrowed from instance */
  HsMapRef       *map_ref;      /* borrowed from instance */
  char           *prompt;
  char           *status;
  HsAttentionMap *map;
  int             token;
  guint           n_tokens;
  double         *shares;       /* n_tokens, of the current map */
  gboolean        filling;      /* rebuilding the sentence list */
  gboolean        live;         /* a live model computes the map: no lookup */
};

enum {
  PROP_0,
  PROP_PROMPT,
  PROP_STATUS,
  PROP_TOKEN,
  N_PROPS
};
static GParamSpec *properties[N_PROPS];

enum {
  SIGNAL_MAP_CHANGED,
  SIGNAL_TOKEN_SELECTED,
  N_SIGNALS
};
static guint signals[N_SIGNALS];

G_DEFINE_FINAL_TYPE (HsPromptPanel, hs_prompt_panel, GTK_TYPE_WIDGET)

static HsSentence *
find_sentence_by_text (HsInstance *instance,
                       const char *text)
{
  if (instance == NULL || instance->sentences == NULL)
    return NULL;
  for (guint i = 0; i < instance->sentences->len; i++)
    {
      HsSentence *s = g_ptr_array_index (instance->sentences, i);
      if (g_strcmp0 (s->text, text) == 0)
        return s;
    }
  return NULL;
}

static void
set_status (HsPromptPanel *self,
            const char    *status)
{
  if (g_strcmp0 (self->status, status) == 0)
    return;
  g_free (self->status);
  self->status = g_strdup (status);
  gtk_label_set_text (self->status_label, status);
  gtk_widget_set_visible (self->status_box, *status != '\0');
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_STATUS]);
}

/* Finds the precomputed map of the prompt on screen and says why there is
 * none; emits map-changed every time (the window reloads only on change). */
static void
resolve_map (HsPromptPanel *self)
{
  HsMapRef *ref = NULL;
  HsSentence *same_text;
  const char *status = "";

  if (self->instance == NULL)
    {
      self->map_ref = NULL;
      set_status (self, "");
      g_signal_emit (self, signals[SIGNAL_MAP_CHANGED], 0);
      return;
    }

  /* The window computes the map of whatever is typed. */
  if (self->live)
    {
      self->map_ref = NULL;
      set_status (self, self->prompt == NULL || *self->prompt == '\0'
                        ? _("Type a prompt or pick a report sentence") : "");
      g_signal_emit (self, signals[SIGNAL_MAP_CHANGED], 0);
      return;
    }

  same_text = find_sentence_by_text (self->instance, self->prompt);
  if (self->model != NULL)
    {
      if (same_text != NULL)
        ref = hs_instance_find_map (self->instance, self->model, same_text->id);
      if (ref == NULL)
        ref = hs_instance_find_map_by_prompt (self->instance, self->model, self->prompt);
    }

  if (ref == NULL)
    {
      if (self->prompt == NULL || *self->prompt == '\0')
        status = _("Type a prompt or pick a report sentence");
      else if (same_text == NULL)
        status = _("No live model selected: showing precomputed maps only");
      else if (self->model == NULL)
        status = _("This dataset has no precomputed maps");
      else
        status = _("No precomputed map of this model for this sentence");
    }

  self->map_ref = ref;
  set_status (self, status);
  g_signal_emit (self, signals[SIGNAL_MAP_CHANGED], 0);
}

static void
on_buffer_changed (GtkTextBuffer *buffer,
                   HsPromptPanel *self)
{
  GtkTextIter start, end;
  g_autofree char *text = NULL;

  gtk_text_buffer_get_bounds (buffer, &start, &end);
  text = gtk_text_buffer_get_text (buffer, &start, &end, FALSE);
  if (g_strcmp0 (text, self->prompt) == 0)
    return;
  g_free (self->prompt);
  self->prompt = g_steal_pointer (&text);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_PROMPT]);
  if (!self->filling)
    resolve_map (self);
}

/* Shows `text` and resolves the map exactly once, even when the text is
 * unchanged (the instance or sentence may have changed). */
static void
show_prompt (HsPromptPanel *self,
             const char    *text)
{
  gboolean filling = self->filling;

  self->filling = TRUE;
  gtk_text_buffer_set_text (gtk_text_view_get_buffer (self->prompt_view), text != NULL ? text : "", -1);
  self->filling = filling;
  resolve_map (self);
}

static void
on_sentence_selected (GtkListBox    *box,
                      GtkListBoxRow *row,
                      HsPromptPanel *self)
{
  guint index;

  if (self->filling || row == NULL || self->instance == NULL)
    return;
  index = (guint) gtk_list_box_row_get_index (row);
  if (index >= self->instance->sentences->len)
    return;
  self->sentence = g_ptr_array_index (self->instance->sentences, index);
  show_prompt (self, self->sentence->text);
}

static void
swap_sides_action (GtkWidget  *widget,
                   const char *action_name,
                   GVariant   *parameter)
{
  hs_prompt_panel_swap_sides (HS_PROMPT_PANEL (widget));
}

static void
reset_action (GtkWidget  *widget,
              const char *action_name,
              GVariant   *parameter)
{
  HsPromptPanel *self = HS_PROMPT_PANEL (widget);

  if (self->sentence != NULL)
    hs_prompt_panel_set_prompt (self, self->sentence->text);
}

static void
hs_prompt_panel_get_property (GObject    *object,
                              guint       prop_id,
                              GValue     *value,
                              GParamSpec *pspec)
{
  HsPromptPanel *self = HS_PROMPT_PANEL (object);

  switch (prop_id)
    {
    case PROP_PROMPT:
      g_value_set_string (value, hs_prompt_panel_get_prompt (self));
      break;
    case PROP_STATUS:
      g_value_set_string (value, hs_prompt_panel_get_status (self));
      break;
    case PROP_TOKEN:
      g_value_set_int (value, self->token);
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
hs_prompt_panel_set_property (GObject      *object,
                              guint         prop_id,
                              const GValue *value,
                              GParamSpec   *pspec)
{
  HsPromptPanel *self = HS_PROMPT_PANEL (object);

  switch (prop_id)
    {
    case PROP_PROMPT:
      hs_prompt_panel_set_prompt (self, g_value_get_string (value));
      break;
    case PROP_TOKEN:
      hs_prompt_panel_set_token (self, g_value_get_int (value));
      break;
    default:
      G_OBJECT_WARN_INVALID_PROPERTY_ID (object, prop_id, pspec);
    }
}

static void
hs_prompt_panel_dispose (GObject *object)
{
  HsPromptPanel *self = HS_PROMPT_PANEL (object);

  GtkWidget *child;

  gtk_widget_dispose_template (GTK_WIDGET (self), HS_TYPE_PROMPT_PANEL);
  /* Unbound template children (boxes, labels) are ours to unparent. */
  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self))) != NULL)
    gtk_widget_unparent (child);
  g_clear_pointer (&self->map, hs_attention_map_unref);
  self->instance = NULL;
  self->sentence = NULL;
  self->map_ref = NULL;
  g_clear_pointer (&self->dataset, hs_dataset_unref);
  G_OBJECT_CLASS (hs_prompt_panel_parent_class)->dispose (object);
}

static void
hs_prompt_panel_finalize (GObject *object)
{
  HsPromptPanel *self = HS_PROMPT_PANEL (object);

  g_free (self->model);
  g_free (self->prompt);
  g_free (self->status);
  g_free (self->shares);
  G_OBJECT_CLASS (hs_prompt_panel_parent_class)->finalize (object);
}

static void
hs_prompt_panel_class_init (HsPromptPanelClass *klass)
{
  GObjectClass *object_class = G_OBJECT_CLASS (klass);
  GtkWidgetClass *widget_class = GTK_WIDGET_CLASS (klass);

  object_class->dispose = hs_prompt_panel_dispose;
  object_class->finalize = hs_prompt_panel_finalize;
  object_class->get_property = hs_prompt_panel_get_property;
  object_class->set_property = hs_prompt_panel_set_property;

  properties[PROP_PROMPT] =
    g_param_spec_string ("prompt", NULL, NULL, "",
                         G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  properties[PROP_STATUS] =
    g_param_spec_string ("status", NULL, NULL, "",
                         G_PARAM_READABLE | G_PARAM_STATIC_STRINGS);
  properties[PROP_TOKEN] =
    g_param_spec_int ("token", NULL, NULL, -1, G_MAXINT, -1,
                      G_PARAM_READWRITE | G_PARAM_EXPLICIT_NOTIFY | G_PARAM_STATIC_STRINGS);
  g_object_class_install_properties (object_class, N_PROPS, properties);

  signals[SIGNAL_MAP_CHANGED] =
    g_signal_new ("map-changed", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 0);
  signals[SIGNAL_TOKEN_SELECTED] =
    g_signal_new ("token-selected", G_TYPE_FROM_CLASS (klass), G_SIGNAL_RUN_LAST,
                  0, NULL, NULL, NULL, G_TYPE_NONE, 1, G_TYPE_INT);

  g_type_ensure (HS_TYPE_TAG_STRIP);
  gtk_widget_class_set_template_from_resource (widget_class,
                                               "/org/heatscope/Heatscope/ui/hs-prompt-panel.ui");
  gtk_widget_class_bind_template_child (widget_class, HsPromptPanel, sentence_list);
  gtk_widget_class_bind_template_child (widget_class, HsPromptPanel, prompt_view);
  gtk_widget_class_bind_template_child (widget_class, HsPromptPanel, status_label);
  gtk_widget_class_bind_template_child (widget_class, HsPromptPanel, status_box);
  gtk_widget_class_bind_template_child (widget_class, HsPromptPanel, token_area);
  gtk_widget_class_bind_template_child (widget_class, HsPromptPanel, token_box);
  gtk_widget_class_bind_template_child (widget_class, HsPromptPanel, token_key);
  gtk_widget_class_bind_template_child (widget_class, HsPromptPanel, token_shown);
  gtk_widget_class_bind_template_child (widget_class, HsPromptPanel, tag_strip);
  gtk_widget_class_bind_template_callback (widget_class, on_sentence_selected);

  gtk_widget_class_install_action (widget_class, "prompt.swap-sides", NULL, swap_sides_action);
  gtk_widget_class_install_action (widget_class, "prompt.reset", NULL, reset_action);
  gtk_widget_class_add_binding_action (widget_class, GDK_KEY_l, GDK_CONTROL_MASK | GDK_SHIFT_MASK,
                                       "prompt.swap-sides", NULL);
}

static void
hs_prompt_panel_init (HsPromptPanel *self)
{
  gtk_widget_init_template (GTK_WIDGET (self));
  _hs_css_init ();

  self->prompt = g_strdup ("");
  self->status = g_strdup ("");
  /* Lets tests type into the editor like a user. */
  g_object_set_data (G_OBJECT (self), "hs-prompt-view", self->prompt_view);
  g_object_set_data (G_OBJECT (self), "hs-sentence-list", self->sentence_list);
  self->token = -1;
  g_signal_connect_object (gtk_text_view_get_buffer (self->prompt_view), "changed",
                           G_CALLBACK (on_buffer_changed), self, 0);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "prompt.reset", FALSE);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "prompt.swap-sides", FALSE);
}

GtkWidget *
hs_prompt_panel_new (void)
{
  return g_object_new (HS_TYPE_PROMPT_PANEL, NULL);
}

/* Shows `sentence` in a row's label; only what differs is set, so a step
 * between instances with as many sentences lays out no new widgets. */
static void
show_sentence_row (GtkWidget  *label,
                   HsSentence *sentence)
{
  const char *text = sentence->text != NULL ? sentence->text : "";
  g_autofree char *tip = NULL;

  if (g_strcmp0 (gtk_label_get_text (GTK_LABEL (label)), text) != 0)
    gtk_label_set_text (GTK_LABEL (label), text);
  if (sentence->targets != NULL && sentence->targets[0] != NULL)
    {
      g_autofree char *targets = g_strjoinv (", ", sentence->targets);
      /* Translators: tooltip of a report sentence; %s lists region names */
      tip = g_strdup_printf (_("Targets: %s"), targets);
    }
  if (g_strcmp0 (gtk_widget_get_tooltip_text (label), tip) != 0)
    _hs_widget_set_tooltip (label, tip);
}

static GtkWidget *
make_sentence_row (HsSentence *sentence)
{
  GtkWidget *label = gtk_label_new (NULL);

  gtk_label_set_xalign (GTK_LABEL (label), 0);
  gtk_label_set_wrap (GTK_LABEL (label), TRUE);
  gtk_label_set_wrap_mode (GTK_LABEL (label), PANGO_WRAP_WORD_CHAR);
  gtk_widget_set_margin_start (label, 6);
  gtk_widget_set_margin_end (label, 6);
  gtk_widget_set_margin_top (label, 4);
  gtk_widget_set_margin_bottom (label, 4);
  show_sentence_row (label, sentence);
  return label;
}

/* Keeps the rows there are, relabelled, and adds or removes only the
 * difference in count (issue #26: rebuilding them was most of a step's
 * GTK layout work). */
static void
fill_sentence_list (HsPromptPanel *self)
{
  GPtrArray *sentences = self->instance != NULL ? self->instance->sentences : NULL;
  guint n = sentences != NULL ? sentences->len : 0;
  GtkListBoxRow *row;
  guint i;

  /* The template's "No sentences" placeholder shows only before the first
   * instance: rebuilding removed it with the rows, and the goldens of
   * sentence-less instances show an empty list. */
  gtk_list_box_set_placeholder (self->sentence_list, NULL);
  self->filling = TRUE;
  for (i = 0; i < n && (row = gtk_list_box_get_row_at_index (self->sentence_list, (int) i)) != NULL; i++)
    show_sentence_row (gtk_list_box_row_get_child (row), g_ptr_array_index (sentences, i));
  while ((row = gtk_list_box_get_row_at_index (self->sentence_list, (int) n)) != NULL)
    gtk_list_box_remove (self->sentence_list, GTK_WIDGET (row));
  for (; i < n; i++)
    gtk_list_box_append (self->sentence_list, make_sentence_row (g_ptr_array_index (sentences, i)));
  self->filling = FALSE;
}

void
hs_prompt_panel_set_instance (HsPromptPanel *self,
                              HsDataset     *dataset,
                              HsInstance    *instance)
{
  g_return_if_fail (HS_IS_PROMPT_PANEL (self));

  if (dataset != NULL)
    hs_dataset_ref (dataset);
  g_clear_pointer (&self->dataset, hs_dataset_unref);
  self->dataset = dataset;
  self->instance = dataset != NULL ? instance : NULL;
  self->sentence = NULL;
  self->map_ref = NULL;
  hs_prompt_panel_set_map (self, NULL);
  fill_sentence_list (self);

  gtk_widget_action_set_enabled (GTK_WIDGET (self), "prompt.reset",
                                 self->instance != NULL && self->instance->sentences != NULL &&
                                 self->instance->sentences->len > 0);
  gtk_widget_action_set_enabled (GTK_WIDGET (self), "prompt.swap-sides", self->instance != NULL);

  if (self->instance != NULL && self->instance->sentences != NULL && self->instance->sentences->len > 0)
    {
      self->filling = TRUE;
      gtk_list_box_select_row (self->sentence_list, gtk_list_box_get_row_at_index (self->sentence_list, 0));
      self->filling = FALSE;
      self->sentence = g_ptr_array_index (self->instance->sentences, 0);
      show_prompt (self, self->sentence->text);
    }
  else
    show_prompt (self, "");
}

void
hs_prompt_panel_set_model (HsPromptPanel *self,
                           const char    *model)
{
  g_return_if_fail (HS_IS_PROMPT_PANEL (self));

  if (g_strcmp0 (self->model, model) == 0)
    return;
  g_free (self->model);
  self->model = g_strdup (model);
  resolve_map (self);
}

void
hs_prompt_panel_set_live (HsPromptPanel *self,
                          gboolean       live)
{
  g_return_if_fail (HS_IS_PROMPT_PANEL (self));

  live = !!live;
  if (self->live == live)
    return;
  self->live = live;
  resolve_map (self);
}

gboolean
hs_prompt_panel_get_live (HsPromptPanel *self)
{
  g_return_val_if_fail (HS_IS_PROMPT_PANEL (self), FALSE);
  return self->live;
}

void
hs_prompt_panel_set_live_status (HsPromptPanel *self,
                                 const char    *status)
{
  g_return_if_fail (HS_IS_PROMPT_PANEL (self));

  if (self->live)
    set_status (self, status != NULL ? status : "");
}

gboolean
hs_prompt_panel_select_sentence (HsPromptPanel *self,
                                 const char    *sentence_id)
{
  g_return_val_if_fail (HS_IS_PROMPT_PANEL (self), FALSE);
  g_return_val_if_fail (sentence_id != NULL, FALSE);

  if (self->instance == NULL || self->instance->sentences == NULL)
    return FALSE;
  for (guint i = 0; i < self->instance->sentences->len; i++)
    {
      HsSentence *s = g_ptr_array_index (self->instance->sentences, i);
      if (g_strcmp0 (s->id, sentence_id) == 0)
        {
          GtkListBoxRow *row = gtk_list_box_get_row_at_index (self->sentence_list, (int) i);
          if (gtk_list_box_get_selected_row (self->sentence_list) == row)
            on_sentence_selected (self->sentence_list, row, self);
          else
            gtk_list_box_select_row (self->sentence_list, row);
          return TRUE;
        }
    }
  return FALSE;
}

void
hs_prompt_panel_select_relative (HsPromptPanel *self,
                                 int            delta)
{
  GtkListBoxRow *row;
  int n, index;

  g_return_if_fail (HS_IS_PROMPT_PANEL (self));

  if (self->instance == NULL || self->instance->sentences == NULL || self->instance->sentences->len == 0)
    return;
  n = (int) MIN (self->instance->sentences->len, (guint) G_MAXINT);
  row = gtk_list_box_get_selected_row (self->sentence_list);
  index = row != NULL ? gtk_list_box_row_get_index (row) + delta : 0;
  index = CLAMP (index, 0, n - 1);
  row = gtk_list_box_get_row_at_index (self->sentence_list, index);
  if (row != gtk_list_box_get_selected_row (self->sentence_list))
    gtk_list_box_select_row (self->sentence_list, row);
}

void
hs_prompt_panel_set_prompt (HsPromptPanel *self,
                            const char    *text)
{
  GtkTextBuffer *buffer;

  g_return_if_fail (HS_IS_PROMPT_PANEL (self));

  buffer = gtk_text_view_get_buffer (self->prompt_view);
  /* Triggers on_buffer_changed, which resolves the map. */
  gtk_text_buffer_set_text (buffer, text != NULL ? text : "", -1);
}

const char *
hs_prompt_panel_get_prompt (HsPromptPanel *self)
{
  g_return_val_if_fail (HS_IS_PROMPT_PANEL (self), NULL);
  return self->prompt;
}

HsSentence *
hs_prompt_panel_get_sentence (HsPromptPanel *self)
{
  g_return_val_if_fail (HS_IS_PROMPT_PANEL (self), NULL);
  return self->sentence;
}

HsMapRef *
hs_prompt_panel_get_map_ref (HsPromptPanel *self)
{
  g_return_val_if_fail (HS_IS_PROMPT_PANEL (self), NULL);
  return self->map_ref;
}

const char *
hs_prompt_panel_get_status (HsPromptPanel *self)
{
  g_return_val_if_fail (HS_IS_PROMPT_PANEL (self), NULL);
  return self->status;
}

void
hs_prompt_panel_swap_sides (HsPromptPanel *self)
{
  g_autofree char *swapped = NULL;

  g_return_if_fail (HS_IS_PROMPT_PANEL (self));

  swapped = hs_text_swap_sides (self->prompt);
  hs_prompt_panel_set_prompt (self, swapped);
}

gboolean
hs_prompt_token_shares (HsAttentionMap *map,
                        double         *shares)
{
  guint n, cells;
  const double *sentence;
  double total = 0.0;

  g_return_val_if_fail (map != NULL, FALSE);
  g_return_val_if_fail (shares != NULL, FALSE);

  n = hs_attention_map_get_n_tokens (map);
  if (n == 0)
    return FALSE;
  cells = hs_attention_map_get_width (map) * hs_attention_map_get_height (map);
  sentence = hs_attention_map_peek_values (map);
  for (guint i = 0; i < n; i++)
    {
      const double *t = hs_attention_map_peek_token (map, i);
      double dot = 0.0;
      for (guint c = 0; c < cells; c++)
        dot += t[c] * sentence[c];
      shares[i] = dot;
      total += dot;
    }
  for (guint i = 0; i < n; i++)
    shares[i] = total > 0.0 && isfinite (total) ? shares[i] / total : 1.0 / n;
  return TRUE;
}

static void
on_token_toggled (GtkToggleButton *button,
                  HsPromptPanel   *self)
{
  if (!gtk_toggle_button_get_active (button))
    return;
  hs_prompt_panel_set_token (self, GPOINTER_TO_INT (g_object_get_data (G_OBJECT (button), "hs-token")));
}

/* Says which map the canvas shows and marks its button, so a clicked
 * token reads as selected. */
static void
show_selected_token (HsPromptPanel *self)
{
  g_autofree char *text = NULL;

  for (GtkWidget *child = gtk_widget_get_first_child (GTK_WIDGET (self->token_box));
       child != NULL; child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *button = gtk_flow_box_child_get_child (GTK_FLOW_BOX_CHILD (child));

      if (GPOINTER_TO_INT (g_object_get_data (G_OBJECT (button), "hs-token")) == self->token)
        gtk_widget_add_css_class (button, "hs-token-selected");
      else
        gtk_widget_remove_css_class (button, "hs-token-selected");
    }
  if (self->token >= 0 && self->map != NULL && self->shares != NULL)
    {
      const char *word = hs_attention_map_get_token (self->map, (guint) self->token);
      g_autofree char *fallback = g_strdup_printf ("#%d", self->token + 1);

      text = g_strdup_printf (_("Showing the map of token “%s” (%.1f %% of the sentence map)"),
                              word != NULL ? word : fallback, self->shares[self->token] * 100.0);
    }
  else
    text = g_strdup (_("Showing the sentence map (mean over tokens); click a token for its own map"));
  gtk_label_set_text (self->token_shown, text);
}

static GtkWidget *
make_token_button (HsPromptPanel *self,
                   const char    *text,
                   int            token,
                   double         share,
                   double         min_share,
                   double         max_share,
                   GtkWidget     *group)
{
  GtkWidget *button = gtk_toggle_button_new ();
  GtkWidget *label = gtk_label_new (NULL);
  g_autofree char *markup = NULL;

  if (token >= 0)
    {
      /* Pale → strong red over the shares' own range, so that similar
       * shares still differ; the share itself is printed under the word. */
      double t = max_share > min_share ? CLAMP ((share - min_share) / (max_share - min_share), 0.0, 1.0)
                                       : 0.5;
      guint alpha = (guint) lround (10 + t * 80);   /* percent */
      g_autofree char *tip = g_strdup_printf (_("Share of the sentence map: %.1f %%"), share * 100.0);
      markup = g_markup_printf_escaped ("<span background=\"#e01b24\" bgalpha=\"%u%%\"> %s </span>\n"
                                        "<small>%.0f %%</small>", alpha, text, share * 100.0);
      gtk_label_set_justify (GTK_LABEL (label), GTK_JUSTIFY_CENTER);
      _hs_widget_set_tooltip (button, tip);
    }
  else
    markup = g_markup_printf_escaped ("%s", text);

  gtk_label_set_markup (GTK_LABEL (label), markup);
  gtk_button_set_child (GTK_BUTTON (button), label);
  gtk_widget_add_css_class (button, "flat");
  g_object_set_data (G_OBJECT (button), "hs-token", GINT_TO_POINTER (token));
  if (group != NULL)
    gtk_toggle_button_set_group (GTK_TOGGLE_BUTTON (button), GTK_TOGGLE_BUTTON (group));
  gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (button), token == self->token);
  g_signal_connect_object (button, "toggled", G_CALLBACK (on_token_toggled), self, 0);
  return button;
}

void
hs_prompt_panel_set_map (HsPromptPanel  *self,
                         HsAttentionMap *map)
{
  GtkWidget *child;
  guint n;

  g_return_if_fail (HS_IS_PROMPT_PANEL (self));

  if (map != NULL)
    hs_attention_map_ref (map);
  g_clear_pointer (&self->map, hs_attention_map_unref);
  self->map = map;

  while ((child = gtk_widget_get_first_child (GTK_WIDGET (self->token_box))) != NULL)
    gtk_flow_box_remove (self->token_box, child);
  n = map != NULL ? hs_attention_map_get_n_tokens (map) : 0;
  self->n_tokens = n;
  g_clear_pointer (&self->shares, g_free);
  if (self->token != -1)
    {
      self->token = -1;
      g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TOKEN]);
    }

  if (n > 0)
    {
      double *shares = self->shares = g_new0 (double, n);
      double max_share = 0.0, min_share = 1.0;
      g_autofree char *key = NULL;
      GtkWidget *all;

      hs_prompt_token_shares (map, shares);
      for (guint i = 0; i < n; i++)
        {
          max_share = MAX (max_share, shares[i]);
          min_share = MIN (min_share, shares[i]);
        }
      key = g_strdup_printf (_("Colour and number: the token’s share of the sentence map, "
                               "pale = %.0f %% (least) to strong red = %.0f %% (most)"),
                             min_share * 100.0, max_share * 100.0);
      gtk_label_set_text (self->token_key, key);

      all = make_token_button (self, _("Sentence"), -1, 0.0, min_share, max_share, NULL);
      _hs_widget_set_tooltip (all, _("Show the sentence map (mean over tokens)"));
      gtk_flow_box_append (self->token_box, all);
      for (guint i = 0; i < n; i++)
        {
          const char *text = hs_attention_map_get_token (map, i);
          g_autofree char *fallback = g_strdup_printf ("#%u", i + 1);
          gtk_flow_box_append (self->token_box,
                               make_token_button (self, text != NULL ? text : fallback, (int) i,
                                                  shares[i], min_share, max_share, all));
        }
    }
  gtk_widget_set_visible (self->token_area, n > 0);
  show_selected_token (self);

  /* The tags belong to the precomputed map on screen (the window loads
   * map_ref's file into `map`); a live map has none. */
  if (map != NULL && self->map_ref != NULL)
    hs_tag_strip_set_tags (self->tag_strip, self->map_ref->tags, self->map_ref->n_tags);
  else
    hs_tag_strip_set_tags (self->tag_strip, NULL, 0);
}

int
hs_prompt_panel_get_token (HsPromptPanel *self)
{
  g_return_val_if_fail (HS_IS_PROMPT_PANEL (self), -1);
  return self->token;
}

void
hs_prompt_panel_set_token (HsPromptPanel *self,
                           int            token)
{
  GtkWidget *child;

  g_return_if_fail (HS_IS_PROMPT_PANEL (self));

  if (token < -1 || token >= (int) self->n_tokens)
    token = -1;
  if (token == self->token)
    return;
  self->token = token;

  /* Keep the strip in step when set programmatically. */
  for (child = gtk_widget_get_first_child (GTK_WIDGET (self->token_box));
       child != NULL;
       child = gtk_widget_get_next_sibling (child))
    {
      GtkWidget *button = gtk_flow_box_child_get_child (GTK_FLOW_BOX_CHILD (child));
      if (GPOINTER_TO_INT (g_object_get_data (G_OBJECT (button), "hs-token")) == token)
        gtk_toggle_button_set_active (GTK_TOGGLE_BUTTON (button), TRUE);
    }

  show_selected_token (self);
  g_object_notify_by_pspec (G_OBJECT (self), properties[PROP_TOKEN]);
  g_signal_emit (self, signals[SIGNAL_TOKEN_SELECTED], 0, token);
}

void
hs_prompt_panel_get_token_texts (HsPromptPanel *self, const char **caption, const char **key)
{
  g_return_if_fail (HS_IS_PROMPT_PANEL (self));
  if (caption != NULL)
    *caption = gtk_label_get_text (self->token_shown);
  if (key != NULL)
    *key = gtk_label_get_text (self->token_key);
}

guint
hs_prompt_panel_get_n_tokens (HsPromptPanel *self)
{
  g_return_val_if_fail (HS_IS_PROMPT_PANEL (self), 0);
  return self->n_tokens;
}
