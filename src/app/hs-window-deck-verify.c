/* hs-window-deck-verify.c — a deck case opened in the app shows the
 * picture it was saved with, or says what differs
 *
 * Once a case's view is up (the window's single view, a compare window, or
 * the presentation's view), the maps it shows are hashed the way the case
 * recorded them (hs_deck_hash_maps) and compared: a changed or missing map
 * is named in the error bar by its side or model; a live model's map, which
 * is re-attended on every open, says so when it differs.  Live maps arrive
 * later than the view: the check waits for them.  The deck's dataset is
 * checked once per deck opened: that it is the open dataset, and that its
 * manifest is the one the deck was saved with.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <glib/gi18n.h>
#include <heatscope/heatscope.h>

#include "hs-window-private.h"

struct _HsDeckVerify
{
  HsWindow      *window;
  HsDeckCase    *item;       /* a copy of the case as saved */
  guint          index;
  HsCompareView *view;       /* weak; NULL: the window's single view */
  gulong         busy_handler;
  char          *live_key;   /* the single view's live map waited for */
};

void
_hs_deck_verify_free (HsDeckVerify *verify)
{
  if (verify == NULL)
    return;
  if (verify->view != NULL)
    {
      g_clear_signal_handler (&verify->busy_handler, verify->view);
      g_object_remove_weak_pointer (G_OBJECT (verify->view), (gpointer *) &verify->view);
    }
  hs_deck_case_free (verify->item);
  g_free (verify->live_key);
  g_free (verify);
}

static void
report (HsWindow *self, guint index, const char *text)
{
  g_autofree char *message = g_strdup_printf (_("case %u: %s"), index + 1, text);

  hs_error_bar_add (self->error_bar, self->deck_path, message);
}

/* What the comparison shows, as a line: "grounded | grounded (swapped
 * left/right)", "grounded | blind", or the grid's models. */
static char *
describe_models (GPtrArray *models, gboolean swap, gboolean grid)
{
  GString *text = g_string_new (NULL);

  for (guint i = 0; i < models->len; i++)
    {
      const HsDeckModel *model = g_ptr_array_index (models, i);

      if (i > 0)
        g_string_append (text, grid ? ", " : " | ");
      g_string_append (text, model->name);
      if (model->live)
        g_string_append_printf (text, " (%s)", _("live"));
    }
  if (swap && models->len > 0)
    g_string_append_printf (text, " | %s (%s)", ((HsDeckModel *) g_ptr_array_index (models, 0))->name,
                            _("swapped left/right"));
  return g_string_free (text, FALSE);
}

/* The view's models as a deck case would record them. */
static GPtrArray *
view_models (HsCompareView *view, gboolean grid, gboolean *swap)
{
  g_autoptr(HsDeckCase) shown = hs_deck_case_new ("");
  guint n = grid ? hs_compare_view_get_n_canvases (view) : MIN (hs_compare_view_get_n_canvases (view), 2);

  *swap = !grid && hs_compare_view_get_swapped (view);
  for (guint i = 0; i < n; i++)
    {
      gboolean live = FALSE;
      const char *model = hs_compare_view_get_model (view, i, &live);

      if (model != NULL && (i == 0 || !*swap))
        hs_deck_case_add_model (shown, model, live);
    }
  return g_ptr_array_ref (shown->models);
}

static gboolean
same_models (GPtrArray *a, GPtrArray *b)
{
  if (a->len != b->len)
    return FALSE;
  for (guint i = 0; i < a->len; i++)
    {
      const HsDeckModel *x = g_ptr_array_index (a, i), *y = g_ptr_array_index (b, i);

      if (!g_str_equal (x->name, y->name) || x->live != y->live)
        return FALSE;
    }
  return TRUE;
}

/* The quoted names of the maps whose hash differs from the one saved for
 * it, of the live ones or of the others; every one of them when the deck
 * has no usable hash per map (none, another count, or all equal while
 * their hash together is not). */
