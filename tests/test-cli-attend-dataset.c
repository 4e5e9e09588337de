/* test-cli-attend-dataset.c — heatscope-cli attend DATASET: every query (and perturbed
 * prompt) of a dataset, resumable, sharded, with built-in models and exec backends */
#include <heatscope/heatscope.h>
#include "hs-test-util.h"

#include <glib/gstdio.h>
#include <math.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>

/* Runs `heatscope-cli attend ARGS` and asserts its exit status. */
static void
attend (const char * const *args, int expected, char **out, char **err)
{
  g_autofree char *o = NULL, *e = NULL;
  int status = hs_test_run_cli ("attend", args, &o, &e);

  if (status != expected)
    g_printerr ("attend exited %d (expected %d):\n%s%s", status, expected, o, e);
  g_assert_cmpint (status, ==, expected);
  if (out != NULL)
    *out = g_steal_pointer (&o);
  if (err != NULL)
    *err = g_steal_pointer (&e);
}

/* stdout of `heatscope-cli metrics DATASET [ARGS]` (status 0 asserted unless `any`). */
static char *
metrics (const char *dataset, const char *a1, const char *a2, const char *a3, const char *a4)
{
  g_autofree char *err = NULL;
  char *out = NULL;
  const char *args[] = { dataset, a1, a2, a3, a4, NULL };
  int status = hs_test_run_cli ("metrics", args, &out, &err);

  if (status != 0)
    g_printerr ("metrics: %s", err);
  g_assert_cmpint (status, ==, 0);
  return out;
}

static void
assert_valid (const char *dataset)
{
  g_autofree char *out = NULL, *err = NULL;
  const char *args[] = { dataset, NULL };
  int status = hs_test_run_cli ("validate", args, &out, &err);

  if (status != 0)
    g_printerr ("validate: %s%s", out, err);
  g_assert_cmpint (status, ==, 0);
}

static guint
count_lines (const char *text)
{
  guint n = 0;

  for (const char *p = text; *p; p++)
    n += *p == '\n';
  return n;
}

static void
assert_contains (const char *haystack, const char *needle)
{
  if (strstr (haystack, needle) == NULL)
    g_error ("expected \"%s\" in:\n%s", needle, haystack);
}

/* --- the built-in models reproduce the demo's precomputed maps ---------------- */

