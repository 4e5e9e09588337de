/* fuzz-deck.c — libFuzzer harness: the .hsdeck reader (hs_deck_parse).
 * A deck it accepts must survive its own writer: written and read again it
 * gives the same text (nothing the reader accepts is written in a form it
 * refuses). */
#include "fuzz-util.h"

int
LLVMFuzzerTestOneInput (const uint8_t *data, size_t size)
{
  GError *error = NULL;
  HsDeck *deck, *again;
  char *text, *text_again;

  fuzz_dir ();
  deck = hs_deck_parse ((const char *) data, size, "fuzz.hsdeck", &error);
  if (deck == NULL)
    {
      /* one line naming the deck */
      if (error == NULL || !g_str_has_prefix (error->message, "fuzz.hsdeck: ")
          || strchr (error->message, '\n') != NULL)
        abort ();
      g_clear_error (&error);
      return 0;
    }
  fuzz_accepted ();
  text = hs_deck_to_json (deck, NULL);
  again = hs_deck_parse (text, strlen (text), "again.hsdeck", &error);
  if (again == NULL)
    {
      fprintf (stderr, "written deck refused: %s\n%s\n", error->message, text);
      abort ();
    }
  text_again = hs_deck_to_json (again, NULL);
  if (strcmp (text, text_again) != 0)
    {
      fprintf (stderr, "written deck reads back differently:\n%s\n---\n%s\n", text, text_again);
      abort ();
    }
  g_free (text);
  g_free (text_again);
  hs_deck_free (again);
  hs_deck_free (deck);
  return 0;
}