static char *
changed_maps (const HsDeckCase *item, GPtrArray *maps, GPtrArray *names, GArray *live,
              gboolean of_live, gboolean all)
{
  g_autoptr(GString) text = g_string_new (NULL);

  for (guint i = 0; i < maps->len; i++)
    {
      g_autofree char *hash = NULL;

      if (g_array_index (live, gboolean, i) != of_live)
        continue;
      if (!all)
        {
          hash = hs_deck_hash_maps ((HsAttentionMap **) &maps->pdata[i], 1);
          if (g_str_equal (hash, item->maps_sha256[i]))
            continue;
        }
      g_string_append_printf (text, "%s“%s”", text->len > 0 ? ", " : "",
                              (const char *) g_ptr_array_index (names, i));
    }
  return g_string_free (g_steal_pointer (&text), text->len == 0);
}

/* The maps on screen differ from the case's: which (from the hashes per
 * map), and how — a file changed, or a live model attended differently. */
static void
report_changed (HsDeckVerify *verify, GPtrArray *maps, GPtrArray *names, GArray *live)
{
  HsWindow *self = verify->window;
  const HsDeckCase *item = verify->item;
  gboolean all = item->maps_sha256 == NULL || g_strv_length (item->maps_sha256) != maps->len;
  g_autofree char *changed = NULL;
  g_autofree char *reattended = NULL;

  changed = changed_maps (item, maps, names, live, FALSE, all);
  reattended = changed_maps (item, maps, names, live, TRUE, all);
  if (changed == NULL && reattended == NULL)
    {
      changed = changed_maps (item, maps, names, live, FALSE, TRUE);
      reattended = changed_maps (item, maps, names, live, TRUE, TRUE);
    }
  if (changed != NULL)
    {
      g_autofree char *text = NULL;

      if (verify->view == NULL)
        text = g_strdup_printf (_("The map of model “%s” changed since the case was saved (its hash differs)"),
                                (const char *) g_ptr_array_index (names, 0));
      else
        text = g_strdup_printf (_("The map %s changed since the case was saved (its hash differs)"), changed);
      report (self, verify->index, text);
    }
  if (reattended != NULL)
    {
      g_autofree char *text = g_strdup_printf (_("Attended again by the live model: the map %s differs from the one saved (its hash differs)"),
                                               reattended);
      report (self, verify->index, text);
    }
}

/* Checks what is on screen now against the case: TRUE when it is the
 * saved picture, else the difference is in the error bar. */
