/* test-text.c — left/right swap, sentence splitting, tokenizing */
#include <heatscope/heatscope.h>
#include <heatscope/hs-text.h>

#include "hs-test-util.h"

static void
check_swap (const char *in, const char *expected)
{
  g_autofree char *out = hs_text_swap_sides (in);
  g_assert_cmpstr (out, ==, expected);
}

static void
test_swap_words (void)
{
  check_swap ("There is a nodule in the left lung.", "There is a nodule in the right lung.");
  check_swap ("Left and right", "Right and left");
  check_swap ("LEFT LOWER LOBE, RIGHT APEX", "RIGHT LOWER LOBE, LEFT APEX");
  check_swap ("lt base, Rt apex, LT hilum", "rt base, Lt apex, RT hilum");
  check_swap ("left-sided effusion", "right-sided effusion");
  check_swap ("(left)", "(right)");
  check_swap ("left's border", "right's border");
  check_swap ("", "");
}

static void
test_swap_untouched (void)
{
  check_swap ("bright leftover leftward alright outright", "bright leftover leftward alright outright");
  check_swap ("left2 lefté rtx alt", "left2 lefté rtx alt");
  check_swap ("Bright spot", "Bright spot");
}

static void
test_swap_utf8 (void)
{
  check_swap ("Épanchement left — côté right…", "Épanchement right — côté left…");
  {
    /* invalid UTF-8 is repaired, never crashes */
    g_autofree char *out = hs_text_swap_sides ("left \xff\xfe right");
    g_assert_true (g_utf8_validate (out, -1, NULL));
    g_assert_nonnull (strstr (out, "right "));
    g_assert_true (g_str_has_suffix (out, " left"));
  }
}

static void
test_swap_involution (void)
{
  const char *cases[] = { "Left LEFT left lt Lt LT rt RT Rt right", "a-left-b", "x" };
  for (gsize i = 0; i < G_N_ELEMENTS (cases); i++)
    {
      g_autofree char *once = hs_text_swap_sides (cases[i]);
      g_autofree char *twice = hs_text_swap_sides (once);
      g_assert_cmpstr (twice, ==, cases[i]);
    }
}

static void
test_swap_gloria (void)
{
  g_autofree char *a = hs_text_swap_sides_gloria ("Bright LEFT lung, Right apex.");
  g_autofree char *b = hs_text_swap_sides_gloria ("leftright");
  g_assert_cmpstr (a, ==, "bleft right lung, left apex.");
  g_assert_cmpstr (b, ==, "rightleft");
}

static void
check_split (const char *in, const char *const *expected)
{
  g_auto(GStrv) out = hs_text_split_sentences (in);
  guint n = g_strv_length (out);

  g_assert_cmpuint (n, ==, g_strv_length ((char **) expected));
  for (guint i = 0; i < n; i++)
    g_assert_cmpstr (out[i], ==, expected[i]);
}

static void
test_split (void)
{
  {
    const char *e[] = { "There is a 3.5 cm mass in the left lung.", "No effusion!", "Pneumothorax?", NULL };
    check_split ("  There is a 3.5 cm mass in the left lung. No effusion!   Pneumothorax?  ", e);
  }
  {
    const char *e[] = { "Seen by Dr. Smith and J. Doe, e.g. on film no. 2.", "Stable.", NULL };
    check_split ("Seen by Dr. Smith and J. Doe, e.g. on film no. 2. Stable.", e);
  }
  {
    const char *e[] = { "FINDINGS:", "Lungs clear", "Heart normal.", NULL };
    check_split ("FINDINGS:\n\nLungs clear\n \nHeart normal.", e);
  }
  {
    const char *e[] = { "He said \"no.\"", "Then (left.)", "Done...", "ok", NULL };
    check_split ("He said \"no.\" Then (left.) Done... ok", e);
  }
  {
    const char *e[] = { NULL };
    check_split ("   ", e);
    check_split ("", e);
  }
}

static void
test_tokenize (void)
{
  g_auto(GStrv) t = hs_text_tokenize ("The LEFT-sided 3.5cm nodule's edge; côté R2!");
  const char *e[] = { "the", "left", "sided", "3", "5cm", "nodule", "s", "edge", "c", "t", "r2", NULL };

  g_assert_cmpuint (g_strv_length (t), ==, g_strv_length ((char **) e));
  for (guint i = 0; e[i] != NULL; i++)
    g_assert_cmpstr (t[i], ==, e[i]);
}

/* The documented Python rule must agree with the C tokenizer. */
static void
test_tokenize_python (void)
{
  const char *text = "Small  Effusion at the LT costophrenic-angle (2.0 cm); naïve ÄB x_y z9.";
  const char *script =
    "import re, sys\n"
    "print('|'.join(t.lower() for t in re.findall(r'[A-Za-z0-9]+', sys.argv[1])))\n";
  const char *args[] = { text, NULL };
  g_autofree char *out = hs_test_python (script, args);
  g_auto(GStrv) tokens = NULL;
  g_autofree char *joined = NULL;

  if (out == NULL)
    return;
  g_strstrip (out);
  tokens = hs_text_tokenize (text);
  joined = g_strjoinv ("|", tokens);
  g_assert_cmpstr (joined, ==, out);
}

int
main (int argc, char **argv)
{
  g_test_init (&argc, &argv, NULL);
  g_test_add_func ("/hs/text/swap-words", test_swap_words);
  g_test_add_func ("/hs/text/swap-untouched", test_swap_untouched);
  g_test_add_func ("/hs/text/swap-utf8", test_swap_utf8);
  g_test_add_func ("/hs/text/swap-involution", test_swap_involution);
  g_test_add_func ("/hs/text/swap-gloria", test_swap_gloria);
  g_test_add_func ("/hs/text/split", test_split);
  g_test_add_func ("/hs/text/tokenize", test_tokenize);
  g_test_add_func ("/hs/text/tokenize-python", test_tokenize_python);
  return g_test_run ();
}
