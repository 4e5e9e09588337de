/* hs-cli-stubs.c — subcommands whose own file does not exist yet.
 * Each HS_CLI_HAVE_<NAME> is defined by meson when src/cli/hs-cli-<name>.c exists. */
#include "hs-cli.h"

#define HS_CLI_NOT_YET(name)                                                   \
  int hs_cli_##name (int argc, char **argv)                                    \
  {                                                                            \
    hs_cli_error (#name, "this command is not available in this build");       \
    return HS_CLI_EXIT_USAGE;                                                  \
  }

#ifndef HS_CLI_HAVE_DEMO
HS_CLI_NOT_YET (demo)
#endif
#ifndef HS_CLI_HAVE_VALIDATE
HS_CLI_NOT_YET (validate)
#endif
#ifndef HS_CLI_HAVE_IMPORT
HS_CLI_NOT_YET (import)
#endif
#ifndef HS_CLI_HAVE_SCORE
HS_CLI_NOT_YET (score)
#endif
#ifndef HS_CLI_HAVE_METRICS
HS_CLI_NOT_YET (metrics)
#endif
#ifndef HS_CLI_HAVE_RENDER
HS_CLI_NOT_YET (render)
#endif
#ifndef HS_CLI_HAVE_ATTEND
HS_CLI_NOT_YET (attend)
#endif
#ifndef HS_CLI_HAVE_AGREEMENT
HS_CLI_NOT_YET (agreement)
#endif
