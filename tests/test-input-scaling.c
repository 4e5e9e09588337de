/* test-input-scaling.c — the manifest reader and the importers do work
 * linear in their input (issue 14): a 10× larger input costs about 10× the
 * string comparisons, not 100×.
 *
 * Speed-independent: the test counts calls of strcmp, which every
 * duplicate check and name lookup of the readers ends in (directly, or
 * through g_strcmp0, g_str_equal and g_strv_contains).  This program
 * defines strcmp itself, so the library linked into it (and GLib, through
 * the dynamic linker) calls this counting copy.  A check that compares a
 * name with every earlier one makes the count grow with the square of the
 * input; a hash set makes it grow with the input. */
#include <heatscope/heatscope.h>

#include <string.h>

#include "hs-test-util.h"
#include "hs-scale-inputs.h"

static guint64 n_strcmp;

/* volatile: keeps the compiler from recognising the loop as strcmp and
 * calling it, that is, this function. */
int
strcmp (const char *a, const char *b)
{
  const volatile unsigned char *p = (const unsigned char *) a;
  const volatile unsigned char *q = (const unsigned char *) b;

  __atomic_fetch_add (&n_strcmp, 1, __ATOMIC_RELAXED);
  while (*p != '\0' && *p == *q)
    {
      p++;
      q++;
    }
  return (int) *p - (int) *q;
}

/* The units of the smaller input; the larger has ten times as many. */
#define SMALL 300

static guint64
count_reading (HsScaleShape shape, guint n)
{
  g_autofree char *tmp = hs_test_make_tmpdir ();
  g_autofree char *in_dir = g_build_filename (tmp, "in", NULL);
  g_autofree char *out_dir = g_build_filename (tmp, "out", NULL);
  g_autofree char *input = hs_scale_write (shape, in_dir, n);
  guint64 before;
  guint n_instances;

  before = __atomic_load_n (&n_strcmp, __ATOMIC_RELAXED);
  n_instances = hs_scale_read (shape, input, out_dir);
  g_assert_cmpuint (n_instances, ==, shape == HS_SCALE_MANIFEST_INSTANCES ? n : 1);
  return __atomic_load_n (&n_strcmp, __ATOMIC_RELAXED) - before;
}

static void
test_shape (gconstpointer data)
{
  HsScaleShape shape = GPOINTER_TO_INT (data);
  guint64 small = count_reading (shape, SMALL);
  guint64 large = count_reading (shape, 10 * SMALL);
  double ratio = (double) large / MAX (small, 1);

  g_test_message ("%s: %" G_GUINT64_FORMAT " string comparisons for %u units, %" G_GUINT64_FORMAT
                  " for %u: ratio %.1f", hs_scale_shape_names[shape], small, SMALL, large, 10 * SMALL, ratio);
  /* Linear work gives ×10 (×13 with an n log n sort on the way); a check
   * against every earlier name gives about ×100. */
  g_assert_cmpfloat (ratio, <, 20.0);
}

/* The counter sees the library's comparisons at all (else the test could
 * not fail). */
static void
test_counter_works (void)
{
  guint64 before = n_strcmp;
  const char *names[] = { "a", "b", "c", NULL };

  g_assert_true (g_strv_contains (names, "c"));
  g_assert_cmpint (g_strcmp0 ("x", "y"), <, 0);
  g_assert_cmpuint (n_strcmp - before, >=, 4);
  before = n_strcmp;
  count_reading (HS_SCALE_MANIFEST_METADATA, 10);
  g_assert_cmpuint (n_strcmp, >, before);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/input-scaling/counter-works", test_counter_works);
  g_test_add_data_func ("/hs/input-scaling/manifest-metadata",
                        GINT_TO_POINTER (HS_SCALE_MANIFEST_METADATA), test_shape);
  g_test_add_data_func ("/hs/input-scaling/manifest-regions",
                        GINT_TO_POINTER (HS_SCALE_MANIFEST_REGIONS), test_shape);
  g_test_add_data_func ("/hs/input-scaling/manifest-instances",
                        GINT_TO_POINTER (HS_SCALE_MANIFEST_INSTANCES), test_shape);
  g_test_add_data_func ("/hs/input-scaling/manifest-targets",
                        GINT_TO_POINTER (HS_SCALE_MANIFEST_TARGETS), test_shape);
  g_test_add_data_func ("/hs/input-scaling/import-nih",
                        GINT_TO_POINTER (HS_SCALE_IMPORT_NIH), test_shape);
  g_test_add_data_func ("/hs/input-scaling/import-coco",
                        GINT_TO_POINTER (HS_SCALE_IMPORT_COCO), test_shape);
  g_test_add_data_func ("/hs/input-scaling/import-yolo",
                        GINT_TO_POINTER (HS_SCALE_IMPORT_YOLO), test_shape);
  return g_test_run ();
}
