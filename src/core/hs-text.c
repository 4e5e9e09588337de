/* hs-text.c — left/right swapping, sentence splitting, tokenizing */
#include "heatscope/hs-text.h"

#include <math.h>
#include <string.h>

/* Length in bytes of the word character at p (valid UTF-8), or 0. */
static gsize
word_char_len (const char *p)
{
  gunichar c;

  if ((guchar) *p < 0x80)
    return g_ascii_isalnum (*p) ? 1 : 0;
  c = g_utf8_get_char (p);
  return g_unichar_isalnum (c) || g_unichar_ismark (c) ? (gsize) (g_utf8_next_char (p) - p) : 0;
}

/* Replacement for a whole word, or NULL when it is not a side word. */
static const char *
side_partner (const char *word, gsize len)
{
  static const struct { const char *from, *to; } pairs[] = {
    { "left", "right" }, { "right", "left" }, { "lt", "rt" }, { "rt", "lt" },
  };

  for (gsize i = 0; i < G_N_ELEMENTS (pairs); i++)
    if (strlen (pairs[i].from) == len && g_ascii_strncasecmp (word, pairs[i].from, len) == 0)
      return pairs[i].to;
  return NULL;
}

static void
append_with_case (GString *out, const char *original, gsize len, const char *replacement)
{
  gboolean all_upper = TRUE;
  gboolean first_upper = g_ascii_isupper (original[0]);

  for (gsize i = 0; i < len; i++)
    if (!g_ascii_isupper (original[i]))
      all_upper = FALSE;

  for (gsize i = 0; replacement[i] != '\0'; i++)
    {
      char c = replacement[i];
      if (all_upper || (i == 0 && first_upper))
        c = g_ascii_toupper (c);
      g_string_append_c (out, c);
    }
}

char *
hs_text_swap_sides (const char *text)
{
  g_autofree char *valid = NULL;
  GString *out;
  const char *p;

  g_return_val_if_fail (text != NULL, NULL);

  valid = g_utf8_make_valid (text, -1);
  out = g_string_sized_new (strlen (valid) + 16);
  p = valid;
  while (*p != '\0')
    {
      gsize n = word_char_len (p);

      if (n > 0)
        {
          const char *start = p;
          const char *partner;
          gsize len;

          while (*p != '\0' && (n = word_char_len (p)) > 0)
            p += n;
          len = (gsize) (p - start);
          partner = side_partner (start, len);
          if (partner != NULL)
            append_with_case (out, start, len, partner);
          else
            g_string_append_len (out, start, (gssize) len);
        }
      else
        {
          const char *next = g_utf8_next_char (p);
          g_string_append_len (out, p, next - p);
          p = next;
        }
    }
  return g_string_free (out, FALSE);
}

char *
hs_text_swap_sides_gloria (const char *text)
{
  g_autofree char *valid = NULL;
  g_autofree char *lower = NULL;
  GString *out;
  const char *p;

  g_return_val_if_fail (text != NULL, NULL);

  valid = g_utf8_make_valid (text, -1);
  lower = g_utf8_strdown (valid, -1);
  out = g_string_sized_new (strlen (lower) + 16);
  /* "left" and "right" cannot overlap each other, so one left-to-right pass
   * equals the paper's replace-via-placeholder. */
  for (p = lower; *p != '\0';)
    {
      if (strncmp (p, "left", 4) == 0)
        {
          g_string_append (out, "right");
          p += 4;
        }
      else if (strncmp (p, "right", 5) == 0)
        {
          g_string_append (out, "left");
          p += 5;
        }
      else
        g_string_append_c (out, *p++);
    }
  return g_string_free (out, FALSE);
}

static gboolean
is_abbreviation (const char *text, const char *dot, const char *after)
{
  static const char *const abbreviations[] = {
    "dr", "mr", "mrs", "ms", "prof", "st", "vs", "e.g", "i.e", "approx", "cf", "fig",
  };
  const char *start = dot;
  gsize len;

  /* the word before the dot, letters and inner dots ("e.g") */
  while (start > text && (g_ascii_isalpha (start[-1]) || (start[-1] == '.' && start - 1 > text
                                                            && g_ascii_isalpha (start[-2]))))
    start--;
  len = (gsize) (dot - start);
  if (len == 0)
    return FALSE;
  if (len == 1 && g_ascii_isupper (start[0]))
    return TRUE;  /* an initial: "J. Smith" */
  for (gsize i = 0; i < G_N_ELEMENTS (abbreviations); i++)
    if (strlen (abbreviations[i]) == len && g_ascii_strncasecmp (start, abbreviations[i], len) == 0)
      return TRUE;
  if (len == 2 && g_ascii_strncasecmp (start, "no", 2) == 0)
    {
      while (*after == ' ')
        after++;
      return g_ascii_isdigit (*after);
    }
  return FALSE;
}

