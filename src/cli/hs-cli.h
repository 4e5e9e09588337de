/* hs-cli.h — the subcommands of heatscope-cli, one file each */
#pragma once

#include <heatscope/heatscope.h>

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

/* Prints "heatscope-cli COMMAND: MESSAGE" to stderr. */
void hs_cli_error (const char *command, const char *format, ...) G_GNUC_PRINTF (2, 3);
/* Prints TEXT and a newline with its control characters escaped
 * (hs_text_escape_controls): every line that echoes input goes through it
 * or hs_cli_error. */
void hs_cli_print_line (FILE *out, const char *text);
/* Parses the command's options; on failure prints the error and returns FALSE. */
gboolean hs_cli_parse (GOptionContext *context, int *argc, char ***argv, const char *command);

G_END_DECLS