static void
test_demo_equals_precomputed (void)
{
  g_autofree char *tmp = hs_test_make_tmpdir ();
  g_autofree char *ref = hs_test_make_demo (tmp, "ref", 8, 256, "models");
  g_autofree char *bare = hs_test_make_demo (tmp, "bare", 8, 256, "none");
  const char *models[] = { "grounded", "blind", "noattn" };
  g_autofree char *ref_rows = NULL, *bare_rows = NULL;
  g_auto(GStrv) ref_lines = NULL, bare_lines = NULL;
  guint n_metrics, n_compared = 0;

  g_assert_cmpuint (hs_test_count_maps (bare, "grounded"), ==, 0);
  for (guint m = 0; m < G_N_ELEMENTS (models); m++)
    {
      g_autofree char *out = NULL;
      const char *args[] = { bare, "--model", models[m], "--tokens", "--perturb", "swap-left-right",
                             "--jobs", m == 1 ? "2" : "1", NULL };

      attend (args, 0, &out, NULL);
      assert_contains (out, " 0 skipped (already in the dataset), 0 failed");
    }
  assert_valid (bare);

  /* Same model, same maps: every row of every model equal to the last digit. */
  ref_rows = metrics (ref, NULL, NULL, NULL, NULL);
  bare_rows = metrics (bare, NULL, NULL, NULL, NULL);
  g_assert_cmpuint (count_lines (ref_rows), >, 3 * 8);
  g_assert_cmpstr (bare_rows, ==, ref_rows);
  g_clear_pointer (&ref_rows, g_free);
  g_clear_pointer (&bare_rows, g_free);

  /* The perturbed maps are attended with metrics --perturb's prompts: the
   * demo precomputes swapped maps for one-lung sentences only; where it has
   * one, the deltas agree; attend has them for every sentence. */
  ref_rows = metrics (ref, "--perturb", "swap-left-right", NULL, NULL);
  bare_rows = metrics (bare, "--perturb", "swap-left-right", NULL, NULL);
  ref_lines = g_strsplit (ref_rows, "\n", -1);
  bare_lines = g_strsplit (bare_rows, "\n", -1);
  g_assert_cmpuint (g_strv_length (ref_lines), ==, g_strv_length (bare_lines));
  {
    g_auto(GStrv) header = g_strsplit (ref_lines[0], ",", -1);

    /* instance, query, model, subsets, the metrics, their deltas, sym_kl, swap_response */
    n_metrics = (g_strv_length (header) - 4 - 2) / 2;
    g_assert_cmpstr (header[4 + n_metrics], ==, "delta_auroc");
  }
  for (guint l = 1; ref_lines[l] != NULL && ref_lines[l][0] != '\0'; l++)
    {
      g_auto(GStrv) a = g_strsplit (ref_lines[l], ",", -1);
      g_auto(GStrv) b = g_strsplit (bare_lines[l], ",", -1);
      gboolean ref_has_deltas = a[4 + n_metrics][0] != '\0';

      g_assert_cmpuint (g_strv_length (a), ==, g_strv_length (b));
      for (guint k = 0; a[k] != NULL; k++)
        if (k < 4 + n_metrics || ref_has_deltas)
          g_assert_cmpstr (a[k], ==, b[k]);
      /* delta_auroc wherever auroc is defined (a sentence with a target):
       * the swapped prompt's map is always there */
      if (b[4][0] != '\0')
        g_assert_cmpstr (b[4 + n_metrics], !=, "");
      n_compared += ref_has_deltas;
    }
  g_assert_cmpuint (n_compared, >, 0);

  /* Run again: everything is there. */
  {
    g_autofree char *out = NULL;
    g_autofree char *expected = g_strdup_printf ("grounded: 0 maps computed, %u skipped",
                                                 hs_test_count_maps (bare, "grounded"));
    const char *args[] = { bare, "--model", "grounded", "--tokens", "--perturb", "swap-left-right", NULL };

    attend (args, 0, &out, NULL);
    assert_contains (out, expected);
  }
}

/* --- an imported real dataset ------------------------------------------------ */

static void
test_imported_yolo (void)
{
  g_autofree char *src = hs_test_shared_path ("mri-brain-tumor");
  g_autofree char *tmp = NULL, *ds = NULL, *out = NULL, *err = NULL, *rows = NULL;
  g_auto(GStrv) lines = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  guint n_targeted = 0;

  if (src == NULL)
    return;
  tmp = hs_test_make_tmpdir ();
  ds = g_build_filename (tmp, "mri", NULL);
  {
    const char *args[] = { "yolo", src, "-o", ds, NULL };
    g_assert_cmpint (hs_test_run_cli ("import", args, &out, &err), ==, 0);
  }
  /* Before: no maps, no rows (the starting point). */
  rows = metrics (ds, NULL, NULL, NULL, NULL);
  g_assert_cmpuint (count_lines (rows), ==, 1);
  g_clear_pointer (&rows, g_free);
  {
    const char *args[] = { ds, "--model", "grounded", "--jobs", "2", NULL };
    attend (args, 0, NULL, NULL);
  }
  assert_valid (ds);
  dataset = hs_dataset_load (ds, &error);
  g_assert_no_error (error);
  for (guint i = 0; i < hs_dataset_get_n_instances (dataset); i++)
    {
      HsInstance *instance = hs_dataset_get_instance (dataset, i);

      for (guint s = 0; s < instance->sentences->len; s++)
        n_targeted += ((HsSentence *) g_ptr_array_index (instance->sentences, s))->targets[0] != NULL;
    }
  g_assert_cmpuint (n_targeted, ==, 28);
  rows = metrics (ds, "--model", "grounded", NULL, NULL);
  lines = g_strsplit (rows, "\n", -1);
  g_assert_cmpuint (count_lines (rows), ==, 1 + n_targeted);
  for (guint l = 1; l <= n_targeted; l++)
    {
      g_auto(GStrv) cells = g_strsplit (lines[l], ",", -1);
      double auroc = g_ascii_strtod (cells[4], NULL);

      g_assert_cmpstr (cells[2], ==, "grounded");
      g_assert_cmpstr (cells[4], !=, "");
      g_assert_true (auroc >= 0 && auroc <= 1);
    }
}

