/* hs-cli.h — the subcommands of heatscope-cli, one file each */
#pragma once

#include <heatscope/heatscope.h>

#include <stdarg.h>
#include <stdio.h>

G_BEGIN_DECLS

/* Exit status: 0 success, 1 bad input (the message names the file and the
 * problem), 2 usage error. */
#define HS_CLI_EXIT_OK    0
#define HS_CLI_EXIT_INPUT 1
#define HS_CLI_EXIT_USAGE 2

int hs_cli_demo      (int argc, char **argv);
int hs_cli_validate  (int argc, char **argv);
int hs_cli_import    (int argc, char **argv);
int hs_cli_score     (int argc, char **argv);
int hs_cli_metrics   (int argc, char **argv);
int hs_cli_render    (int argc, char **argv);
int hs_cli_attend    (int argc, char **argv);
int hs_cli_agreement (int argc, char **argv);
int hs_cli_figure    (int argc, char **argv);
int hs_cli_deck      (int argc, char **argv);
int hs_cli_deck_export (int argc, char **argv);   /* hs-cli-deck-export.c */
/* The commands but score are in a module (hs-cli-plugin.c): runs
 * hs_cli_COMMAND from `module_file` (heatscope-cli-data.so or
 * heatscope-cli-draw.so), or prints why the module cannot be used and
 * returns HS_CLI_EXIT_INPUT (hs-cli-module.c). */
int hs_cli_run_module (const char *module_file, const char *command, int argc, char **argv);
/* deck export --embed-maps (hs-cli-deck-bundle.c): the bundle folder OUT. */
int hs_cli_deck_bundle (const HsDeck *deck, const char *deck_path, const char *output);

/* Prints "heatscope-cli COMMAND: MESSAGE" to stderr. */
void hs_cli_error (const char *command, const char *format, ...) G_GNUC_PRINTF (2, 3);
/* The line hs_cli_error prints (without its newline), for messages that are
 * gathered first. */
char *hs_cli_message_valist (const char *command, const char *format, va_list args)
  G_GNUC_PRINTF (2, 0);
/* Prints TEXT and a newline with its control characters escaped
 * (hs_text_escape_controls): every line that echoes input goes through it
 * or hs_cli_error. */
void hs_cli_print_line (FILE *out, const char *text);
/* Prints that `text` is not a `what` the command knows, naming those there
 * are (`names`); FALSE, for the option parsers. */
gboolean hs_cli_unknown_choice (const char *command, const char *what, const char *text,
                                const char *names);
/* Parses the command's options; on failure prints the error and returns FALSE. */
gboolean hs_cli_parse (GOptionContext *context, int *argc, char ***argv, const char *command);
/* Sets the --help description to `text` (may be NULL) followed by the
 * library's table of metric definitions (hs_metric_info_format_help) when
 * the command's arguments ask for help: building the table is 0.1 ms of
 * every score, which prints it only then. */
void     hs_cli_describe_metrics (GOptionContext *context, const char *text,
                                  int argc, char **argv);
/* hs_cli_parse, then exactly one DATASET argument (argv[1]) or an error. */
gboolean hs_cli_parse_dataset (GOptionContext *context, int *argc, char ***argv,
                               const char *command);
/* --colormap NAME, --scale MODE and --opacity A (render, figure) into
 * `overlay`; FALSE after printing the problem. */
gboolean hs_cli_overlay_options (const char *command, const char *colormap, const char *scale,
                                 double opacity, HsOverlayOptions *overlay);

/* Parses --shard K/N (1 ≤ K ≤ N) of `command` (attend, metrics); NULL
 * text (the option not given) leaves k and n alone.  FALSE after printing
 * the problem. */
gboolean hs_cli_parse_shard (const char *command, const char *text, guint *k, guint *n);
/* Parses the seed `text` of --`option` (--seed, --perturb-seed): a whole
 * number in [0, 2⁶⁴ − 1]; NULL text leaves *seed alone.  FALSE after
 * printing the problem. */
gboolean hs_cli_parse_seed  (const char *command, const char *option, const char *text,
                             guint64 *seed);
/* --protocol NAME (attend, metrics, score), --perturb NAME (attend,
 * metrics) and --upsample MODE (metrics, render, score): NULL text leaves
 * the value alone.  FALSE after printing the problem with the names there
 * are. */
gboolean hs_cli_parse_protocol     (const char *command, const char *text, HsProtocol *protocol);
gboolean hs_cli_parse_upsample     (const char *command, const char *text, HsUpsample *upsample);
gboolean hs_cli_parse_perturbation (const char *command, const char *text,
                                    HsPerturbation *perturbation);
/* --timeout S of a backend process: 1 s to a day; FALSE after printing the
 * problem. */
gboolean hs_cli_check_timeout      (const char *command, int timeout_s);
/* --backend-exec COMMAND with --timeout S (attend, figure): the backend, or
 * NULL after printing the problem (the timeout, or a command that cannot be
 * split into arguments). */
HsBackendExec *hs_cli_backend_exec_new (const char *command, const char *backend_command,
                                        int timeout_s);

/* The map for (model, query): the query is a sentence id or the exact prompt
 * a map was computed for; model NULL = the first map in manifest order. */
HsMapRef *hs_cli_find_map (const HsInstance *instance, const char *model, const char *query);

/* A sentence's target regions as figure boxes and masks. */
typedef struct {
  GArray    *boxes;      /* HsFigureBox; names borrowed from the dataset */
  GArray    *masks;      /* HsFigureMask; images owned */
  double    *colors;     /* layers: 4 per region, what the boxes and masks point at */
  GArray    *key;        /* layers: HsRegionKeyEntry per region; NULL otherwise */
} HsCliTargets;

gboolean hs_cli_collect_targets (HsDataset *dataset, const HsInstance *instance,
                                 const HsSentence *sentence, HsCliTargets *t, GError **error);
/* Every region of the instance, as the app's Layers view draws them: region
 * i in hs_region_color (i), the sentence's targets bold, the others thin,
 * and the key that names the colours. */
gboolean hs_cli_collect_layers  (HsDataset *dataset, const HsInstance *instance,
                                 const HsSentence *sentence, HsCliTargets *t, GError **error);
void     hs_cli_targets_clear   (HsCliTargets *t);

/* A figure's panels loaded exactly as `figure` loads them (hs-cli-figure.c):
 * images, maps, targets, read-outs and badges; for `deck export`.  `specs`
 * (HsFigureSpecPanel*) and `wheres` (char*, naming each panel in errors)
 * run in parallel. */
typedef struct _HsCliPanels HsCliPanels;

HsCliPanels         *hs_cli_panels_load       (HsDataset *dataset, const char *dataset_path,
                                               HsModelCache *models, GPtrArray *specs,
                                               GPtrArray *wheres, double opacity,
                                               GError **error);
const HsFigurePanel *hs_cli_panels_get        (HsCliPanels *p, guint *n_panels);
/* Panel `index`'s scores against its sentence's target; NULL: none (a
 * free prompt, a difference). */
const HsScores      *hs_cli_panels_get_scores (HsCliPanels *p, guint index);
void                 hs_cli_panels_free       (HsCliPanels *p);

G_DEFINE_AUTOPTR_CLEANUP_FUNC (HsCliPanels, hs_cli_panels_free)

G_END_DECLS
