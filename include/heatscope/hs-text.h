/* hs-text.h — small text utilities for report sentences and prompts */
#pragma once

#include <glib.h>

G_BEGIN_DECLS

/* Word-based, case-preserving left/right swap (the `default` protocol and the
 * app's "Swap left/right" button).
 *
 * A word is a maximal run of letters, digits and combining marks (Unicode
 * alphanumerics, so "lefté" and "left2" are single words); every other
 * character — space, punctuation such as "-", "'", "…" or "—" — is a
 * boundary.  Only whole words
 * are swapped: left↔right and lt↔rt, compared case-insensitively.  The case
 * pattern of the original word is kept: all upper ("LEFT" → "RIGHT"), first
 * letter upper ("Left" → "Right", "Lt" → "Rt"), otherwise lower.  So
 * "left-sided" → "right-sided", while "bright", "leftward", "leftover" and
 * "alright" are untouched.  Input that is not valid UTF-8 is first repaired
 * with g_utf8_make_valid(); the result is always valid UTF-8. */
char  *hs_text_swap_sides        (const char *text);

/* The variant used by McInerney et al.'s code (protocol `gloria`): the whole
 * text is lower-cased (g_utf8_strdown) and every substring "left" becomes
 * "right" and vice versa, so "bright" becomes "bleft". */
char  *hs_text_swap_sides_gloria (const char *text);

/* Splits a clinical note into sentences.  A sentence ends at '.', '!' or '?'
 * (a run of them, optionally followed by closing quotes or brackets) when
 * the next byte is white space or the end of the text, and at a blank line.
 * A '.' inside a number ("3.5 cm") never ends a sentence (no space follows),
 * and neither does the period of a known abbreviation (Dr. Mr. Mrs. Ms. Prof.
 * St. vs. e.g. i.e. approx. cf. fig. no. (before a digit)) or of a single
 * capital initial ("J. Smith").  Sentences are trimmed; empty ones dropped.
 * Returns a NULL-terminated array (free with g_strfreev). */
char **hs_text_split_sentences   (const char *text);

/* Word tokens of the built-in model's vocabulary: the maximal runs of ASCII
 * letters and digits, each lower-cased (ASCII only); everything else,
 * including non-ASCII characters, separates tokens.  The exact Python
 * equivalent (used by tools/train-model) is
 *     [t.lower() for t in re.findall(r"[A-Za-z0-9]+", text)]
 * Returns a NULL-terminated array (free with g_strfreev). */
char **hs_text_tokenize          (const char *text);

/* `text` made safe to echo on a terminal or in one error line: control
 * characters become escapes — \n, \r, \t, \xHH for the other C0 bytes and
 * DEL (\x1b for ESC), \uHHHH for C1 controls and bidirectional overrides —
 * and bytes that are not UTF-8 become \xHH.  Everything else is kept.
 * Every sink of echoed text (CLI error and problem lines, the app's error
 * bar) passes through it.  Free with g_free. */
char  *hs_text_escape_controls   (const char *text);

/* `text` as a finite number in the C locale ("1.5", "-2e3"): the whole of
 * it, no blanks, no "nan" or "inf".  FALSE (and *out untouched) otherwise;
 * the one parser of numbers in option values and scale specs. */
gboolean hs_text_parse_number    (const char *text, double *out);

G_END_DECLS