/* --- kill at chosen points, then resume ---------------------------------------- */

static void
test_kill_resume (void)
{
  /* Each point is reached mid-run with --batch 4: a map written but not
   * recorded, the second batch holding the lock, the manifest's temporary
   * file whole, the manifest just renamed. */
  const char *points[] = {
    "attend-map-written:6",
    "dataset-locked@bare:2",
    "atomic-before-rename@heatscope.json:2",
    "atomic-after-rename@heatscope.json:2",
  };
  g_autofree char *tmp = hs_test_make_tmpdir ();
  g_autofree char *whole_dir = g_build_filename (tmp, "whole", NULL);
  g_autofree char *whole = NULL;
  g_autofree char *expected = NULL;

  g_assert_cmpint (g_mkdir (whole_dir, 0755), ==, 0);
  whole = hs_test_make_demo (whole_dir, "bare", 5, 256, "none");
  {
    const char *args[] = { whole, "--model", "grounded", "--perturb", "swap-left-right",
                           "--batch", "4", NULL };
    attend (args, 0, NULL, NULL);
  }
  expected = metrics (whole, "--perturb", "swap-left-right", NULL, NULL);

  for (guint p = 0; p < G_N_ELEMENTS (points); p++)
    {
      g_autofree char *dir = g_strdup_printf ("%s/run%u", tmp, p);
      g_autofree char *ds = NULL, *out = NULL, *rows = NULL, *skipped = NULL;
      guint recorded;
      GPid pid;

      g_assert_cmpint (g_mkdir (dir, 0755), ==, 0);
      ds = hs_test_make_demo (dir, "bare", 5, 256, "none");
      {
        const char *argv[] = { hs_test_cli (), "attend", ds, "--model", "grounded", "--perturb",
                               "swap-left-right", "--batch", "4", NULL };
        pid = hs_test_run_to_stop (argv, points[p]);
      }
      hs_test_kill_stopped (pid);
      /* Killed: a valid dataset with the maps recorded so far. */
      assert_valid (ds);
      recorded = hs_test_count_maps (ds, "grounded");
      if (p > 0)
        g_assert_cmpuint (recorded, >=, 4);   /* the first batch at least */
      {
        const char *args[] = { ds, "--model", "grounded", "--perturb", "swap-left-right",
                               "--batch", "4", NULL };
        attend (args, 0, &out, NULL);
      }
      skipped = g_strdup_printf (" skipped (already in the dataset), 0 failed");
      assert_contains (out, skipped);
      g_clear_pointer (&skipped, g_free);
      skipped = g_strdup_printf (", %u skipped (already", recorded);
      assert_contains (out, skipped);
      assert_valid (ds);
      rows = metrics (ds, "--perturb", "swap-left-right", NULL, NULL);
      g_assert_cmpstr (rows, ==, expected);
      g_assert_cmpuint (hs_test_count_maps (ds, "grounded"), ==, hs_test_count_maps (whole, "grounded"));
    }
}

/* --- two shards into one dataset at the same time -------------------------------- */