static void
push_sentence (GPtrArray *out, const char *start, const char *end)
{
  char *s = g_strndup (start, (gsize) (end - start));

  g_strstrip (s);
  if (*s != '\0')
    g_ptr_array_add (out, s);
  else
    g_free (s);
}

char **
hs_text_split_sentences (const char *text)
{
  g_autofree char *valid = NULL;
  GPtrArray *out;
  const char *start, *p;

  g_return_val_if_fail (text != NULL, NULL);

  valid = g_utf8_make_valid (text, -1);
  out = g_ptr_array_new ();
  start = p = valid;
  while (*p != '\0')
    {
      if (*p == '.' || *p == '!' || *p == '?')
        {
          const char *end = p;
          gboolean only_dot = TRUE;

          while (*end == '.' || *end == '!' || *end == '?')
            {
              if (*end != '.')
                only_dot = FALSE;
              end++;
            }
          while (*end == '"' || *end == '\'' || *end == ')' || *end == ']')
            end++;
          if ((*end == '\0' || g_ascii_isspace (*end))
              && !(only_dot && end == p + 1 && is_abbreviation (valid, p, end)))
            {
              push_sentence (out, start, end);
              start = p = end;
              continue;
            }
          p = end;
          continue;
        }
      if (*p == '\n')
        {
          const char *q = p + 1;
          while (*q == ' ' || *q == '\t' || *q == '\r')
            q++;
          if (*q == '\n')
            {
              push_sentence (out, start, p);
              start = p = q + 1;
              continue;
            }
        }
      p++;
    }
  push_sentence (out, start, p);
  g_ptr_array_add (out, NULL);
  return (char **) g_ptr_array_free (out, FALSE);
}

char **
hs_text_tokenize (const char *text)
{
  GPtrArray *out;
  const char *p;

  g_return_val_if_fail (text != NULL, NULL);

  out = g_ptr_array_new ();
  for (p = text; *p != '\0';)
    {
      if (g_ascii_isalnum (*p))
        {
          const char *start = p;
          while (g_ascii_isalnum (*p))
            p++;
          g_ptr_array_add (out, g_ascii_strdown (start, p - start));
        }
      else
        p++;
    }
  g_ptr_array_add (out, NULL);
  return (char **) g_ptr_array_free (out, FALSE);
}

/* ---- escaping for echo ------------------------------------------------- */

static gboolean
is_invisible_control (gunichar c)
{
  return (c >= 0x80 && c <= 0x9f) ||            /* C1 controls (CSI is U+009B) */
         (c >= 0x202a && c <= 0x202e) ||        /* bidi embeddings, overrides  */
         (c >= 0x2066 && c <= 0x2069) ||        /* bidi isolates               */
         c == 0x2028 || c == 0x2029;            /* line, paragraph separators  */
}

char *
hs_text_escape_controls (const char *text)
{
  GString *out;
  const char *p, *end;

  if (text == NULL)
    return g_strdup ("");
  out = g_string_sized_new (strlen (text));
  end = text + strlen (text);
  for (p = text; p < end;)
    {
      guchar b = (guchar) *p;

      if (b < 0x20 || b == 0x7f)
        {
          switch (b)
            {
            case '\n': g_string_append (out, "\\n"); break;
            case '\r': g_string_append (out, "\\r"); break;
            case '\t': g_string_append (out, "\\t"); break;
            default: g_string_append_printf (out, "\\x%02x", b); break;
            }
          p++;
        }
      else if (b < 0x80)
        g_string_append_c (out, *p++);
      else
        {
          gunichar c = g_utf8_get_char_validated (p, end - p);

          if (c == (gunichar) -1 || c == (gunichar) -2)
            {
              g_string_append_printf (out, "\\x%02x", b);
              p++;
            }
          else
            {
              const char *next = g_utf8_next_char (p);

              if (is_invisible_control (c))
                g_string_append_printf (out, "\\u%04x", c);
              else
                g_string_append_len (out, p, next - p);
              p = next;
            }
        }
    }
  return g_string_free (out, FALSE);
}

gboolean
hs_text_parse_number (const char *text, double *out)
{
  char *end = NULL;
  double v;

  if (text == NULL || *text == '\0')
    return FALSE;
  v = g_ascii_strtod (text, &end);
  if (end == text || *end != '\0' || !isfinite (v))
    return FALSE;
  *out = v;
  return TRUE;
}
