/* fuzz-util.h — shared set-up of the libFuzzer harnesses (tests/fuzz/fuzz-*.c) */
#pragma once

#ifndef _GNU_SOURCE
#define _GNU_SOURCE   /* nftw() */
#endif

#include <glib.h>
#include <glib/gstdio.h>
#include <heatscope/heatscope.h>
#include <stdint.h>
#include <stdio.h>
#include <ftw.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

int LLVMFuzzerTestOneInput (const uint8_t *data, size_t size);

static char *fuzz_scratch;

/* Inputs the code under fuzz accepted (parsed without error).  fuzz-replay
 * --seeds=DIR fails when no seed of DIR is accepted: a stale seed corpus is
 * refused at the parser's first check and fuzzes nothing past it.  Defined
 * here: each harness includes this header once. */
unsigned fuzz_n_accepted;
#define fuzz_accepted() ((void) fuzz_n_accepted++)

/* A fatal GLib message ends in G_BREAKPOINT (SIGTRAP), which libFuzzer does
 * not catch: turn it into an abort so that the input is saved as a crash. */
static void
fuzz_on_trap (int signum)
{
  abort ();
}

static int
fuzz_remove_one (const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
  remove (path);
  return 0;   /* keep going: remove what can be removed */
}

/* libFuzzer leaves through exit(): remove the scratch folder then. */
static void
fuzz_cleanup (void)
{
  if (fuzz_scratch != NULL)
    nftw (fuzz_scratch, fuzz_remove_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* A scratch folder per process, made once: parsers that only read paths get
 * their input written there.  It holds images/a.png (4 × 3 grey) so that
 * importers find an image named "a". */
G_GNUC_UNUSED static const char *
fuzz_dir (void)
{
  static char *dir = NULL;

  if (dir == NULL)
    {
      HsLimits limits = *hs_limits_get ();
      g_autoptr(GError) error = NULL;
      g_autofree char *images = NULL;
      g_autofree char *png = NULL;
      HsImage *image;

      /* Keep every allocation a crafted header can ask for far below
       * -rss_limit_mb, so refusals (not OOM kills) are what gets exercised. */
      limits.max_image_pixels = 4096 * 4096;
      limits.max_grid_cells = 1024 * 1024;
      limits.max_tokens = 256;
      limits.max_file_bytes = 16 * 1024 * 1024;
      limits.max_manifest_bytes = 16 * 1024 * 1024;
      hs_limits_set (&limits);
      /* A critical is a bug in the caller: make it a crash the fuzzer sees. */
      g_log_set_always_fatal (G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_ERROR);
      signal (SIGTRAP, fuzz_on_trap);

      dir = g_dir_make_tmp ("hs-fuzz-XXXXXX", &error);
      if (dir == NULL)
        g_error ("fuzz: %s", error->message);
      fuzz_scratch = dir;
      atexit (fuzz_cleanup);
      images = g_build_filename (dir, "images", NULL);
      g_mkdir_with_parents (images, 0700);
      png = g_build_filename (images, "a.png", NULL);
      image = hs_image_new (4, 3, 1, 8, &error);
      if (image == NULL || !hs_image_save_png (image, png, &error))
        g_error ("fuzz: %s", error->message);
      hs_image_unref (image);
    }
  return dir;
}

/* Writes the input to `relative` inside fuzz_dir(); returns the full path. */
G_GNUC_UNUSED static char *
fuzz_write (const char *relative, const uint8_t *data, size_t size)
{
  char *path = g_build_filename (fuzz_dir (), relative, NULL);
  g_autofree char *parent = g_path_get_dirname (path);

  FILE *f;

  /* Plain stdio: g_file_set_contents() fsyncs, which dominates a run. */
  g_mkdir_with_parents (parent, 0700);
  f = fopen (path, "wb");
  if (f == NULL || (size > 0 && fwrite (data, 1, size, f) != size) || fclose (f) != 0)
    g_error ("fuzz: cannot write %s", path);
  return path;
}

/* Copies fuzz_dir()/images/a.png to `relative` inside fuzz_dir() (once). */
G_GNUC_UNUSED static void
fuzz_copy_image (const char *relative)
{
  g_autofree char *path = g_build_filename (fuzz_dir (), relative, NULL);
  g_autofree char *src = g_build_filename (fuzz_dir (), "images", "a.png", NULL);
  g_autofree char *contents = NULL;
  gsize len = 0;

  if (g_file_test (path, G_FILE_TEST_EXISTS))
    return;
  if (!g_file_get_contents (src, &contents, &len, NULL))
    g_error ("fuzz: cannot read %s", src);
  g_free (fuzz_write (relative, (const uint8_t *) contents, len));
}

/* Runs an importer on sources (inside fuzz_dir()) into fuzz_dir()/`output`. */
G_GNUC_UNUSED static void
fuzz_import_full (const char *format, const char * const *sources, const char *classes,
                  const char *links, const char *output)
{
  g_autofree char *out = g_build_filename (fuzz_dir (), output, NULL);
  HsImportOptions options = { .classes = classes, .links = links, .force = TRUE };
  HsImportSummary summary = { 0 };
  GError *error = NULL;
  HsDataset *dataset;

  dataset = hs_import (format, sources, out, &options, &summary, &error);
  /* Accepted: something imported (npy-folder: a map attached to the dataset). */
  if (dataset != NULL && (strcmp (format, "npy-folder") == 0 ? summary.n_maps : summary.n_instances) > 0)
    fuzz_accepted ();
  if (dataset != NULL)
    hs_dataset_unref (dataset);
  g_clear_error (&error);
  hs_import_summary_clear (&summary);
}

/* Runs an importer on sources (inside fuzz_dir()) into fuzz_dir()/out. */
G_GNUC_UNUSED static void
fuzz_import (const char *format, const char * const *sources, const char *classes)
{
  fuzz_import_full (format, sources, classes, NULL, "out");
}