static void
test_concurrent_shards (void)
{
  g_autofree char *tmp = hs_test_make_tmpdir ();
  g_autofree char *log = g_build_filename (tmp, "log", NULL);
  g_autofree char *ref = hs_test_make_demo (tmp, "ref", 6, 256, "models");
  g_autofree char *expected = metrics (ref, "--model", "grounded", NULL, NULL);

  /* (a) Shard 1 has written its first map and recorded nothing when shard 2
   * runs from start to end; then shard 1 records its maps: it must read
   * the manifest again and keep shard 2's. */
  {
    g_autofree char *dir = g_build_filename (tmp, "a", NULL);
    g_autofree char *ds = NULL, *rows = NULL;
    GPid pid;

    g_assert_cmpint (g_mkdir (dir, 0755), ==, 0);
    ds = hs_test_make_demo (dir, "bare", 6, 256, "none");
    {
      const char *argv[] = { hs_test_cli (), "attend", ds, "--shard", "1/2", "--tokens", NULL };
      pid = hs_test_spawn_logged (argv, NULL, NULL, "attend-map-written:1", log);
      hs_test_wait_stopped (pid, "attend-map-written:1", log);
    }
    {
      const char *args[] = { ds, "--shard", "2/2", "--tokens", NULL };
      attend (args, 0, NULL, NULL);
    }
    hs_test_continue_stopped (pid, log);
    assert_valid (ds);
    rows = metrics (ds, "--model", "grounded", NULL, NULL);
    g_assert_cmpstr (rows, ==, expected);
  }

  /* (b) Shard 1 holds the lock (stopped while recording) while shard 2
   * runs; shard 2 waits for the lock, then both finish. */
  {
    g_autofree char *dir = g_build_filename (tmp, "b", NULL);
    g_autofree char *ds = NULL, *rows = NULL;
    GPid pid1, pid2;

    g_assert_cmpint (g_mkdir (dir, 0755), ==, 0);
    ds = hs_test_make_demo (dir, "bare", 6, 256, "none");
    {
      const char *argv[] = { hs_test_cli (), "attend", ds, "--shard", "1/2", "--tokens", NULL };
      pid1 = hs_test_spawn_logged (argv, NULL, NULL, "dataset-locked@bare:1", log);
      hs_test_wait_stopped (pid1, "dataset-locked@bare:1", log);
    }
    {
      const char *argv[] = { hs_test_cli (), "attend", ds, "--shard", "2/2", "--tokens", NULL };
      pid2 = hs_test_spawn_logged (argv, NULL, NULL, NULL, log);
    }
    hs_test_continue_stopped (pid1, log);
    hs_test_wait_exit (pid2, log);
    assert_valid (ds);
    rows = metrics (ds, "--model", "grounded", NULL, NULL);
    g_assert_cmpstr (rows, ==, expected);
  }
}

/* --- exec backends in Python ------------------------------------------------------ */

/* Answers every request with the same 2×3 map and no_attn 0.25, except for
 * the image named by argv[2], where it does what argv[1] says. */
static const char backend_py[] =
  "import sys, json, base64, struct, os, time\n"
  "mode = sys.argv[1]; bad = sys.argv[2]\n"
  "for line in sys.stdin:\n"
  "    req = json.loads(line)\n"
  "    h, w = 2, 3\n"
  "    vals = [0.5, 0.25, 0.125, 0.0625, 0.03125, 0.03125]\n"
  "    if os.path.basename(req['image']) == bad:\n"
  "        if mode == 'error':\n"
  "            print(json.dumps({'id': req['id'], 'error': 'no such finding'}), flush=True); continue\n"
  "        if mode == 'crash': sys.exit(3)\n"
  "        if mode == 'hang': time.sleep(3600)\n"
  "        if mode == 'nan': vals = [float('nan')] * 6\n"
  "        if mode == 'shape': h, w = 3, 3\n"
  "        if mode == 'garbage':\n"
  "            print('this is not json', flush=True); continue\n"
  "    data = base64.b64encode(struct.pack('<%df' % len(vals), *vals)).decode()\n"
  "    print(json.dumps({'id': req['id'], 'shape': [h, w], 'maps': data, 'no_attn': 0.25}), flush=True)\n";