static gboolean
run (HsDeckVerify *verify)
{
  HsWindow *self = verify->window;
  const HsDeckCase *item = verify->item;
  gboolean grid = item->view == HS_DECK_VIEW_GRID;
  g_autoptr(GPtrArray) maps = g_ptr_array_new ();
  g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func (g_free);
  g_autoptr(GArray) live = g_array_new (FALSE, FALSE, sizeof (gboolean));
  g_autofree char *hash = NULL;

  if (verify->view == NULL)
    {
      const HsDeckModel *model = item->models->len > 0 ? g_ptr_array_index (item->models, 0) : NULL;

      if (model == NULL)
        return TRUE;
      if (self->map == NULL)
        {
          g_autofree char *text = g_strdup_printf (model->live ? _("The live model “%s” gave no map for it")
                                                               : _("The map of model “%s” is gone from the dataset"),
                                                   model->name);
          report (self, verify->index, text);
          return FALSE;
        }
      g_ptr_array_add (maps, self->map);
      g_ptr_array_add (names, g_strdup (model->name));
      g_array_append_val (live, model->live);
    }
  else
    {
      HsCompareView *view = verify->view;
      gboolean swap = FALSE;
      g_autoptr(GPtrArray) shown = view_models (view, grid, &swap);
      guint n = grid ? hs_compare_view_get_n_canvases (view) : MIN (hs_compare_view_get_n_canvases (view), 2);

      /* Another pair or grid than saved (a model or the swapped prompt's
       * map gone, another model come): named before any hash. */
      if (item->models->len > 0 && (!same_models (shown, item->models) || swap != item->swap))
        {
          g_autofree char *now = describe_models (shown, swap, grid);
          g_autofree char *saved = describe_models (item->models, item->swap, grid);
          g_autofree char *text = g_strdup_printf (_("The view now compares %s; the case saved %s"), now, saved);

          report (self, verify->index, text);
          return FALSE;
        }
      for (guint i = 0; i < n; i++)
        {
          HsAttentionMap *map = hs_compare_view_get_map (view, i);
          gboolean is_live = FALSE;

          if (map == NULL)
            {
              const char *why = hs_compare_view_get_error (view, i);
              g_autofree char *text = g_strdup_printf (_("The map “%s” is missing: %s"),
                                                       hs_compare_view_get_title (view, i),
                                                       why != NULL ? why : _("no map"));
              report (self, verify->index, text);
              return FALSE;
            }
          hs_compare_view_get_model (view, i, &is_live);
          g_ptr_array_add (maps, map);
          g_ptr_array_add (names, g_strdup (hs_compare_view_get_title (view, i)));
          g_array_append_val (live, is_live);
        }
    }
  if (item->map_sha256 == NULL)
    return TRUE;
  hash = hs_deck_hash_maps ((HsAttentionMap **) maps->pdata, maps->len);
  if (g_str_equal (hash, item->map_sha256))
    return TRUE;
  report_changed (verify, maps, names, live);
  return FALSE;
}

static void
finish (HsWindow *self)
{
  g_clear_pointer (&self->deck_verify, _hs_deck_verify_free);
}

static void
on_view_busy (HsCompareView *view, GParamSpec *pspec, HsDeckVerify *verify)
{
  HsWindow *self = verify->window;

  if (hs_compare_view_get_busy (view) || self->deck_verify != verify)
    return;
  run (verify);
  finish (self);
}

void
_hs_window_deck_verify (HsWindow *self, guint index, HsCompareView *view)
{
  HsDeckVerify *verify;

  finish (self);
  if (self->deck == NULL || index >= self->deck->cases->len)
    return;
  verify = g_new0 (HsDeckVerify, 1);
  verify->window = self;
  verify->index = index;
  verify->item = hs_deck_case_copy (g_ptr_array_index (self->deck->cases, index));
  self->deck_verify = verify;
  if (view != NULL)
    {
      verify->view = view;
      g_object_add_weak_pointer (G_OBJECT (view), (gpointer *) &verify->view);
      if (hs_compare_view_get_busy (view))
        {
          verify->busy_handler = g_signal_connect (view, "notify::busy", G_CALLBACK (on_view_busy), verify);
          return;
        }
    }
  else if (self->live_model != NULL && (self->map == NULL || _hs_window_live_busy (self)))
    {
      /* The live map of the case comes later: _hs_window_deck_verify_live. */
      verify->live_key = hs_live_attend_make_key (self->dataset, self->instance, self->live_model,
                                                  hs_prompt_panel_get_prompt (self->prompt_panel));
      return;
    }
  run (verify);
  finish (self);
}

void
_hs_window_deck_verify_live (HsWindow *self, const char *key)
{
  HsDeckVerify *verify = self->deck_verify;

  if (verify == NULL || verify->view != NULL || verify->live_key == NULL)
    return;
  if (g_strcmp0 (key, verify->live_key) == 0)
    run (verify);
  /* Either checked, or the presenter went elsewhere before it came. */
  finish (self);
}

/* ---- the deck's dataset ------------------------------------------------------ */

/* The deck's dataset against the open one: missing, moved or leaving the
 * deck's folder (hs_deck_open_beneath's reason), another folder than the
 * open dataset, or a manifest changed since the deck was saved.  FALSE
 * with `error` when the cases cannot be shown; TRUE with *warning when
 * they can but differ. */