static void
test_exec_backend (void)
{
  static const struct { const char *mode, *reason; } cases[] = {
    { "ok", NULL },
    { "error", "no such finding" },
    { "crash", "exited with status 3" },
    /* The timeout is the behaviour under test (the backend never answers), not a guess at speed. */
    { "hang", "did not answer within 1.0 s" },
    { "nan", "is not finite" },
    { "shape", "expected 48 for 9 float32 values" },
    { "garbage", "is not JSON" },
  };
  g_autofree char *tmp = hs_test_make_tmpdir ();
  g_autofree char *script = g_build_filename (tmp, "backend.py", NULL);

  if (!g_file_test ("/usr/bin/python3", G_FILE_TEST_IS_EXECUTABLE))
    {
      g_test_skip ("no /usr/bin/python3");
      return;
    }
  hs_test_write_file (tmp, "backend.py", backend_py);
  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      g_autofree char *dir = g_strdup_printf ("%s/%s", tmp, cases[c].mode);
      g_autofree char *ds = NULL, *out = NULL, *err = NULL, *command = NULL, *rows = NULL;
      g_autoptr(HsDataset) dataset = NULL;
      g_autoptr(GError) error = NULL;
      guint n_queries = 0, n_bad = 0;
      HsInstance *bad;

      g_assert_cmpint (g_mkdir (dir, 0755), ==, 0);
      ds = hs_test_make_demo (dir, "ds", 4, 256, "none");
      dataset = hs_dataset_load (ds, &error);
      g_assert_no_error (error);
      bad = hs_dataset_get_instance (dataset, 2);
      for (guint i = 0; i < hs_dataset_get_n_instances (dataset); i++)
        n_queries += hs_dataset_get_instance (dataset, i)->sentences->len;
      n_bad = bad->sentences->len;
      command = g_strdup_printf ("/usr/bin/python3 %s %s phantom-000002.png", script, cases[c].mode);
      {
        const char *args[] = { ds, "--backend-exec", command, "--name", "ext", "--timeout", "1",
                               "--jobs", c % 2 ? "2" : "1", NULL };
        attend (args, cases[c].reason == NULL ? 0 : 1, &out, &err);
      }
      assert_valid (ds);
      rows = metrics (ds, "--model", "ext", NULL, NULL);
      if (cases[c].reason == NULL)
        {
          HsMapRef *ref = hs_instance_find_map (bad, "ext", "s1");
          g_autoptr(HsDataset) written = hs_dataset_load (ds, &error);
          g_autoptr(HsAttentionMap) map = NULL;
          const double *v;

          g_assert_no_error (error);
          g_assert_null (ref);  /* the plan's dataset was loaded before */
          ref = hs_instance_find_map (hs_dataset_get_instance (written, 2), "ext", "s1");
          g_assert_nonnull (ref);
          map = hs_dataset_load_map (written, ref, &error);
          g_assert_no_error (error);
          g_assert_cmpuint (hs_attention_map_get_height (map), ==, 2);
          g_assert_cmpuint (hs_attention_map_get_width (map), ==, 3);
          v = hs_attention_map_peek_values (map);
          g_assert_cmpfloat (v[0], ==, 0.5);
          g_assert_cmpfloat (v[5], ==, 0.03125);
          g_assert_cmpfloat (ref->no_attn, ==, 0.25);
          g_assert_cmpuint (count_lines (rows), ==, 1 + n_queries);
          g_assert_cmpstr (err, ==, "");
          continue;
        }
      /* One line per failed query: instance, image, query, reason. */
      for (guint s = 0; s < n_bad; s++)
        {
          HsSentence *sentence = g_ptr_array_index (bad->sentences, s);
          g_autofree char *line = g_strdup_printf ("heatscope-cli attend: instance \"phantom-000002\" "
                                                   "(images/phantom-000002.png), query \"%s\": ",
                                                   sentence->id);
          assert_contains (err, line);
        }
      assert_contains (err, cases[c].reason);
      {
        g_autofree char *summary = g_strdup_printf ("ext: %u maps computed, 0 skipped (already in "
                                                    "the dataset), %u failed", n_queries - n_bad, n_bad);
        assert_contains (out, summary);
      }
      /* The rest is there and scored. */
      g_assert_cmpuint (count_lines (rows), ==, 1 + n_queries - n_bad);
      g_assert_cmpuint (hs_test_count_maps (ds, "ext"), ==, n_queries - n_bad);
      if (strcmp (cases[c].mode, "error") == 0)
        {
          /* A second run retries only the failed ones. */
          g_autofree char *out2 = NULL;
          g_autofree char *summary = g_strdup_printf ("ext: 0 maps computed, %u skipped (already in "
                                                      "the dataset), %u failed", n_queries - n_bad, n_bad);
          const char *args[] = { ds, "--backend-exec", command, "--name", "ext", NULL };

          attend (args, 1, &out2, NULL);
          assert_contains (out2, summary);
        }
    }
}

/* --- scoring follows: every perturbation's deltas, and the summary table ---------- */

static char *
metrics_err (const char *dataset, const char *perturbation, gboolean summary, char **err)
{
  char *out = NULL;
  const char *args[] = { dataset, "--model", "grounded", "--perturb", perturbation,
                         summary ? "--summary" : NULL, NULL };

  g_assert_cmpint (hs_test_run_cli ("metrics", args, &out, err), ==, 0);
  return out;
}

static void
test_perturbations_scored (void)
{
  const char *text[] = { "swap-left-right", "shuffle-in-report", "random-sentence",
                         "synthetic-swapped-condition" };
  g_autofree char *tmp = hs_test_make_tmpdir ();
  g_autofree char *ds = hs_test_make_demo (tmp, "ds", 6, 256, "none");

  /* Without perturbed maps, metrics --perturb says which prompt is missing
   * and leaves the deltas empty: never a silent 0. */
  {
    const char *args[] = { ds, "--model", "grounded", NULL };
    g_autofree char *err = NULL, *rows = NULL;
    g_auto(GStrv) lines = NULL;

    attend (args, 0, NULL, NULL);
    rows = metrics_err (ds, "swap-left-right", FALSE, &err);
    assert_contains (err, "swap-left-right: no precomputed map for prompt '");
    assert_contains (err, "of model grounded in instance phantom-0000");
    /* One note per row whose swapped prompt has no map, and exactly those
     * rows have no sym_kl (a sentence without a side word is its own swap:
     * sym_kl 0). */
    {
      g_auto(GStrv) notes = g_strsplit (err, "no precomputed map", -1);
      guint n_empty = 0;

      lines = g_strsplit (rows, "\n", -1);
      for (guint l = 1; lines[l] != NULL && lines[l][0] != '\0'; l++)
        {
          g_auto(GStrv) cells = g_strsplit (lines[l], ",", -1);
          guint n = g_strv_length (cells);

          n_empty += cells[n - 2][0] == '\0';
        }
      g_assert_cmpuint (n_empty, >, 0);
      g_assert_cmpuint (n_empty, ==, g_strv_length (notes) - 1);
    }
  }
  {
    const char *args[] = { ds, "--model", "grounded", "--perturb", text[0], "--perturb", text[1],
                           "--perturb", text[2], "--perturb", text[3], "--perturb", "random-boxes",
                           NULL };
    attend (args, 0, NULL, NULL);
  }
  assert_valid (ds);
  for (guint p = 0; p <= G_N_ELEMENTS (text); p++)
    {
      const char *perturbation = p < G_N_ELEMENTS (text) ? text[p] : "random-boxes";
      g_autofree char *err = NULL, *rows = NULL, *serr = NULL, *summary = NULL, *prefix = NULL;
      g_auto(GStrv) lines = NULL;
      guint n_defined = 0;

      rows = metrics_err (ds, perturbation, FALSE, &err);
      /* Every perturbed map is there (a perturbation may not apply to a query). */
      g_assert_null (strstr (err, "no precomputed map"));
      lines = g_strsplit (rows, "\n", -1);
      for (guint l = 1; lines[l] != NULL && lines[l][0] != '\0'; l++)
        {
          g_auto(GStrv) cells = g_strsplit (lines[l], ",", -1);
          guint n = g_strv_length (cells);

          n_defined += cells[4][0] != '\0' && cells[(n - 4 - 1) / 2 + 4][0] != '\0';
        }
      g_assert_cmpuint (n_defined, >, 0);
      /* The summary: model × perturbation × subset × metric, with intervals. */
      summary = metrics_err (ds, perturbation, TRUE, &serr);
      g_assert_true (g_str_has_prefix (summary, "model,perturbation,subset,metric,n_instances,"));
      prefix = g_strdup_printf ("\ngrounded,%s,all,delta_auroc,", perturbation);
      assert_contains (summary, prefix);
    }
}

/* --- another model under the same name ------------------------------------------- */