static gboolean
check_dataset (HsWindow *self, char **warning, GError **error)
{
  g_autofree char *folder = g_path_get_dirname (self->deck_path);
  g_autofree char *wanted = g_canonicalize_filename (self->deck->dataset, folder);
  g_autofree char *manifest = g_build_filename (wanted, "heatscope.json", NULL);
  g_autofree char *open = NULL;
  g_autofree char *real_open = NULL;
  g_autofree char *real_wanted = NULL;
  g_autofree char *hash = NULL;
  g_autoptr(GError) local = NULL;
  int fd;

  fd = hs_deck_open_beneath (self->deck_path, self->deck->dataset, "heatscope.json", &local);
  if (fd < 0)
    {
      const char *reason = local->message;

      if (local->code != HS_DECK_ERROR_CHANGED)   /* leaves the deck's folder: says so */
        {
          g_propagate_error (error, g_steal_pointer (&local));
          return FALSE;
        }
      /* the reason without the deck's name before it (the bar names the deck) */
      if (g_str_has_prefix (reason, self->deck_path) && g_str_has_prefix (reason + strlen (self->deck_path), ": "))
        reason += strlen (self->deck_path) + 2;
      g_set_error (error, HS_DECK_ERROR, HS_DECK_ERROR_CHANGED, _("the deck's dataset %s is missing or moved (%s)"),
                   wanted, reason);
      return FALSE;
    }
  hash = hs_deck_hash_fd (fd, manifest, error);
  close (fd);
  if (hash == NULL)
    return FALSE;
  /* The same folder whatever symlinks led to either. */
  real_wanted = realpath (wanted, NULL);
  if (self->dataset != NULL)
    {
      open = g_canonicalize_filename (hs_dataset_get_root (self->dataset), NULL);
      real_open = realpath (open, NULL);
    }
  if (open == NULL || g_strcmp0 (real_open != NULL ? real_open : open,
                                 real_wanted != NULL ? real_wanted : wanted) != 0)
    {
      g_set_error (error, HS_DECK_ERROR, HS_DECK_ERROR_CHANGED,
                   _("the deck shows the dataset %s, but %s is open: open the deck's dataset to show its cases"),
                   wanted, open != NULL ? open : _("no dataset"));
      return FALSE;
    }
  if (self->deck->manifest_sha256 == NULL)
    self->deck->manifest_sha256 = g_steal_pointer (&hash);   /* a deck made before the app recorded it */
  else if (!g_str_equal (hash, self->deck->manifest_sha256))
    *warning = g_strdup_printf (_("the dataset's manifest %s changed since the deck was saved (its hash differs): each case is checked as it opens"),
                                manifest);
  return TRUE;
}

gboolean
_hs_window_deck_dataset_usable (HsWindow *self)
{
  const char *root = self->dataset != NULL ? hs_dataset_get_root (self->dataset) : NULL;
  g_autofree char *warning = NULL;
  g_autoptr(GError) error = NULL;

  if (self->deck == NULL || self->deck_path == NULL)
    return FALSE;
  /* Once per deck opened and dataset shown: the manifest's change is said once. */
  if (self->deck_checked && g_strcmp0 (root, self->deck_checked_root) == 0)
    {
      if (self->deck_problem != NULL)
        hs_error_bar_add (self->error_bar, self->deck_path, self->deck_problem);
      return self->deck_problem == NULL;
    }
  self->deck_checked = TRUE;
  g_free (self->deck_checked_root);
  self->deck_checked_root = g_strdup (root);
  g_clear_pointer (&self->deck_problem, g_free);
  if (!check_dataset (self, &warning, &error))
    {
      self->deck_problem = g_strdup (error->message);
      hs_error_bar_add (self->error_bar, self->deck_path, self->deck_problem);
      return FALSE;
    }
  if (warning != NULL)
    hs_error_bar_add (self->error_bar, self->deck_path, warning);
  return TRUE;
}