static void
test_model_changed (void)
{
  g_autofree char *tmp = hs_test_make_tmpdir ();
  g_autofree char *ref = hs_test_make_demo (tmp, "ref", 4, 256, "models");
  g_autofree char *ds = hs_test_make_demo (tmp, "ds", 4, 256, "none");
  g_autofree char *blind = g_build_filename (hs_test_source_dir (), "data", "models",
                                             "blind.safetensors", NULL);
  g_autofree char *err = NULL, *out = NULL, *rows = NULL, *blind_rows = NULL, *renamed = NULL;
  g_autoptr(HsDataset) dataset = NULL;
  g_autoptr(GError) error = NULL;
  const char *recorded;

  {
    const char *args[] = { ds, "--model", "grounded", "--name", "mine", "--tokens", NULL };
    attend (args, 0, NULL, NULL);
  }
  dataset = hs_dataset_load (ds, &error);
  g_assert_no_error (error);
  recorded = hs_dataset_get_model_computed_by (dataset, "mine");
  g_assert_nonnull (recorded);
  g_assert_true (g_str_has_prefix (recorded, "model-sha256:"));
  g_assert_cmpuint (strlen (recorded), ==, strlen ("model-sha256:") + 64);
  {
    const char *args[] = { ds, "--model", blind, "--name", "mine", NULL };
    attend (args, 1, NULL, &err);
  }
  assert_contains (err, "were computed by model-sha256:");
  assert_contains (err, "--force");
  {
    const char *args[] = { ds, "--backend-exec", "/bin/false", "--name", "mine", NULL };
    g_clear_pointer (&err, g_free);
    attend (args, 1, NULL, &err);
    assert_contains (err, "not backend-exec:/bin/false");
  }
  {
    const char *args[] = { ds, "--model", blind, "--name", "mine", "--force", "--tokens", NULL };
    attend (args, 0, &out, NULL);
    assert_contains (out, "0 skipped");
  }
  assert_valid (ds);
  /* Every map of "mine" is now blind's: the demo's blind rows, renamed. */
  rows = metrics (ds, "--model", "mine", NULL, NULL);
  blind_rows = metrics (ref, "--model", "blind", NULL, NULL);
  renamed = hs_test_replace (blind_rows, ",blind,", ",mine,");
  g_assert_cmpstr (rows, ==, renamed);
}

static void
test_usage (void)
{
  static const struct { const char *args[8]; const char *message; } cases[] = {
    { { "DS", "--backend-exec", "/bin/true", NULL }, "--backend-exec needs --name" },
    { { "DS", "--image", "x.png", NULL }, "--image, --prompt and --output are for one image" },
    { { "--jobs", "2", "--image", "x.png", "--prompt", "p", NULL }, "need a DATASET" },
    { { "DS", "--queries", "some", NULL }, "--queries some: expected sentences, labels or all" },
    { { "DS", "--perturb", "upside-down", NULL }, "unknown perturbation \"upside-down\"" },
    { { "DS", "--shard", "3/2", NULL }, "--shard wants K/N" },
    { { "DS", "--perturb-seed", "-3", NULL }, "--perturb-seed wants a non-negative integer, not \"-3\"" },
    { { "DS", "--model", "grounded", "--backend-exec", "x", "--name", "n", NULL }, "exclude each other" },
  };
  g_autofree char *tmp = hs_test_make_tmpdir ();
  g_autofree char *ds = hs_test_make_demo (tmp, "ds", 1, 256, "none");

  for (guint c = 0; c < G_N_ELEMENTS (cases); c++)
    {
      const char *args[8] = { 0 };
      g_autofree char *err = NULL;

      for (guint a = 0; cases[c].args[a] != NULL; a++)
        args[a] = strcmp (cases[c].args[a], "DS") == 0 ? ds : cases[c].args[a];
      attend (args, 2, NULL, &err);
      assert_contains (err, cases[c].message);
    }
  g_assert_cmpuint (hs_test_count_maps (ds, "grounded"), ==, 0);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/cli-attend-dataset/demo-equals-precomputed", test_demo_equals_precomputed);
  g_test_add_func ("/cli-attend-dataset/imported-yolo", test_imported_yolo);
  g_test_add_func ("/cli-attend-dataset/kill-resume", test_kill_resume);
  g_test_add_func ("/cli-attend-dataset/concurrent-shards", test_concurrent_shards);
  g_test_add_func ("/cli-attend-dataset/exec-backend", test_exec_backend);
  g_test_add_func ("/cli-attend-dataset/perturbations-scored", test_perturbations_scored);
  g_test_add_func ("/cli-attend-dataset/model-changed", test_model_changed);
  g_test_add_func ("/cli-attend-dataset/usage", test_usage);
  return g_test_run ();
}
