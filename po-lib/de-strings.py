# German translations of libheatscope (gettext domain heatscope-lib), keyed
# by msgid (or (msgctxt, msgid), or (msgid, msgid_plural)).  po-lib/de.po is
# generated from po-lib/heatscope-lib.pot with these by `po/fill-po.py de
# po-lib`; a string missing here makes it fail.  Terms as in po/de-strings.py
# (instance = Fall, map = Karte, manifest = Manifest, region = Region).
T = {
 # colour bar scale labels (hs-overlay.c)
 "percentile %s to %s %%%s": "Perzentil %s bis %s %%%s",
 "min–max %s to %s%s": "Min–Max %s bis %s%s",
 "shared %s to %s%s": "gemeinsam %s bis %s%s",
 "fixed %s to %s%s": "fest %s bis %s%s",
 "attention weight": "Aufmerksamkeitsgewicht",
}
T.update({
 # colour bar, No-Attn gauge and caption (hs-legend.c)
 "No-Attn mass": "No-Attn-Anteil",
 "model %s · instance %s": "Modell %s · Fall %s",
 "A %s · B %s": "A %s · B %s",
 "model %s": "Modell %s",
 "instance %s": "Fall %s",
 "legend length %g or font size %g is not a positive number":
   "Legendenlänge %g oder Schriftgröße %g ist keine positive Zahl",
 "the colour-bar range %g–%g is not a finite interval":
   "der Bereich des Farbbalkens %g–%g ist kein endliches Intervall",
})
T.update({
 # dataset paths and regions (hs-dataset.c)
 "is empty": "ist leer",
 "is absolute (paths are relative to the dataset folder)": "ist absolut (Pfade sind relativ zum Datensatzordner)",
 "contains a backslash (use '/')": "enthält einen Backslash ('/' verwenden)",
 "has an empty segment ('//' or a trailing '/')": "hat einen leeren Abschnitt ('//' oder ein '/' am Ende)",
 "contains '..' (paths may not leave the dataset folder)": "enthält '..' (Pfade dürfen den Datensatzordner nicht verlassen)",
 "contains a '.' segment": "enthält einen Abschnitt '.'",
 "ends with '/'": "endet mit '/'",
 "%s: path \"%s\" %s": "%s: Pfad \"%s\" %s",
 "%s: path \"%s\" resolves to %s, outside the dataset folder %s":
   "%s: Pfad \"%s\" führt zu %s, außerhalb des Datensatzordners %s",
 "%s: path \"%s\" goes through %s, outside the dataset folder %s":
   "%s: Pfad \"%s\" führt über %s, außerhalb des Datensatzordners %s",
 "%s: region \"%s\" has no mask": "%s: Region \"%s\" hat keine Maske",
 # opening files inside a folder (hs-safe-open.c)
 "%s: not a relative path inside the folder": "%s: kein relativer Pfad innerhalb des Ordners",
 "%s: the path goes up with \"..\"": "%s: Der Pfad führt mit \"..\" nach oben",
 "%s: a symlink in the path leads outside the folder": "%s: Ein symbolischer Link im Pfad führt aus dem Ordner hinaus",
 "%s: cannot read: %s": "%s: kann nicht gelesen werden: %s",
 "%s: not a regular file": "%s: keine reguläre Datei",
 "%s: cannot open folder: %s": "%s: Ordner kann nicht geöffnet werden: %s",
 "%s: file of %llu bytes is too large (limit %llu bytes)": "%s: Datei mit %llu Bytes ist zu groß (Grenze %llu Bytes)",
})
T.update({
 # attention maps (hs-attention-map.c)
 "%s: attention map has an empty grid (%u × %u)": "%s: Die Aufmerksamkeitskarte hat ein leeres Raster (%u × %u)",
 "%s: attention map of %u × %u cells is too large (limit %<PRIu64> cells)":
   "%s: Die Aufmerksamkeitskarte mit %u × %u Zellen ist zu groß (Grenze %<PRIu64> Zellen)",
 "%s: attention map has %u tokens (limit %<PRIu64>)": "%s: Die Aufmerksamkeitskarte hat %u Token (Grenze %<PRIu64>)",
 "%s: attention map of %u tokens × %u × %u cells is too large":
   "%s: Die Aufmerksamkeitskarte mit %u Token × %u × %u Zellen ist zu groß",
 "%s: cell (token %zu, row %zu, col %zu) is %s; attention maps must be finite":
   "%s: Zelle (Token %zu, Zeile %zu, Spalte %zu) ist %s; Aufmerksamkeitskarten müssen endlich sein",
 "%s: cell (row %zu, col %zu) is %s; attention maps must be finite":
   "%s: Zelle (Zeile %zu, Spalte %zu) ist %s; Aufmerksamkeitskarten müssen endlich sein",
 "%s: out of memory for an attention map of %u × %u cells":
   "%s: Kein Speicher für eine Aufmerksamkeitskarte mit %u × %u Zellen",
 "%s: attention map must have shape [h, w] or [tokens, h, w], not %u dimensions":
   "%s: Die Aufmerksamkeitskarte muss die Form [h, w] oder [tokens, h, w] haben, nicht %u Dimensionen",
 "%s: per-token attention map has no tokens (shape [0, %zu, %zu])":
   "%s: Die Aufmerksamkeitskarte pro Token hat keine Token (Form [0, %zu, %zu])",
 "%s: attention map has %u token maps but %u tokens were given":
   "%s: Die Aufmerksamkeitskarte hat %u Token-Karten, aber %u Token wurden angegeben",
 # .npy arrays (hs-npy.c)
 "%s: bad .npy header: %s": "%s: fehlerhafter .npy-Kopf: %s",
 "expected '%c' at offset %d": "'%c' an Position %d erwartet",
 "expected a quoted string": "Zeichenkette in Anführungszeichen erwartet",
 "unsupported character in a string": "nicht unterstütztes Zeichen in einer Zeichenkette",
 "unterminated string": "nicht abgeschlossene Zeichenkette",
 "string too long": "Zeichenkette zu lang",
 "shape dimension overflows": "Dimension der Form läuft über",
 "shape must be a tuple of non-negative integers": "die Form muss ein Tupel nicht negativer ganzer Zahlen sein",
 "%s: arrays of more than %d dimensions are not supported": "%s: Arrays mit mehr als %d Dimensionen werden nicht unterstützt",
 "expected ',' or ')' in the shape": "',' oder ')' in der Form erwartet",
 "shape is not a tuple": "die Form ist kein Tupel",
 "unexpected key '%s'": "unerwarteter Schlüssel '%s'",
 "duplicate key '%s'": "doppelter Schlüssel '%s'",
 "%s: structured arrays are not supported": "%s: Strukturierte Arrays werden nicht unterstützt",
 "fortran_order must be True or False": "fortran_order muss True oder False sein",
 "expected ',' or '}' after key '%s'": "',' oder '}' nach Schlüssel '%s' erwartet",
 "unexpected text after the dictionary": "unerwarteter Text nach dem Wörterbuch",
 "missing key '%s'": "Schlüssel '%s' fehlt",
 "%s: unsupported dtype '%s' (expected bool, int8..64, uint8..64 or float16/32/64 with a byte order)":
   "%s: nicht unterstützter dtype '%s' (erwartet: bool, int8..64, uint8..64 oder float16/32/64 mit Bytereihenfolge)",
 "%s: file of %zu bytes is too large (limit %<PRIu64> bytes)": "%s: Datei mit %zu Bytes ist zu groß (Grenze %<PRIu64> Bytes)",
 "%s: not a .npy file (bad magic)": "%s: keine .npy-Datei (falsche Kennung)",
 "%s: .npy header is truncated": "%s: Der .npy-Kopf ist abgeschnitten",
 "%s: unsupported .npy format version %u.%u": "%s: nicht unterstützte .npy-Formatversion %u.%u",
 "%s: .npy header is truncated (%zu bytes promised, %zu present)":
   "%s: Der .npy-Kopf ist abgeschnitten (%zu Bytes angekündigt, %zu vorhanden)",
 "%s: bad .npy header: NUL byte": "%s: fehlerhafter .npy-Kopf: NUL-Byte",
 "%s: shape product overflows": "%s: Das Produkt der Form läuft über",
 "%s: .npy data is truncated (%zu bytes expected, %zu present)":
   "%s: Die .npy-Daten sind abgeschnitten (%zu Bytes erwartet, %zu vorhanden)",
 "%s: %zu unexpected bytes after the .npy data": "%s: %zu unerwartete Bytes nach den .npy-Daten",
 "%s: out of memory for %zu values": "%s: Kein Speicher für %zu Werte",
 "%s: value %g at index %zu does not fit dtype %s": "%s: Wert %g an Index %zu passt nicht in dtype %s",
 "%s: array too large": "%s: Array zu groß",
 "%s: out of memory": "%s: Kein Speicher",
})
T.update({
 # subsets (hs-dataset-subsets.c)
 "%s: instance \"%s\" has no region \"%s\"": "%s: Fall \"%s\" hat keine Region \"%s\"",
 # the exec backend and its responses (hs-backend-exec.c)
 "\"maps\" has %zu base64 characters, expected %<PRIu64> for %<PRIu64> float32 values":
   "\"maps\" hat %zu Base64-Zeichen, erwartet %<PRIu64> für %<PRIu64> float32-Werte",
 "\"maps\" is not base64: character %zu is 0x%02x": "\"maps\" ist kein Base64: Zeichen %zu ist 0x%02x",
 "\"maps\" decodes to %zu bytes, expected %<PRIu64>": "\"maps\" ergibt dekodiert %zu Bytes, erwartet %<PRIu64>",
 "%s must be an integer": "%s muss eine ganze Zahl sein",
 "%s must not be negative (%<PRId64>)": "%s darf nicht negativ sein (%<PRId64>)",
 "the response is not valid UTF-8": "die Antwort ist kein gültiges UTF-8",
 "the response is not JSON: %s": "die Antwort ist kein JSON: %s",
 "the response is not a JSON object": "die Antwort ist kein JSON-Objekt",
 "the response has id %<PRIu64>, expected %<PRIu64>": "die Antwort hat die ID %<PRIu64>, erwartet %<PRIu64>",
 "\"error\" must be a string": "\"error\" muss eine Zeichenkette sein",
 "\"shape\" must be an array [h, w] or [tokens, h, w]": "\"shape\" muss ein Array [h, w] oder [tokens, h, w] sein",
 "\"shape\" has %u dimensions, expected [h, w] or [tokens, h, w]":
   "\"shape\" hat %u Dimensionen, erwartet [h, w] oder [tokens, h, w]",
 "\"shape\" entry %u is 0": "\"shape\"-Eintrag %u ist 0",
 "the map grid %<PRIu64> × %<PRIu64> exceeds the limit of %<PRIu64> cells":
   "das Kartenraster %<PRIu64> × %<PRIu64> überschreitet die Grenze von %<PRIu64> Zellen",
 "%<PRIu64> token maps exceed the limit of %<PRIu64>": "%<PRIu64> Token-Karten überschreiten die Grenze von %<PRIu64>",
 "%<PRIu64> map values exceed the line limit": "%<PRIu64> Kartenwerte überschreiten die Zeilengrenze",
 "\"maps\" must be a base64 string": "\"maps\" muss eine Base64-Zeichenkette sein",
 "map value %<PRIu64> is not finite (%g)": "Kartenwert %<PRIu64> ist nicht endlich (%g)",
 "\"tokens\" must be an array of strings": "\"tokens\" muss ein Array von Zeichenketten sein",
 "%u tokens exceed the limit of %<PRIu64>": "%u Token überschreiten die Grenze von %<PRIu64>",
 "\"tokens\" entry %u is not a string": "\"tokens\"-Eintrag %u ist keine Zeichenkette",
 "\"tokens\" has %u entries but \"shape\" has %<PRIu64> token maps":
   "\"tokens\" hat %u Einträge, aber \"shape\" hat %<PRIu64> Token-Karten",
 "\"no_attn\" must be a number or null": "\"no_attn\" muss eine Zahl oder null sein",
 "\"no_attn\" is %g, not a mass in [0, 1]": "\"no_attn\" ist %g, kein Anteil in [0, 1]",
 "backend command '%s': %s": "Backend-Befehl '%s': %s",
 "exited with status %d": "wurde mit Status %d beendet",
 "was killed by signal %d (%s)": "wurde durch Signal %d (%s) beendet",
 "cannot start backend '%s': %s": "Backend '%s' kann nicht gestartet werden: %s",
 "backend '%s': request cancelled": "Backend '%s': Anfrage abgebrochen",
 "backend '%s' did not answer within %.1f s (stopped; the next request restarts it)":
   "Backend '%s' hat nicht innerhalb von %.1f s geantwortet (angehalten; die nächste Anfrage startet es neu)",
 "backend '%s': %s; it %s": "Backend '%s': %s; es %s",
 "backend '%s': %s": "Backend '%s': %s",
 "backend '%s' %s": "Backend '%s' %s",
 "closed its output (stopped)": "hat seine Ausgabe geschlossen (angehalten)",
 "backend '%s' sent a line longer than %zu bytes (stopped)":
   "Backend '%s' hat eine Zeile mit mehr als %zu Bytes gesendet (angehalten)",
 "%s: the image path is not valid UTF-8 and cannot be sent to backend '%s'":
   "%s: Der Bildpfad ist kein gültiges UTF-8 und kann nicht an Backend '%s' gesendet werden",
 "backend '%s' sent a malformed response (stopped): %s":
   "Backend '%s' hat eine fehlerhafte Antwort gesendet (angehalten): %s",
 "the prompt is not valid UTF-8": "die Eingabe ist kein gültiges UTF-8",
 # annotation projects and sessions (hs-annotation.c)
 "%s: \"%s\" must be an array of non-empty strings": "%s: \"%s\" muss ein Array nicht leerer Zeichenketten sein",
 "%s: \"%s\" must be an array of strings": "%s: \"%s\" muss ein Array von Zeichenketten sein",
 "%s: not a valid JSON file: %s": "%s: keine gültige JSON-Datei: %s",
 "%s: the project must be a JSON object": "%s: Das Projekt muss ein JSON-Objekt sein",
 "%s: \"annotator\" (a non-empty string) is required": "%s: \"annotator\" (eine nicht leere Zeichenkette) ist erforderlich",
 "%s: \"dataset\" (a path) is required": "%s: \"dataset\" (ein Pfad) ist erforderlich",
 "%s: \"models\" must name 1 to %d models": "%s: \"models\" muss 1 bis %d Modelle nennen",
 "%s: model \"%s\" is listed twice": "%s: Modell \"%s\" ist doppelt aufgeführt",
 "%s: unknown round \"%s\" (report, custom)": "%s: unbekannte Runde \"%s\" (report, custom)",
 "%s: \"questions\" must be \"three\" or \"likert\"": "%s: \"questions\" muss \"three\" oder \"likert\" sein",
 "%s: \"seed\" must be a non-negative integer": "%s: \"seed\" muss eine nicht negative ganze Zahl sein",
 "%s: \"answers\" must be a file inside the project's folder (no absolute path, no '..')":
   "%s: \"answers\" muss eine Datei im Ordner des Projekts sein (kein absoluter Pfad, kein '..')",
 "%s: answers file of %zu bytes is over the limit": "%s: Die Antwortdatei mit %zu Bytes überschreitet die Grenze",
 "%s: instance \"%s\" is not in the dataset %s": "%s: Fall \"%s\" ist nicht im Datensatz %s",
 "%s: dataset: ": "%s: Datensatz: ",
 "no annotation item %u (of %u)": "kein Annotationseintrag %u (von %u)",
 "%s: no precomputed map of %s for %s \"%s\" in instance \"%s\"":
   "%s: keine vorberechnete Karte von %s für %s \"%s\" in Fall \"%s\"",
 "answer %d to \"%s\" is not allowed by the %s form": "Antwort %d auf \"%s\" ist im Formular %s nicht erlaubt",
 "a custom prompt (valid UTF-8, not empty) is needed for this answer":
   "für diese Antwort ist eine eigene Eingabe nötig (gültiges UTF-8, nicht leer)",
})
T.update({
 # image decoding (hs-image.c, hs-image-png.c, hs-image-jpeg.c)
 "%s: image has an empty size (%<PRIu64> × %<PRIu64>)": "%s: Das Bild hat eine leere Größe (%<PRIu64> × %<PRIu64>)",
 "%s: image of %<PRIu64> × %<PRIu64> pixels is too large (limit %<PRIu64> pixels)":
   "%s: Das Bild mit %<PRIu64> × %<PRIu64> Pixeln ist zu groß (Grenze %<PRIu64> Pixel)",
 "%s: decodes to %<PRIu64> bytes from %<PRIu64> bytes, more than %<PRIu64> bytes per input byte (limit HEATSCOPE_MAX_DECODE_RATIO)":
   "%s: ergibt dekodiert %<PRIu64> Bytes aus %<PRIu64> Bytes, mehr als %<PRIu64> Bytes je Eingabebyte (Grenze HEATSCOPE_MAX_DECODE_RATIO)",
 "%s: inflates to more than %<PRIu64> bytes (limit HEATSCOPE_MAX_INFLATED_BYTES)":
   "%s: entpackt sich zu mehr als %<PRIu64> Bytes (Grenze HEATSCOPE_MAX_INFLATED_BYTES)",
 "%s: unsupported channel count %u (1 to 4)": "%s: nicht unterstützte Kanalzahl %u (1 bis 4)",
 "%s: unsupported bit depth %u (1, 2, 4, 8 or 16)": "%s: nicht unterstützte Bittiefe %u (1, 2, 4, 8 oder 16)",
 "%s: image has an empty size (%u × %u)": "%s: Das Bild hat eine leere Größe (%u × %u)",
 "%s: image of %u × %u × %u samples is too large": "%s: Das Bild mit %u × %u × %u Abtastwerten ist zu groß",
 "%s: out of memory for an image of %u × %u pixels": "%s: Kein Speicher für ein Bild mit %u × %u Pixeln",
 "%s: file is empty": "%s: Die Datei ist leer",
 "%s: not a PNG, JPEG or DICOM image (unknown signature)": "%s: kein PNG-, JPEG- oder DICOM-Bild (unbekannte Signatur)",
 "more than %d bytes of compressed data after the last row, which the image does not need":
   "mehr als %d Bytes komprimierter Daten nach der letzten Zeile, die das Bild nicht braucht",
 "%s: corrupt PNG header: %s": "%s: beschädigter PNG-Kopf: %s",
 "%s: corrupt PNG: %s": "%s: beschädigtes PNG: %s",
 "%s: cannot start the PNG decoder": "%s: Der PNG-Decoder kann nicht gestartet werden",
 "%s: cannot start the PNG encoder": "%s: Der PNG-Encoder kann nicht gestartet werden",
 "%s: cannot encode PNG: %s": "%s: PNG kann nicht kodiert werden: %s",
 "more scans than the limit of %<PRIu64> (HEATSCOPE_MAX_JPEG_SCANS)":
   "mehr Scans als die Grenze von %<PRIu64> (HEATSCOPE_MAX_JPEG_SCANS)",
 "%s: JPEG has %s": "%s: JPEG hat %s",
 "%s: corrupt JPEG header: %s": "%s: beschädigter JPEG-Kopf: %s",
 "%s: corrupt JPEG: %s": "%s: beschädigtes JPEG: %s",
 "%s: unsupported JPEG colour layout (%d components)": "%s: nicht unterstützte JPEG-Farbanordnung (%d Komponenten)",
})
T.update({
 # figures (hs-figure.c)
 "%s: unknown figure format (use .png, .svg or .pdf)": "%s: unbekanntes Abbildungsformat (.png, .svg oder .pdf verwenden)",
 "the figure has no image": "die Abbildung hat kein Bild",
 "viewport %g,%g %g × %g does not overlap the %u × %u image":
   "der Ausschnitt %g,%g %g × %g überlappt das Bild mit %u × %u nicht",
 "image panel of %.0f × %.0f units is out of range (zoom %g)":
   "die Bildfläche mit %.0f × %.0f Einheiten liegt außerhalb des Bereichs (Zoom %g)",
 "map of %u × %u cells is over the limits": "die Karte mit %u × %u Zellen überschreitet die Grenzen",
 "cannot scale the map: %s": "die Karte kann nicht skaliert werden: %s",
 "cannot draw the colour bar: %s": "der Farbbalken kann nicht gezeichnet werden: %s",
 "cannot level the %u × %u image": "das Bild mit %u × %u kann nicht gefenstert werden",
 "cannot draw the overlay: %s": "die Überlagerung kann nicht gezeichnet werden: %s",
 "cannot outline the map: %s": "der Umriss der Karte kann nicht gezeichnet werden: %s",
 "a %.0f × %.0f figure is over the pixel limit": "eine Abbildung mit %.0f × %.0f überschreitet die Pixelgrenze",
 "cannot allocate a %.0f × %.0f figure": "für eine Abbildung mit %.0f × %.0f ist kein Speicher da",
 "%s: cannot write PDF: %s": "%s: PDF kann nicht geschrieben werden: %s",
 "%s: unknown figure format": "%s: unbekanntes Abbildungsformat",
})
T.update({
 # manifest reading and validation (hs-manifest-schema.c, -reader.c, -stream.c, hs-json-guard.c);
 # JSON member names and values in quotes stay as they are written in the file
 "an object": "ein Objekt",
 "an array": "ein Array",
 "null": "null",
 "a string": "eine Zeichenkette",
 "a boolean": "ein Wahrheitswert",
 "a number": "eine Zahl",
 "something else": "etwas anderes",
 "expected %s, found %s": "erwartet: %s, gefunden: %s",
 "unknown member \"%s\" (expected one of: %s)": "unbekanntes Element \"%s\" (erwartet eines von: %s)",
 "missing required member \"%s\"": "das erforderliche Element \"%s\" fehlt",
 "must not be empty": "darf nicht leer sein",
 "path \"%s\" %s": "Pfad \"%s\" %s",
 "number is not finite": "die Zahl ist nicht endlich",
 "an integer": "eine ganze Zahl",
 "image %s %<PRId64> is not in [1, %d]": "Bild-%s %<PRId64> liegt nicht in [1, %d]",
 "an array of strings": "ein Array von Zeichenketten",
 "a label object": "ein Label-Objekt",
 "context \"%s\" is not one of positive, negative, uncertain": "Kontext \"%s\" ist keiner von positive, negative, uncertain",
 "an array of labels": "ein Array von Labels",
 "a box [x1, y1, x2, y2]": "ein Rahmen [x1, y1, x2, y2]",
 "a box has 4 numbers [x1, y1, x2, y2], found %u": "ein Rahmen hat 4 Zahlen [x1, y1, x2, y2], gefunden: %u",
 "a region name must not be empty": "ein Regionsname darf nicht leer sein",
 "a region object": "ein Regionsobjekt",
 "an array of boxes": "ein Array von Rahmen",
 "empty box [%g, %g, %g, %g]: needs x1 < x2 and y1 < y2": "leerer Rahmen [%g, %g, %g, %g]: braucht x1 < x2 und y1 < y2",
 "an extent describes a mask, but the region has none": "ein Umfang beschreibt eine Maske, aber die Region hat keine",
 "extent [%g, %g, %g, %g] needs 0 <= x1 < x2 and 0 <= y1 < y2 ([0, 0, 0, 0] for an empty mask)":
   "Umfang [%g, %g, %g, %g] braucht 0 <= x1 < x2 und 0 <= y1 < y2 ([0, 0, 0, 0] für eine leere Maske)",
 "a region needs at least one box or a mask": "eine Region braucht mindestens einen Rahmen oder eine Maske",
 "a sentence object": "ein Satzobjekt",
 "duplicate sentence id \"%s\"": "doppelte Satz-ID \"%s\"",
 "kind \"%s\" is not one of report, custom, class": "Art \"%s\" ist keine von report, custom, class",
 "unknown region \"%s\" (not a key of this instance's \"regions\")":
   "unbekannte Region \"%s\" (kein Schlüssel in \"regions\" dieses Falls)",
 "region \"%s\" is listed twice": "Region \"%s\" ist doppelt aufgeführt",
 "a map object": "ein Kartenobjekt",
 "a map needs a \"query\" (sentence id) or a \"prompt\" (free text)":
   "eine Karte braucht eine \"query\" (Satz-ID) oder einen \"prompt\" (freier Text)",
 "unknown sentence \"%s\" (not an id in this instance's \"sentences\")":
   "unbekannter Satz \"%s\" (keine ID in \"sentences\" dieses Falls)",
 "a second map for model \"%s\" and query \"%s\"": "eine zweite Karte für Modell \"%s\" und Satz \"%s\"",
 "a second map for model \"%s\" and prompt \"%s\"": "eine zweite Karte für Modell \"%s\" und Eingabe \"%s\"",
 "an instance object": "ein Fallobjekt",
 "duplicate instance id \"%s\"": "doppelte Fall-ID \"%s\"",
 "\"width\" and \"height\" go together": "\"width\" und \"height\" gehören zusammen",
 "image size %u × %u exceeds the limit of %<PRIu64> pixels": "die Bildgröße %u × %u überschreitet die Grenze von %<PRIu64> Pixeln",
 "an object of strings": "ein Objekt von Zeichenketten",
 "an object of named regions": "ein Objekt benannter Regionen",
 "an array of sentences": "ein Array von Sätzen",
 "an array of maps": "ein Array von Karten",
 "format \"%s\" is not \"%s\"": "Format \"%s\" ist nicht \"%s\"",
 "missing required member \"version\"": "das erforderliche Element \"version\" fehlt",
 "version %<PRId64> was written by a newer Heatscope; this one reads version %d":
   "Version %<PRId64> wurde von einem neueren Heatscope geschrieben; dieses liest Version %d",
 "version %<PRId64> is not a valid format version": "Version %<PRId64> ist keine gültige Formatversion",
 "an object of models": "ein Objekt von Modellen",
 "a model name must not be empty": "ein Modellname darf nicht leer sein",
 "a model object": "ein Modellobjekt",
 "a heatscope-dataset object": "ein heatscope-dataset-Objekt",
 "missing required member \"instances\"": "das erforderliche Element \"instances\" fehlt",
 "an array of instances": "ein Array von Fällen",
 "cannot read the manifest: %s": "das Manifest kann nicht gelesen werden: %s",
 "the manifest is not a regular file": "das Manifest ist keine reguläre Datei",
 "the manifest has %<PRIu64> bytes, over the limit of %<PRIu64>": "das Manifest hat %<PRIu64> Bytes, über der Grenze von %<PRIu64>",
 "invalid UTF-8 (or a NUL byte) at byte %zu (line %u)": "ungültiges UTF-8 (oder ein NUL-Byte) bei Byte %zu (Zeile %u)",
 "the manifest is empty": "das Manifest ist leer",
 "not valid JSON: %s": "kein gültiges JSON: %s",
 "%s: no such dataset folder or manifest": "%s: Datensatzordner oder Manifest nicht vorhanden",
 "%s: cannot resolve the dataset folder: %s": "%s: Der Datensatzordner kann nicht aufgelöst werden: %s",
 "not a valid instance": "kein gültiger Fall",
 "%s: could not be read": "%s: konnte nicht gelesen werden",
 "%u:%zu: JSON nested deeper than %d levels": "%u:%zu: JSON ist tiefer als %d Ebenen verschachtelt",
 "no JSON value (the file is empty)": "kein JSON-Wert (die Datei ist leer)",
 "file of %zu bytes exceeds the limit of %<PRIu64> bytes": "die Datei mit %zu Bytes überschreitet die Grenze von %<PRIu64> Bytes",
})
T.update({
 # checking the files a manifest names (hs-dataset-validate.c)
 "%s file \"%s\" does not exist": "Datei \"%2$s\" (%1$s) existiert nicht",
 "%s \"%s\" is not a regular file": "%s \"%s\" ist keine reguläre Datei",
 "image": "Bild",
 "mask": "Maske",
 "map": "Karte",
 "not a readable image: %s": "kein lesbares Bild: %s",
 "the manifest says %u × %u but the image is %u × %u": "das Manifest nennt %u × %u, aber das Bild ist %u × %u",
 "cannot check the extent: %s": "der Umfang kann nicht geprüft werden: %s",
 "extent [%g, %g, %g, %g] differs from the mask's non-zero pixels [%g, %g, %g, %g] (mask \"%s\")":
   "Umfang [%g, %g, %g, %g] weicht von den Pixeln ungleich null der Maske ab [%g, %g, %g, %g] (Maske \"%s\")",
 "box [%g, %g, %g, %g] reaches outside the %u × %u image": "Rahmen [%g, %g, %g, %g] reicht über das Bild mit %u × %u hinaus",
 "not a readable mask image: %s": "kein lesbares Maskenbild: %s",
 "no_attn %g is not an attention share in [0, 1]": "no_attn %g ist kein Aufmerksamkeitsanteil in [0, 1]",
 "%u tokens listed but the map has %u per-token maps (shape [tokens, h, w] expected)":
   "%u Token aufgeführt, aber die Karte hat %u Karten pro Token (Form [tokens, h, w] erwartet)",
 "a quantity of more than %d characters (it titles a colour bar)":
   "eine Größe mit mehr als %d Zeichen (sie beschriftet einen Farbbalken)",
 "phantom-trained model on a real image": "an Phantomen trainiertes Modell auf einem echten Bild",
 'unknown member "%s"': 'unbekanntes Element „%s“',
 'expected a string': 'Zeichenkette erwartet',
 'longer than %d characters': 'länger als %d Zeichen',
 'expected a number': 'Zahl erwartet',
 '%g is not in [%g, %g]': '%g liegt nicht in [%g, %g]',
 'expected true or false': 'true oder false erwartet',
 'expected an array of strings': 'Array von Zeichenketten erwartet',
 'more than %d headers': 'mehr als %d Überschriften',
 'expected a string of at most %d characters': 'Zeichenkette mit höchstens %d Zeichen erwartet',
 'a difference panel has "diff" and at most a "title"': 'ein Differenzfeld hat „diff“ und höchstens einen „title“',
 'expected two panel numbers [A, B]': 'zwei Feldnummern [A, B] erwartet',
 'expected a panel number in 1..%u': 'Feldnummer in 1..%u erwartet',
 'a difference needs two different panels': 'eine Differenz braucht zwei verschiedene Felder',
 'expected a panel object': 'Feldobjekt erwartet',
 'a panel needs one non-empty "query" (sentence id) or "prompt" (free text)': 'ein Feld braucht genau ein nicht leeres „query“ (Satz-ID) oder „prompt“ (freier Text)',
 '"model" (a precomputed map) and "live" exclude each other': '„model“ (eine vorberechnete Karte) und „live“ schließen einander aus',
 '"%s" is not a built-in model (%s) or backend-exec': '„%s“ ist kein eingebautes Modell (%s) und nicht backend-exec',
 'a free "prompt" needs a live model ("live")': 'ein freier „prompt“ braucht ein Live-Modell („live“)',
 'the only perturbation a figure draws is swap-left-right': 'die einzige Störung, die eine Abbildung zeichnet, ist swap-left-right',
 'a swapped panel needs a "query": it is scored against that sentence\'s target': 'ein vertauschtes Feld braucht ein „query“: es wird gegen das Ziel dieses Satzes bewertet',
 'expected a figure object': 'Abbildungsobjekt erwartet',
 'expected "heatscope-figure"': '„heatscope-figure“ erwartet',
 'only version 1 is known': 'nur Version 1 ist bekannt',
 'expected a whole number': 'ganze Zahl erwartet',
 'expected "shared", "row" or "column"': '„shared“, „row“ oder „column“ erwartet',
 'expected a non-empty array of panels': 'nicht leeres Array von Feldern erwartet',
 '%u panels, more than %d': '%u Felder, mehr als %d',
 'panel %u is itself a difference': 'Feld %u ist selbst eine Differenz',
 '%s: %zu bytes, over the limit of %d for a figure spec': '%s: %zu Bytes, über der Grenze von %d für eine Abbildungsbeschreibung',
 '%s: invalid UTF-8 (or a NUL byte) at byte %zu': '%s: ungültiges UTF-8 (oder ein NUL-Byte) bei Byte %zu',
 '%s: not JSON: %s': '%s: kein JSON: %s',
})
T.update({
 # swap_response verdicts (hs-swap-response.c)
 "followed the words": "ist den Worten gefolgt",
 "ignored the words": "hat die Worte übergangen",
 "moved the wrong way": "in die falsche Richtung gewandert",
 "n/a": "k. A.",
 # the structural walk before GDCM (hs-dicom-walk.c)
 "DICOM deflated data set at offset %zu cannot be inflated: %s": "DICOM: Der komprimierte Datensatz bei Offset %zu lässt sich nicht entpacken: %s",
 "DICOM element (%04X,%04X) at offset %zu has an undefined length, which VR %c%c does not allow":
   "DICOM-Element (%04X,%04X) bei Offset %zu hat eine undefinierte Länge, die VR %c%c nicht erlaubt",
 "DICOM element (%04X,%04X) at offset %zu has no valid value representation (bytes %02X %02X)":
   "DICOM-Element (%04X,%04X) bei Offset %zu hat keine gültige Wertdarstellung (Bytes %02X %02X)",
 "DICOM element (%04X,%04X) at offset %zu is out of order (after (%04X,%04X))":
   "DICOM-Element (%04X,%04X) bei Offset %zu steht außer der Reihe (nach (%04X,%04X))",
 "DICOM element (%04X,%04X) at offset %zu runs past the end of its sequence item":
   "DICOM-Element (%04X,%04X) bei Offset %zu reicht über das Ende seines Sequenzeintrags hinaus",
 "DICOM file has no file meta group after its DICM prefix": "DICOM-Datei hat nach ihrem DICM-Präfix keine Datei-Metagruppe",
 "DICOM file holds no data set after its file meta group": "DICOM-Datei enthält nach ihrer Datei-Metagruppe keinen Datensatz",
 "DICOM file is truncated: element (%04X,%04X) at offset %zu needs %zu bytes, %zu remain":
   "DICOM-Datei ist abgeschnitten: Element (%04X,%04X) bei Offset %zu braucht %zu Bytes, %zu sind übrig",
 "DICOM file is truncated: the element header at offset %zu needs %zu bytes, %zu remain":
   "DICOM-Datei ist abgeschnitten: der Elementkopf bei Offset %zu braucht %zu Bytes, %zu sind übrig",
 "DICOM file meta element (%04X,%04X) at offset %zu inside the data set":
   "DICOM-Datei-Metaelement (%04X,%04X) bei Offset %zu innerhalb des Datensatzes",
 "DICOM file meta element (0002,%04X) at offset %zu has an undefined length":
   "DICOM-Datei-Metaelement (0002,%04X) bei Offset %zu hat eine undefinierte Länge",
 "DICOM item delimiter at offset %zu outside an item": "DICOM-Eintragsende bei Offset %zu außerhalb eines Eintrags",
 "DICOM item tag (%04X,%04X) at offset %zu where a data element should start":
   "DICOM-Eintragstag (%04X,%04X) bei Offset %zu, wo ein Datenelement beginnen sollte",
 "DICOM pixel data fragment at offset %zu is not an item of defined length":
   "DICOM-Pixeldatenfragment bei Offset %zu ist kein Eintrag definierter Länge",
 "DICOM sequence (%04X,%04X) at offset %zu does not end where its length says":
   "DICOM-Sequenz (%04X,%04X) bei Offset %zu endet nicht dort, wo ihre Länge es angibt",
 "DICOM sequence holds (%04X,%04X) at offset %zu where an item should start":
   "DICOM-Sequenz enthält (%04X,%04X) bei Offset %zu, wo ein Eintrag beginnen sollte",
 "DICOM sequences are nested deeper than %d levels (at offset %zu)":
   "DICOM-Sequenzen sind tiefer als %d Ebenen verschachtelt (bei Offset %zu)",
 "DICOM deflated data set inflates to more than %<PRIu64> bytes": "DICOM: Der komprimierte Datensatz wird entpackt größer als %<PRIu64> Bytes",
 "DICOM RLE fragment at offset %zu is shorter than its 64-byte header": "DICOM-RLE-Fragment bei Offset %zu ist kürzer als sein 64-Byte-Kopf",
 "DICOM RLE fragment at offset %zu declares %u segments (1 to 15 are possible)":
   "DICOM-RLE-Fragment bei Offset %zu gibt %u Segmente an (1 bis 15 sind möglich)",
 "DICOM RLE fragment at offset %zu has segment %u at offset %u, outside its %u bytes or out of order":
   "DICOM-RLE-Fragment bei Offset %zu hat Segment %u bei Offset %u, außerhalb seiner %u Bytes oder außer der Reihe",
 "DICOM Pixel Data at offset %zu has VR SQ": "DICOM-Pixeldaten bei Offset %zu haben die VR SQ",
 "DICOM element (%04X,%04X) at offset %zu has a length of %u bytes, not a multiple of %u (VR %c%c)":
   "DICOM-Element (%04X,%04X) bei Offset %zu hat eine Länge von %u Bytes, kein Vielfaches von %u (VR %c%c)",
 "DICOM element (%04X,%04X) at offset %zu has a length of %u bytes, which GDCM would not read as declared":
   "DICOM-Element (%04X,%04X) bei Offset %zu hat eine Länge von %u Bytes, die GDCM nicht wie angegeben lesen würde",
 "DICOM element (%04X,%04X) at offset %zu is not read (GDCM takes it for pixel data)":
   "DICOM-Element (%04X,%04X) bei Offset %zu wird nicht gelesen (GDCM hält es für Pixeldaten)",
 "not a DICOM file (no DICM prefix and no identifying group)": "keine DICOM-Datei (kein DICM-Präfix und keine kennzeichnende Gruppe)",
})
T.update({
 # colour scales and overlays (hs-overlay.c)
 "unknown scale mode '%s' (expected minmax, fixed:LO:HI, percentile:P1:P2 or shared:LO:HI)":
   "unbekannter Skalenmodus '%s' (erwartet: minmax, fixed:LO:HI, percentile:P1:P2 oder shared:LO:HI)",
 "scale 'minmax' takes no range: '%s'": "die Skala 'minmax' nimmt keinen Bereich: '%s'",
 "scale '%s' needs two numbers, as %s:LO:HI": "die Skala '%s' braucht zwei Zahlen, als %s:LO:HI",
 "percentiles in '%s' must satisfy 0 ≤ P1 < P2 ≤ 100": "die Perzentile in '%s' müssen 0 ≤ P1 < P2 ≤ 100 erfüllen",
 "range in '%s' must have LO < HI": "der Bereich in '%s' muss LO < HI haben",
 "map value %zu is not finite (%g)": "Kartenwert %zu ist nicht endlich (%g)",
 "%s scale range [%g, %g] is not a valid range": "%s-Skalenbereich [%g, %g] ist kein gültiger Bereich",
 "percentiles %g–%g are not within 0–100 in order": "die Perzentile %g–%g liegen nicht geordnet innerhalb von 0–100",
 "unknown scale mode %d": "unbekannter Skalenmodus %d",
 "the map has no values": "die Karte hat keine Werte",
 "map %u: ": "Karte %u: ",
 "no values to share a scale over": "keine Werte, über die eine Skala geteilt werden kann",
 "empty size (grid %u × %u, output %u × %u, region %u × %u)":
   "leere Größe (Raster %u × %u, Ausgabe %u × %u, Bereich %u × %u)",
 "region %u,%u %u × %u lies outside the %u × %u output": "der Bereich %u,%u %u × %u liegt außerhalb der Ausgabe mit %u × %u",
 "overlay of %u × %u pixels from a %u × %u grid is over the limits":
   "eine Überlagerung mit %u × %u Pixeln aus einem Raster mit %u × %u überschreitet die Grenzen",
 "out of memory for a %u × %u overlay": "kein Speicher für eine Überlagerung mit %u × %u",
 "scale range [%g, %g] is not finite": "der Skalenbereich [%g, %g] ist nicht endlich",
 "%s is not a valid image surface": "%s ist keine gültige Bildfläche",
 "%s has an unsupported pixel format (%d)": "%s hat ein nicht unterstütztes Pixelformat (%d)",
 "%s is %d × %d, expected %u × %u": "%s ist %d × %d, erwartet %u × %u",
 "cannot allocate a %u × %u surface: %s": "eine Fläche mit %u × %u kann nicht angelegt werden: %s",
 "quantised rows of %zu values are shorter than the %u-pixel image":
   "quantisierte Zeilen mit %zu Werten sind kürzer als das Bild mit %u Pixeln",
 "the image is not a valid image surface": "das Bild ist keine gültige Bildfläche",
 # external model backends (hs-backend-exec.c)
 "%s: cannot make a folder for the PNG sent to backend '%s'":
   "%s: Für das an das Backend '%s' gesendete PNG kann kein Ordner angelegt werden",
 "%s: cannot convert the DICOM image for backend '%s'": "%s: Das DICOM-Bild kann für das Backend '%s' nicht umgewandelt werden",
 # figures (hs-figure.c, hs-figure-grid.c)
 "unknown error": "unbekannter Fehler",
 "bad length '%s' (a positive number with mm, cm, in or pt, e.g. 89mm)":
   "ungültige Länge '%s' (eine positive Zahl mit mm, cm, in oder pt, z. B. 89mm)",
 "cannot scale the figure's maps: %s": "die Karten der Abbildung können nicht skaliert werden: %s",
 "difference A − B": "Differenz A − B",
 "attention weight": "Aufmerksamkeitsgewicht",
 "the figure has no panels": "die Abbildung hat keine Felder",
 "%u panels in %u columns: use 1 to 64 columns and at most 4096 panels":
   "%u Felder in %u Spalten: 1 bis 64 Spalten und höchstens 4096 Felder verwenden",
 "page width %g pt, font %g pt or %g dpi out of range (0.5–200 in, 2–72 pt, 36–2400 dpi)":
   "Seitenbreite %g pt, Schrift %g pt oder %g dpi außerhalb des Bereichs (0,5–200 in, 2–72 pt, 36–2400 dpi)",
 "panel %u: ": "Feld %u: ",
 "a %.1f pt wide page is too narrow for %u columns at %g pt text (panels would be %.1f pt wide)":
   "eine %.1f pt breite Seite ist zu schmal für %u Spalten bei %g pt Text (die Felder wären %.1f pt breit)",
 "a %.0f × %.0f pixel figure (%g dpi) is over the pixel limit":
   "eine Abbildung mit %.0f × %.0f Pixeln (%g dpi) überschreitet die Pixelgrenze",
 # inter-annotator agreement (hs-agreement.c)
 "agreement needs at least one annotator and one category":
   "die Übereinstimmung braucht mindestens einen Annotator und eine Kategorie",
 "%u units × %u annotators (%u categories) is over the limits":
   "%u Einheiten × %u Annotatoren (%u Kategorien) überschreiten die Grenzen",
 "rating %d of unit %zu, annotator %zu is outside 0..%u":
   "die Bewertung %d von Einheit %zu, Annotator %zu liegt außerhalb von 0..%u",
 # writing files atomically (hs-atomic-file.c)
 "Failed to create file “%s”: %s": "Datei „%s“ konnte nicht angelegt werden: %s",
 "Failed to rename the new version onto “%s”: %s": "Die neue Fassung konnte nicht in „%s“ umbenannt werden: %s",
 "Failed to write file “%s”: %s": "Datei „%s“ konnte nicht geschrieben werden: %s",
 # null baselines (hs-baselines.c)
 "the %s baseline needs %<PRIu64> × %<PRIu64> cells, over the map limit of %<PRIu64>":
   "die Referenz %s braucht %<PRIu64> × %<PRIu64> Zellen, über der Kartengrenze von %<PRIu64>",
 "the image is %u × %u but the target was built for %u × %u":
   "das Bild ist %u × %u, aber das Ziel wurde für %u × %u erstellt",
 "the %s baseline needs the image": "die Referenz %s braucht das Bild",
 "unknown baseline %d": "unbekannte Referenz %d",
 # outlines (hs-contour.c)
 "empty grid or output (%u × %u → %u × %u)": "leeres Raster oder leere Ausgabe (%u × %u → %u × %u)",
 "outline of %u × %u pixels is over the limits": "ein Umriss mit %u × %u Pixeln überschreitet die Grenzen",
 "map cell (row %<PRIu64>, column %<PRIu64>) is not finite": "Kartenzelle (Zeile %<PRIu64>, Spalte %<PRIu64>) ist nicht endlich",
 "out of memory for a %u × %u outline": "kein Speicher für einen Umriss mit %u × %u",
 # CSV (hs-csv.c)
 "%s: file of %<PRIu64> bytes is too large": "%s: Datei mit %<PRIu64> Bytes ist zu groß",
 "%s:%u: unterminated quoted field": "%s:%u: nicht abgeschlossenes Feld in Anführungszeichen",
 "%s:%u: unexpected character '%c' after a closing quote": "%s:%u: unerwartetes Zeichen '%c' nach einem schließenden Anführungszeichen",
 "%s:%u: NUL byte in the text": "%s:%u: NUL-Byte im Text",
 "%s:%u: field %u is not valid UTF-8 (byte 0x%02x at offset %u)":
   "%s:%u: Feld %u ist kein gültiges UTF-8 (Byte 0x%02x an Position %u)",
 # DICOM (hs-image-dicom.cc)
 "%s: decoded DICOM pixel data of %lu bytes is too large (limit %<PRIu64> bytes)":
   "%s: Die dekodierten DICOM-Pixeldaten mit %lu Bytes sind zu groß (Grenze %<PRIu64> Bytes)",
 "%s: out of memory decoding DICOM": "%s: kein Speicher beim Dekodieren von DICOM",
 # limits from the environment (hs-limits.c)
 "%s=\"%s\" is not a whole number from 1 to %<PRIu64> (unset it for the default, %<PRIu64>)":
   "%s=\"%s\" ist keine ganze Zahl von 1 bis %<PRIu64> (ohne die Variable gilt der Standardwert %<PRIu64>)",
 # metrics (hs-metrics.c, hs-target.c)
 "not enough memory to score on a grid of %zu pixels (a smaller --eval-size helps)":
   "nicht genug Speicher für die Bewertung auf einem Raster mit %zu Pixeln (ein kleineres --eval-size hilft)",
 "%s: cell (row %zu, column %zu) is %s; a map with NaN or ±Inf is not scored":
   "%s: Zelle (Zeile %zu, Spalte %zu) ist %s; eine Karte mit NaN oder ±Inf wird nicht bewertet",
 "the target was built for the %s protocol, not %s": "das Ziel wurde für das Protokoll %s erstellt, nicht für %s",
 "the map has no cell (%u × %u)": "die Karte hat keine Zelle (%u × %u)",
 "the map has %u × %u cells, over the limit of %<PRIu64>": "die Karte hat %u × %u Zellen, über der Grenze von %<PRIu64>",
 "maps of different shapes cannot be compared: %u × %u and %u × %u":
   "Karten unterschiedlicher Form können nicht verglichen werden: %u × %u und %u × %u",
 "the image is empty": "das Bild ist leer",
 "unknown protocol %d": "unbekanntes Protokoll %d",
 "image size %u × %u is empty": "die Bildgröße %u × %u ist leer",
 "image size %u × %u is over the limit of %<PRIu64> pixels": "die Bildgröße %u × %u liegt über der Grenze von %<PRIu64> Pixeln",
 "evaluation size %u is over the limit of %<PRIu64> pixels": "die Auswertungsgröße %u liegt über der Grenze von %<PRIu64> Pixeln",
 "box [%g, %g, %g, %g] has a non-finite corner": "Rahmen [%g, %g, %g, %g] hat eine nicht endliche Ecke",
 "box [%g, %g, %g, %g] has x2 < x1 or y2 < y1": "Rahmen [%g, %g, %g, %g] hat x2 < x1 oder y2 < y1",
 "mask is empty": "die Maske ist leer",
})
T.update({
 # built-in models (hs-model.c, hs-model-image.c)
 "%s: not a usable heatscope model: %s": "%s: kein verwendbares Heatscope-Modell: %s",
 "tensor \"%s\" is missing": "Tensor \"%s\" fehlt",
 "tensor \"%s\" has shape %s], expected %s]": "Tensor \"%s\" hat die Form %s], erwartet %s]",
 "tensor \"%s\" holds a non-finite value at index %zu": "Tensor \"%s\" enthält einen nicht endlichen Wert bei Index %zu",
 "metadata has no \"config\"": "die Metadaten haben kein \"config\"",
 "metadata \"config\" is not a JSON object%s%s": "Metadaten-\"config\" ist kein JSON-Objekt%s%s",
 "config \"image_size\" missing or out of range": "config \"image_size\" fehlt oder liegt außerhalb des Bereichs",
 "config \"grid\" missing or out of range": "config \"grid\" fehlt oder liegt außerhalb des Bereichs",
 "config \"dim\" missing or out of range": "config \"dim\" fehlt oder liegt außerhalb des Bereichs",
 "config \"text_heads\" missing or not a divisor of dim": "config \"text_heads\" fehlt oder ist kein Teiler von dim",
 "config \"text_ffn\" missing or out of range": "config \"text_ffn\" fehlt oder liegt außerhalb des Bereichs",
 "config \"text_positions\" missing or out of range": "config \"text_positions\" fehlt oder liegt außerhalb des Bereichs",
 "config \"tau\" missing or not positive": "config \"tau\" fehlt oder ist nicht positiv",
 "config \"normalize_mean\"/\"normalize_std\" missing or invalid": "config \"normalize_mean\"/\"normalize_std\" fehlt oder ist ungültig",
 "config \"no_attn\" missing or not a boolean": "config \"no_attn\" fehlt oder ist kein Wahrheitswert",
 "config \"conv\" missing or not an array": "config \"conv\" fehlt oder ist kein Array",
 "config \"conv\" has %u layers (1 to %d allowed)": "config \"conv\" hat %u Schichten (1 bis %d erlaubt)",
 "config \"conv\"[%u] is not [c_in, c_out, stride]": "config \"conv\"[%u] ist nicht [c_in, c_out, stride]",
 "config \"conv\"[%u][%u] out of range": "config \"conv\"[%u][%u] liegt außerhalb des Bereichs",
 "config \"conv\"[%u] takes %u channels, the input has %u": "config \"conv\"[%u] nimmt %u Kanäle, die Eingabe hat %u",
 "the CNN gives a %u×%u grid, config says %u": "das CNN liefert ein %u×%u-Raster, config nennt %u",
 "metadata has no \"vocabulary\"": "die Metadaten haben kein \"vocabulary\"",
 "metadata \"vocabulary\" is not a JSON array": "Metadaten-\"vocabulary\" ist kein JSON-Array",
 "the vocabulary has %u words": "das Vokabular hat %u Wörter",
 "vocabulary entry %u is not a string": "Vokabulareintrag %u ist keine Zeichenkette",
 "vocabulary word \"%s\" appears twice": "das Vokabularwort \"%s\" kommt zweimal vor",
 "the vocabulary has no \"<unk>\"": "das Vokabular hat kein \"<unk>\"",
 "metadata \"format\" is %s%s%s, expected \"%s\" or \"%s\"": "Metadaten-\"format\" ist %s%s%s, erwartet \"%s\" oder \"%s\"",
 "config \"classes\" missing or not an array": "config \"classes\" fehlt oder ist kein Array",
 "config \"classes\" has %u names (2 to 1000 allowed)": "config \"classes\" hat %u Namen (2 bis 1000 erlaubt)",
 "config \"classes\"[%u] is not a string": "config \"classes\"[%u] ist keine Zeichenkette",
 "config \"classes\"[%u] has no words": "config \"classes\"[%u] enthält keine Wörter",
 "%s: not a usable heatscope model: \"%s\" needs a classifier (format \"%s\")":
   "%s: kein verwendbares Heatscope-Modell: \"%s\" braucht einen Klassifikator (Format \"%s\")",
 "built-in model \"%s\" not found (looked in $HEATSCOPE_MODELS_DIR, data/models and the data directories)":
   "eingebautes Modell \"%s\" nicht gefunden (gesucht in $HEATSCOPE_MODELS_DIR, data/models und den Datenverzeichnissen)",
 "unknown model \"%s\" (built-in models: %s; or give a .safetensors file)":
   "unbekanntes Modell \"%s\" (eingebaute Modelle: %s; oder eine .safetensors-Datei angeben)",
 "%s: the image features were computed by another model (%s)":
   "%s: Die Bildmerkmale wurden von einem anderen Modell berechnet (%s)",
 "the prompt has no words": "die Eingabe hat keine Wörter",
 "the prompt has %u words, more than the limit of %<PRIu64>": "die Eingabe hat %u Wörter, mehr als die Grenze von %<PRIu64>",
 # perturbations and precomputed maps (hs-perturb.c)
 "%s does not apply to query \"%s\" of instance \"%s\": %s": "%s ist auf die Anfrage \"%s\" von Fall \"%s\" nicht anwendbar: %s",
 "unknown perturbation %d": "unbekannte Störung %d",
 "no precomputed map for query \"%s\" of model %s in instance %s":
   "keine vorberechnete Karte für die Anfrage \"%s\" von Modell %s in Fall %s",
 "no precomputed map for prompt '%s' of model %s in instance %s":
   "keine vorberechnete Karte für die Eingabe '%s' von Modell %s in Fall %s",
 # demo data (hs-phantom*.c)
 "phantom %u×%u: out of memory": "Phantom %u×%u: kein Speicher",
 "unknown simulated model \"%s\"": "unbekanntes simuliertes Modell \"%s\"",
 "%s: model %s, sentence %s: ": "%s: Modell %s, Satz %s: ",
 "phantom size %u×%u is below the minimum of %u pixels": "die Phantomgröße %u×%u liegt unter dem Minimum von %u Pixeln",
 "map grid %u is over 256 cells a side": "das Kartenraster %u hat mehr als 256 Zellen pro Seite",
 "instance indices overflow (start %<PRIu64>)": "die Fallnummern laufen über (Start %<PRIu64>)",
 "%s: cannot create folder: %s": "%s: Ordner kann nicht angelegt werden: %s",
 "phantom size %u×%u is over the limit of %<PRIu64> pixels": "die Phantomgröße %u×%u liegt über der Grenze von %<PRIu64> Pixeln",
 # RLE masks (hs-rle.c)
 "RLE string ends in the middle of a count": "die RLE-Zeichenkette endet mitten in einer Zahl",
 "RLE string has an invalid character '%c' at offset %d": "die RLE-Zeichenkette hat ein ungültiges Zeichen '%c' an Position %d",
 "RLE count too long at offset %d": "RLE-Zahl an Position %d ist zu lang",
 "RLE count %u is out of range (%<PRId64>)": "RLE-Zahl %u liegt außerhalb des Bereichs (%<PRId64>)",
 "RLE counts add up to %<PRIu64> pixels, the mask has %u × %u = %<PRIu64>":
   "die RLE-Zahlen ergeben %<PRIu64> Pixel, die Maske hat %u × %u = %<PRIu64>",
 "RLE mask of %u × %u pixels is empty or too large": "die RLE-Maske mit %u × %u Pixeln ist leer oder zu groß",
 # .safetensors weights (hs-safetensors.c)
 "%s: not a valid safetensors file: %s": "%s: keine gültige safetensors-Datei: %s",
 "\"__metadata__\" is not an object": "\"__metadata__\" ist kein Objekt",
 "\"__metadata__\" value \"%s\" is not a string": "\"__metadata__\"-Wert \"%s\" ist keine Zeichenkette",
 "entry \"%s\" is not an object": "Eintrag \"%s\" ist kein Objekt",
 "tensor \"%s\" has no string \"dtype\"": "Tensor \"%s\" hat keine Zeichenkette \"dtype\"",
 "tensor \"%s\" has unknown dtype \"%s\"": "Tensor \"%s\" hat den unbekannten dtype \"%s\"",
 "tensor \"%s\" has no \"shape\" array": "Tensor \"%s\" hat kein Array \"shape\"",
 "tensor \"%s\" has %u dimensions (at most %d supported)": "Tensor \"%s\" hat %u Dimensionen (höchstens %d unterstützt)",
 "tensor \"%s\" shape[%u] is not a non-negative integer": "Tensor \"%s\" shape[%u] ist keine nicht negative ganze Zahl",
 "tensor \"%s\" shape overflows": "die Form von Tensor \"%s\" läuft über",
 "tensor \"%s\" has no \"data_offsets\" [begin, end]": "Tensor \"%s\" hat keine \"data_offsets\" [begin, end]",
 "tensor \"%s\" data_offsets [%<PRIu64>, %<PRIu64>] lie outside the %zu-byte data buffer":
   "Tensor \"%s\": data_offsets [%<PRIu64>, %<PRIu64>] liegen außerhalb des Datenpuffers mit %zu Bytes",
 "tensor \"%s\" holds %<PRIu64> bytes but its %s shape needs %<PRIu64>":
   "Tensor \"%s\" enthält %<PRIu64> Bytes, aber seine %s-Form braucht %<PRIu64>",
 "%zu bytes, shorter than the 8-byte header length": "%zu Bytes, kürzer als die 8 Byte lange Kopflänge",
 "header length %<PRIu64> exceeds 100 MB": "die Kopflänge %<PRIu64> überschreitet 100 MB",
 "header length %<PRIu64> exceeds the file (%zu bytes)": "die Kopflänge %<PRIu64> überschreitet die Datei (%zu Bytes)",
 "the header does not start with a JSON object": "der Kopf beginnt nicht mit einem JSON-Objekt",
 "the header is not valid UTF-8": "der Kopf ist kein gültiges UTF-8",
 "header JSON: %s": "JSON des Kopfes: %s",
 "the header is not a JSON object": "der Kopf ist kein JSON-Objekt",
 "tensor \"%s\" starts at byte %zu of the data buffer, expected %zu (%s)":
   "Tensor \"%s\" beginnt bei Byte %zu des Datenpuffers, erwartet %zu (%s)",
 "the data buffer has %zu bytes but the tensors cover %zu": "der Datenpuffer hat %zu Bytes, aber die Tensoren decken %zu ab",
 "%s: %zu bytes exceed the file size limit of %<PRIu64>": "%s: %zu Bytes überschreiten die Dateigrößengrenze von %<PRIu64>",
 "%s: no such file or not a regular file": "%s: Datei nicht vorhanden oder keine reguläre Datei",
 "%s: %<PRIu64> bytes exceed the file size limit of %<PRIu64>": "%s: %<PRIu64> Bytes überschreiten die Dateigrößengrenze von %<PRIu64>",
 "%s: no tensor named \"%s\"": "%s: kein Tensor namens \"%s\"",
 "%s: tensor \"%s\" has dtype %s, expected a floating-point type": "%s: Tensor \"%s\" hat dtype %s, erwartet ein Gleitkommatyp",
 # CheXlocalize thresholds (hs-threshold-table.c)
 "%s: empty file (expected CheXlocalize's tuning_results.csv: threshold,task)":
   "%s: leere Datei (erwartet CheXlocalizes tuning_results.csv: threshold,task)",
 "%s:%u: no '%s' column (expected CheXlocalize's tuning_results.csv: threshold,task)":
   "%s:%u: keine Spalte '%s' (erwartet CheXlocalizes tuning_results.csv: threshold,task)",
 "%s:%u: %u fields, the header has %u": "%s:%u: %u Felder, die Kopfzeile hat %u",
 "%s:%u: empty task": "%s:%u: leere Aufgabe",
 "%s:%u: threshold '%s' of task '%s' is not a number in [0, 1]": "%s:%u: Schwelle '%s' der Aufgabe '%s' ist keine Zahl in [0, 1]",
 "%s:%u: task '%s' appears twice": "%s:%u: Aufgabe '%s' kommt zweimal vor",
 "%s: no threshold rows": "%s: keine Schwellenzeilen",
})
T.update({
 # files that changed after the manifest was written (hs-dataset-validate.c)
 "the file has %<PRIu64> bytes, the manifest recorded %<PRIu64>: it changed after the manifest was written":
   "die Datei hat %<PRIu64> Bytes, das Manifest verzeichnet %<PRIu64>: sie wurde nach dem Schreiben des Manifests geändert",
 "the file's SHA-256 is %s, the manifest recorded %s: it changed after the manifest was written":
   "die SHA-256 der Datei ist %s, das Manifest verzeichnet %s: sie wurde nach dem Schreiben des Manifests geändert",
 # writing a dataset (hs-manifest-writer.c)
 "%s: cannot create the dataset folder: %s": "%s: Der Datensatzordner kann nicht angelegt werden: %s",
 "%s: cannot write the manifest: %s": "%s: Das Manifest kann nicht geschrieben werden: %s",
 # importing (hs-import.c)
 "%s: outside the source folders": "%s: außerhalb der Quellordner",
 "%s: image name \"%s\" would leave the output folder": "%s: Der Bildname \"%s\" würde den Ausgabeordner verlassen",
 "format %s takes %u to %u sources, %u given": "das Format %s nimmt %u bis %u Quellen, %u angegeben",
 "unknown import format '%s' (known: %s)": "unbekanntes Importformat '%s' (bekannt: %s)",
 "%s: no such file or folder": "%s: Datei oder Ordner nicht vorhanden",
 "npy-folder attaches maps to an existing dataset: %s": "npy-folder hängt Karten an einen vorhandenen Datensatz an: %s",
 "%s: a dataset is already there (use --force to replace it)":
   "%s: Dort liegt bereits ein Datensatz (--force ersetzt ihn)",
 "%s: nothing imported: the only row was skipped": "%s: nichts importiert: die einzige Zeile wurde übersprungen",
 "%s: nothing imported: all %u rows were skipped": "%s: nichts importiert: alle %u Zeilen wurden übersprungen",
 "%s: nothing imported: no maps found": "%s: nichts importiert: keine Karten gefunden",
 "%s: nothing imported: no sentences or regions found": "%s: nichts importiert: keine Sätze oder Regionen gefunden",
 "image %s was not imported": "Bild %s wurde nicht importiert",
 "bad image id '%s'": "ungültige Bild-ID '%s'",
 "%s: cannot copy to %s: %s": "%s: Kopieren nach %s nicht möglich: %s",
 "%s: file too large": "%s: Datei zu groß",
 "file too large": "Datei zu groß",
 "%s: not a folder": "%s: kein Ordner",
 "%s: cannot read the folder": "%s: Der Ordner kann nicht gelesen werden",
 "image %s not found": "Bild %s nicht gefunden",
 "image %s not found in %s": "Bild %s nicht gefunden in %s",
 "box is empty or outside the image": "der Rahmen ist leer oder liegt außerhalb des Bildes",
 "empty box": "leerer Rahmen",
 "missing columns": "fehlende Spalten",
 "too few columns": "zu wenige Spalten",
 # ChestX-Det (hs-import-chestx-det.c)
 "%s: not a ChestX-Det file (a list of {file_name, syms, boxes, polygons})":
   "%s: keine ChestX-Det-Datei (eine Liste von {file_name, syms, boxes, polygons})",
 "%s: expected file_name and syms, boxes (and polygons) of one length":
   "%s: erwartet file_name und syms, boxes (und polygons) gleicher Länge",
 "%s.syms[%u]: not a class name": "%s.syms[%u]: kein Klassenname",
 "%s.boxes[%u]: not [x1, y1, x2, y2]": "%s.boxes[%u]: nicht [x1, y1, x2, y2]",
 "%s.boxes[%u]: empty or outside the image": "%s.boxes[%u]: leer oder außerhalb des Bildes",
 "%s.polygons[%u]: not a list of ≥ 3 [x, y] points": "%s.polygons[%u]: keine Liste von ≥ 3 [x, y]-Punkten",
 # CheXlocalize (hs-import-chexlocalize.c)
 "%s: not CheXlocalize ground truth (expected an object keyed by image id)":
   "%s: keine CheXlocalize-Referenz (erwartet ein Objekt mit Bild-IDs als Schlüsseln)",
 "%s: not an object of pathologies": "%s: kein Objekt von Pathologien",
 "%s: image not found under %s": "%s: Bild nicht gefunden unter %s",
 "%s: img_size is not [height, width]": "%s: img_size ist nicht [height, width]",
 # COCO (hs-import-coco.c)
 "%s: not a COCO object": "%s: kein COCO-Objekt",
 "%s: not COCO (needs the lists 'images' and 'annotations')": "%s: kein COCO (braucht die Listen 'images' und 'annotations')",
 "categories[%u]: needs an integer id and a name": "categories[%u]: braucht eine ganzzahlige id und einen name",
 "images[%u]: needs an integer id and a file_name": "images[%u]: braucht eine ganzzahlige id und einen file_name",
 "images[%u]: file_name '%s' leaves the image folder": "images[%u]: file_name '%s' verlässt den Bildordner",
 "images[%u]: id %<PRId64> used twice": "images[%u]: id %<PRId64> zweimal verwendet",
 "images[%u]: %s not found (its annotations are left out)": "images[%u]: %s nicht gefunden (seine Annotationen werden ausgelassen)",
 "images[%u]: %s": "images[%u]: %s",
 "images[%u]: %s is %u × %u but the JSON says %<PRId64> × %<PRId64>":
   "images[%u]: %s ist %u × %u, aber das JSON nennt %<PRId64> × %<PRId64>",
 "annotations[%u]: needs an integer image_id": "annotations[%u]: braucht eine ganzzahlige image_id",
 "annotations[%u]: needs an integer category_id": "annotations[%u]: braucht eine ganzzahlige category_id",
 "annotations[%u]: unknown category_id %<PRId64>": "annotations[%u]: unbekannte category_id %<PRId64>",
 "annotations[%u]: %s": "annotations[%u]: %s",
 "annotations[%u]: bbox is not [x, y, w, h]": "annotations[%u]: bbox ist nicht [x, y, w, h]",
 "annotations[%u]: bbox [%g, %g, %g, %g] is empty or outside the %u × %u image":
   "annotations[%u]: bbox [%g, %g, %g, %g] ist leer oder liegt außerhalb des Bildes mit %u × %u",
 "annotations[%u]: neither a bbox nor a segmentation": "annotations[%u]: weder eine bbox noch eine Segmentierung",
 # COVID-19 segmentation (hs-import-covid-seg.c)
 "cannot read the links file: %s": "die Verknüpfungsdatei kann nicht gelesen werden: %s",
 "the header must name the columns image, sentence and target":
   "die Kopfzeile muss die Spalten image, sentence und target nennen",
 "unknown image '%s'": "unbekanntes Bild '%s'",
 "image '%s' was not imported": "Bild '%s' wurde nicht importiert",
 "image '%s' has no sentence '%s'": "Bild '%s' hat keinen Satz '%s'",
 "image '%s' has no target '%s'": "Bild '%s' hat kein Ziel '%s'",
 "%s: not a covid-seg folder (structure.csv is missing)": "%s: kein covid-seg-Ordner (structure.csv fehlt)",
 "%s; notes are not imported": "%s; Notizen werden nicht importiert",
 "no 'filename' column; notes are not imported": "keine Spalte 'filename'; Notizen werden nicht importiert",
 "empty filename": "leerer Dateiname",
 "second row for %s": "zweite Zeile für %s",
 "%s: no header row%s%s": "%s: keine Kopfzeile%s%s",
 "%s:1: missing columns (need Class, Filename, Mask, Top, Left, Width, Height)":
   "%s:1: fehlende Spalten (nötig: Class, Filename, Mask, Top, Left, Width, Height)",
 "no Filename": "kein Filename",
 "Left/Top/Width/Height are not whole numbers": "Left/Top/Width/Height sind keine ganzen Zahlen",
 "no Class": "keine Class",
 "Filename '%s' is not a plain file name": "Filename '%s' ist kein einfacher Dateiname",
 "image %s could not be imported": "Bild %s konnte nicht importiert werden",
 "Resolution %s differs from the image (%s)": "Resolution %s weicht vom Bild ab (%s)",
 "box %u,%u %u×%u is empty or outside the %u×%u image": "Rahmen %u,%u %u×%u ist leer oder liegt außerhalb des Bildes mit %u×%u",
 "Mask path '%s' leaves the folder": "Maskenpfad '%s' verlässt den Ordner",
 "mask %s is %u×%u, the box is %u×%u": "Maske %s ist %u×%u, der Rahmen ist %u×%u",
 # Chest ImaGenome (hs-import-imagenome.c)
 "%simage %s was not imported": "%sBild %s wurde nicht importiert",
 "%sbad image_id '%s'": "%sungültige image_id '%s'",
 "%simage %s.jpg/.png not found in %s": "%sBild %s.jpg/.png nicht gefunden in %s",
 "%s:1: not an ImaGenome gold TSV (needs image_id, sentence, bbox, coord_original)":
   "%s:1: keine ImaGenome-Gold-TSV (braucht image_id, sentence, bbox, coord_original)",
 "empty sentence or bbox": "leerer Satz oder leere bbox",
 "coord_original '%s' is not [x1, y1, x2, y2]": "coord_original '%s' ist nicht [x1, y1, x2, y2]",
 "box %s is empty or outside the %u × %u image": "Rahmen %s ist leer oder liegt außerhalb des Bildes mit %u × %u",
 "context '%s' is not yes/no": "Kontext '%s' ist nicht yes/no",
 "not a scene graph (no image_id)": "kein Szenengraph (keine image_id)",
 "objects[%u]: needs bbox_name and original_x1..original_y2": "objects[%u]: braucht bbox_name und original_x1..original_y2",
 "objects[%u]: %s box is empty or outside the image": "objects[%u]: Rahmen %s ist leer oder liegt außerhalb des Bildes",
 "attributes[%u]: needs bbox_name and phrases": "attributes[%u]: braucht bbox_name und phrases",
 "attributes[%u].phrases[%u]: not a string": "attributes[%u].phrases[%u]: keine Zeichenkette",
 "attributes[%u].attributes[%u][%u]: '%s' is not category|yes/no|label":
   "attributes[%u].attributes[%u][%u]: '%s' ist nicht category|yes/no|label",
 "%s: no scene-graph .json files": "%s: keine Szenengraph-.json-Dateien",
 # MS-CXR (hs-import-ms-cxr.c)
 "%s:1: not an MS-CXR header (dicom_id, category_name, label_text, path, x, y, w, h)":
   "%s:1: keine MS-CXR-Kopfzeile (dicom_id, category_name, label_text, path, x, y, w, h)",
 "empty dicom_id, category_name, label_text or path": "leere dicom_id, category_name, label_text oder path",
 "x, y, w, h are not numbers": "x, y, w, h sind keine Zahlen",
 "path '%s' leaves the image folder": "Pfad '%s' verlässt den Bildordner",
 "image of %s was not imported": "das Bild von %s wurde nicht importiert",
 # NIH ChestX-ray14 (hs-import-nih.c)
 "%s:1: not a BBox_List_2017.csv header (Image Index, Finding Label, Bbox [x,y,w,h])":
   "%s:1: keine Kopfzeile von BBox_List_2017.csv (Image Index, Finding Label, Bbox [x,y,w,h])",
 "expected image, label and x, y, w, h": "erwartet Bild, Befund und x, y, w, h",
 "bad image name or empty label": "ungültiger Bildname oder leerer Befund",
 "box values are not numbers": "die Rahmenwerte sind keine Zahlen",
 # a folder of .npy maps (hs-import-npy-folder.c)
 "name is not <instance>__<model>__<query-id>.npy": "der Name ist nicht <instance>__<model>__<query-id>.npy",
 "the dataset has no instance '%s'": "der Datensatz hat keinen Fall '%s'",
 "instance '%s' has no query '%s'": "Fall '%s' hat keine Anfrage '%s'",
 # RSNA Pneumonia (hs-import-rsna.c)
 "%s:1: not an RSNA Pneumonia header (patientId, x, y, width, height, Target)":
   "%s:1: keine RSNA-Pneumonia-Kopfzeile (patientId, x, y, width, height, Target)",
 "expected patientId, x, y, width, height, Target": "erwartet patientId, x, y, width, height, Target",
 "Target is '%s', not 0 or 1": "Target ist '%s', nicht 0 oder 1",
 "Target 1 without a numeric box": "Target 1 ohne numerischen Rahmen",
 # SIIM-ACR (hs-import-siim.c)
 "EncodedPixels value '%s' is not a count": "der EncodedPixels-Wert '%s' ist keine Anzahl",
 "EncodedPixels runs past the %u × %u mask": "EncodedPixels reicht über die Maske mit %u × %u hinaus",
 "EncodedPixels holds %u numbers, not gap/length pairs": "EncodedPixels enthält %u Zahlen, keine Paare aus Lücke und Länge",
 "%s:1: not a SIIM-ACR header (ImageId, EncodedPixels)": "%s:1: keine SIIM-ACR-Kopfzeile (ImageId, EncodedPixels)",
 "expected ImageId and EncodedPixels": "erwartet ImageId und EncodedPixels",
 # VinDr-CXR (hs-import-vindr.c)
 "%s:1: not a VinDr-CXR header (image_id, class_name, class_id, rad_id, x_min, y_min, x_max, y_max)":
   "%s:1: keine VinDr-CXR-Kopfzeile (image_id, class_name, class_id, rad_id, x_min, y_min, x_max, y_max)",
 "expected image_id, class_name and the box columns": "erwartet image_id, class_name und die Rahmenspalten",
 "empty class_name": "leerer class_name",
 "%s without a box": "%s ohne Rahmen",
 # Pascal VOC (hs-import-voc.c)
 "not readable XML: %s": "kein lesbares XML: %s",
 "no <filename>": "kein <filename>",
 "<size> %g × %g differs from the image's %u × %u; boxes scaled":
   "<size> %g × %g weicht vom Bild mit %u × %u ab; Rahmen skaliert",
 "object[%u]: expected <name> and <bndbox> with xmin, ymin, xmax, ymax":
   "object[%u]: erwartet <name> und <bndbox> mit xmin, ymin, xmax, ymax",
 "object[%u]: box is empty or outside the image": "object[%u]: der Rahmen ist leer oder liegt außerhalb des Bildes",
 "%s: no Pascal VOC .xml annotation found": "%s: keine Pascal-VOC-.xml-Annotation gefunden",
 # YOLO (hs-import-yolo.c)
 "expected \"class x_center y_center width height\"": "erwartet \"class x_center y_center width height\"",
 "class '%s' is not a whole number": "Klasse '%s' ist keine ganze Zahl",
 "coordinates must be numbers in [0, 1]": "die Koordinaten müssen Zahlen in [0, 1] sein",
 "%u values: not a YOLO box line": "%u Werte: keine YOLO-Rahmenzeile",
 "class %<PRIu64> is not in %s (%u names)": "Klasse %<PRIu64> ist nicht in %s (%u Namen)",
 "%s: no PNG or JPEG images found": "%s: keine PNG- oder JPEG-Bilder gefunden",
})
T.update({
 "panels %u and %u share a colour bar but measure different quantities (\"%s\" and \"%s\"): name the bar's quantity, or scale per row or column":
   "die Felder %u und %u teilen einen Farbbalken, messen aber verschiedene Größen (\"%s\" und \"%s\"): die Größe des Balkens benennen oder pro Zeile oder Spalte skalieren",
})
T.update({
 # words put into the messages above
 "sentence": "Satz",
 "prompt": "Eingabe",
 "missing": "fehlend",
 "overlapping tensors": "überlappende Tensoren",
 "a gap": "eine Lücke",
})
T.update({
 # metric definitions (hs-metric-info.c)
 "Probability that a random target pixel scores higher than a random pixel outside the target (ties count ½); 0.5 = chance":
   "Wahrscheinlichkeit, dass ein zufälliges Zielpixel höher bewertet wird als ein zufälliges Pixel außerhalb des Ziels (Gleichstände zählen ½); 0,5 = Zufall",
 "Average precision: the precision of the map's pixels, taken in decreasing order, averaged over the target pixels they recover":
   "Mittlere Präzision: die Präzision der Pixel der Karte, absteigend genommen, gemittelt über die Zielpixel, die sie erfassen",
 "Share of the map's positive mass that lies in the target": "Anteil der positiven Masse der Karte, der im Ziel liegt",
 "1 when the map's highest pixel lies in the target, else 0": "1, wenn das höchste Pixel der Karte im Ziel liegt, sonst 0",
 "Overlap (intersection over union) of the target with the map thresholded by Otsu's method":
   "Überlappung (Schnitt durch Vereinigung) des Ziels mit der nach Otsu geschwellten Karte",
 "Share of the map's n highest pixels (n = the target's size) that lie in the target":
   "Anteil der n höchsten Pixel der Karte (n = Größe des Ziels), die im Ziel liegen",
 "Contrast-to-noise ratio: |mean inside − mean outside the target| / √(variance inside + variance outside)":
   "Kontrast-Rausch-Verhältnis: |Mittel innen − Mittel außerhalb des Ziels| / √(Varianz innen + Varianz außen)",
 "Entropy (nats) of the map's positive mass over its grid cells: low = focused, ln(cells) = spread evenly":
   "Entropie (nats) der positiven Masse der Karte über ihre Rasterzellen: niedrig = gebündelt, ln(Zellen) = gleichmäßig verteilt",
 "Entropy divided by ln(h·w): 0 = all on one cell, 1 = spread evenly over the grid":
   "Entropie geteilt durch ln(h·w): 0 = alles auf einer Zelle, 1 = gleichmäßig über das Raster verteilt",
 "Attention the model put on its “No Attn” slot instead of the image":
   "Aufmerksamkeit, die das Modell auf seinen „No Attn“-Platz statt auf das Bild legt",
 "(mass on the patient's left − mass on the right) / both: +1 all on the patient's left (image right), −1 all on the patient's right":
   "(Masse links beim Patienten − Masse rechts) / beide: +1 alles links beim Patienten (rechts im Bild), −1 alles rechts beim Patienten",
 "1 when the map and its own target lie on opposite sides (both |laterality| ≥ 0.2), else 0; not scored for a swapped prompt":
   "1, wenn Karte und ihr eigenes Ziel auf entgegengesetzten Seiten liegen (beide |Lateralität| ≥ 0,2), sonst 0; für eine vertauschte Eingabe nicht bewertet",
 "Symmetric Kullback–Leibler divergence between two maps of the same image (as distributions over the grid); 0 = the same map":
   "Symmetrische Kullback-Leibler-Divergenz zwischen zwei Karten desselben Bildes (als Verteilungen über das Raster); 0 = dieselbe Karte",
 "How far the map of the left/right-swapped prompt moved toward the side the swapped words name, sign(t)·(l_A − l_B)/2; ≥ 0.1 followed the words, ≤ −0.1 moved the wrong way":
   "Wie weit die Karte der links/rechts vertauschten Eingabe zu der Seite gewandert ist, die die vertauschten Wörter nennen, sign(t)·(l_A − l_B)/2; ≥ 0,1 den Worten gefolgt, ≤ −0,1 in die falsche Richtung gewandert",
 "higher is better": "höher ist besser",
 "lower is better": "niedriger ist besser",
 "neither better nor worse: it describes the map": "weder besser noch schlechter: beschreibt die Karte",
 "%s\nRange: %s · %s": "%s\nBereich: %s · %s",
})
for k in (5, 10, 20, 30):
  T["Overlap (intersection over union) of the map's top %d %% pixels with the target" % k] = \
    "Überlappung (Schnitt durch Vereinigung) der oberen %d %% Pixel der Karte mit dem Ziel" % k
  T["Share of the map's top %d %% pixels that lie in the target" % k] = \
    "Anteil der oberen %d %% Pixel der Karte, die im Ziel liegen" % k
  T["Share of the target covered by the map's top %d %% pixels" % k] = \
    "Anteil des Ziels, den die oberen %d %% Pixel der Karte abdecken" % k
T.update({
 # the locked, staged dataset writer (hs-dataset-writer.c)
 "%s: cannot %s: %s": "%s: Fehler beim %s: %s",
 "read the folder": "Lesen des Ordners",
 "open": "Öffnen",
 "sync": "Synchronisieren",
 "read": "Lesen",
 "lock": "Sperren",
 "create the folder": "Anlegen des Ordners",
 "open the folder": "Öffnen des Ordners",
 "create the lock file": "Anlegen der Sperrdatei",
 "rename the new dataset into place": "Umbenennen des neuen Datensatzes an seinen Platz",
 "move the old dataset aside": "Beiseiteschieben des alten Datensatzes",
 "%s: not a folder name a dataset can be written to": "%s: kein Ordnername, in den ein Datensatz geschrieben werden kann",
 "%s: the dataset is locked by another writer (%s); try again when it has finished":
   "%s: der Datensatz ist von einem anderen Schreiber gesperrt (%s); erneut versuchen, wenn er fertig ist",
 "%s: the dataset is locked by another writer; try again when it has finished":
   "%s: der Datensatz ist von einem anderen Schreiber gesperrt; erneut versuchen, wenn er fertig ist",
 "%s: the lock held is for another dataset (%s)": "%s: die gehaltene Sperre gilt einem anderen Datensatz (%s)",
 "%s: is a symbolic link; a dataset writer replaces the folder itself, so name the folder the link leads to":
   "%s: ist ein symbolischer Link; ein Datensatz-Schreiber ersetzt den Ordner selbst, also den Ordner angeben, auf den der Link zeigt",
 "%s: exists and is not a folder": "%s: existiert und ist kein Ordner",
 "%s: the folder is not empty and holds no dataset (%s); refusing to replace it":
   "%s: der Ordner ist nicht leer und enthält keinen Datensatz (%s); er wird nicht ersetzt",
 "%s: the dataset is not in the staging folder %s": "%s: der Datensatz liegt nicht im Bereitstellungsordner %s",
 "box [%g, %g, %g, %g] has no pixel of the %u × %u image inside (no pixel centre lies in it)":
   "Rahmen [%g, %g, %g, %g] enthält kein Pixel des Bildes mit %u × %u (kein Pixelmittelpunkt liegt darin)",
 "region \"%s\": %s": "Region „%s“: %s",
})
T.update({
 # DICOM decoded in heatscope-dicom-helper (hs-dicom-client.c)
 "%s: cannot run the DICOM decoder (%s): %s": "%s: der DICOM-Decoder kann nicht ausgeführt werden (%s): %s",
 "%s: damaged or unsupported DICOM file: GDCM stopped its decoder (%s) at %s":
   "%s: beschädigte oder nicht unterstützte DICOM-Datei: GDCM hat seinen Decoder angehalten (%s) bei %s",
 "%s: the DICOM decoder %s failed (exit status %d): %s":
   "%s: der DICOM-Decoder %s ist fehlgeschlagen (Exit-Status %d): %s",
 "%s: the DICOM decoder %s gave no answer of this version of Heatscope":
   "%s: der DICOM-Decoder %s hat keine Antwort dieser Heatscope-Version gegeben",
 "%s: the DICOM decoder %s gave a malformed answer": "%s: der DICOM-Decoder %s hat eine fehlerhafte Antwort gegeben",
 # rows of `metrics` and the results table (hs-score-rows.c)
 "instance \"%s\", query \"%s\", model \"%s\": %s (deltas null)":
   "Fall \"%s\", Satz \"%s\", Modell \"%s\": %s (Deltas leer)",
 "instance \"%s\", query \"%s\", model \"%s\": %s: %s (deltas null)":
   "Fall \"%s\", Satz \"%s\", Modell \"%s\": %s: %s (Deltas leer)",
 "instance \"%s\", query \"%s\": %s (%u rows skipped)":
   "Fall \"%s\", Satz \"%s\": %s (%u Zeilen übersprungen)",
 "instance \"%s\", query \"%s\", model \"%s\": %s":
   "Fall \"%s\", Satz \"%s\", Modell \"%s\": %s",
 "%s: instance \"%s\": %s (%u rows skipped)":
   "%s: Fall \"%s\": %s (%u Zeilen übersprungen)",
})
T.update({
 # attending a whole dataset (hs-attend-runner.c)
 "%s: cannot read the model file: %s": "%s: die Modelldatei kann nicht gelesen werden: %s",
 '%s: the maps of "%s" were computed by %s, not %s; choose another name, or recompute them with --force':
   '%s: die Karten von „%s“ wurden mit %s berechnet, nicht mit %s; einen anderen Namen wählen oder sie mit --force neu berechnen',
 '%s: instance "%s" is gone from the manifest (another writer replaced the dataset)':
   '%s: Fall „%s“ fehlt im Manifest (ein anderer Schreiber hat den Datensatz ersetzt)',
 "give either a model or a backend command": "entweder ein Modell oder einen Backend-Befehl angeben",
 "a backend needs a model name for its maps": "ein Backend braucht einen Modellnamen für seine Karten",
 "shard %u of %u does not exist": "Teil %u von %u gibt es nicht",
 "%s: cannot create the folder: %s": "%s: der Ordner kann nicht angelegt werden: %s",
 "%s: is not a folder (a symbolic link or a file); maps are written only into the dataset's own maps folder":
   "%s: ist kein Ordner (ein symbolischer Link oder eine Datei); Karten werden nur in den eigenen Kartenordner des Datensatzes geschrieben",
 "%s: another writer replaced the dataset since it was opened; not saved (open it again)":
   "%s: ein anderer Schreiber hat den Datensatz ersetzt, seit er geöffnet wurde; nicht gespeichert (erneut öffnen)",
 # the read-out and badge under a map (hs-panel-readout.c): the compare view and every figure
 "%+.2f (patient’s left)": "%+.2f (links beim Patienten)",
 "%+.2f (patient’s right)": "%+.2f (rechts beim Patienten)",
 "%+.2f (central)": "%+.2f (mittig)",
 "Laterality %s · target %s · wrong side n/a (no target side)":
   "Seitigkeit %s · Ziel %s · falsche Seite k. A. (Ziel ohne Seite)",
 "Laterality %s · target %s": "Seitigkeit %s · Ziel %s",
 "WRONG SIDE": "FALSCHE SEITE",
 "same side": "gleiche Seite",
 "no clear side": "keine klare Seite",
 "no map of the original prompt": "keine Karte der ursprünglichen Eingabe",
 "Scored against the original target: AUROC %s · laterality %s · swap response n/a (%s)":
   "Am ursprünglichen Ziel bewertet: AUROC %s · Seitigkeit %s · Tauschantwort k. A. (%s)",
 "Scored against the original target: AUROC %s · laterality %s · swap response %+.2f":
   "Am ursprünglichen Ziel bewertet: AUROC %s · Seitigkeit %s · Tauschantwort %+.2f",
 "Diverging scale ±%.3g · symmetric KL n/a": "Divergierende Skala ±%.3g · symmetrische KL k. A.",
 "Diverging scale ±%.3g · symmetric KL %.3f": "Divergierende Skala ±%.3g · symmetrische KL %.3f",
})

T.update({
 # MRI lesion benchmark (hs-mri-lesions.c, hs-mri-phantom.c, hs-mri-writer.c)
 "lesion intensity w must lie in [0, 2] and differ from 1 (w = 1 changes nothing)":
   "die Läsionsintensität w muss in [0, 2] liegen und von 1 verschieden sein (w = 1 ändert nichts)",
 "lesion counts need 1 ≤ min ≤ max ≤ 64": "die Läsionsanzahlen brauchen 1 ≤ min ≤ max ≤ 64",
 "compactness thresholds need 0 < irregular ≤ regular < 2":
   "die Kompaktheitsschwellen brauchen 0 < irregulär ≤ regulär < 2",
 "smoothing must lie in (0, 32] px and the edge σ in [0, 8] px":
   "die Glättung muss in (0, 32] px liegen und das σ der Ränder in [0, 8] px",
 "the margin must be at most 16 px and the noise field 16 to 1024 px":
   "der Rand darf höchstens 16 px betragen und das Rauschfeld 16 bis 1024 px",
 "lesion areas need 1 ≤ min ≤ max": "die Läsionsflächen brauchen 1 ≤ min ≤ max",
 "only %u of %u %s lesions fit into the slice's tissue (a larger slice or fewer lesions would help)":
   "nur %u von %u Läsionen (%s) passen in das Gewebe der Schicht (eine größere Schicht oder weniger Läsionen würden helfen)",
 "brain phantom size %u×%u: each side must be between %u and 8192 pixels":
   "Größe des Hirnphantoms %u×%u: jede Seite muss zwischen %u und 8192 Pixeln liegen",
 "brain phantom size %u×%u is over the limit of %<PRIu64> pixels":
   "Größe des Hirnphantoms %u×%u liegt über der Grenze von %<PRIu64> Pixeln",
 "%s: not a folder of slices": "%s: kein Ordner mit Schichten",
 "%s: no such folder": "%s: Ordner nicht gefunden",
 "%s: no slices in the folder (PNG, JPEG or DICOM)": "%s: keine Schichten im Ordner (PNG, JPEG oder DICOM)",
 "%s: slice %u×%u is too small (at least %u×%u pixels)":
   "%s: Schicht %u×%u ist zu klein (mindestens %u×%u Pixel)",
 "brain phantom size %u×%u is below the minimum of %u pixels":
   "Größe des Hirnphantoms %u×%u liegt unter dem Minimum von %u Pixeln",
})

# Decks (hs-deck.c)
T.update({
 "%s: the path \"%s\" leaves the deck's folder (absolute, \"..\" or empty parts)":
   "%s: Der Pfad „%s“ verlässt den Ordner des Vortrags (absolut, „..“ oder leere Teile)",
 "%s: the path \"%s\" leads out of the deck's folder through a symlink":
   "%s: Der Pfad „%s“ führt über einen symbolischen Link aus dem Ordner des Vortrags hinaus",
 "control character U+%04X": "Steuerzeichen U+%04X",
 "expected 64 lower-case hexadecimal digits": "64 kleingeschriebene Hexadezimalziffern erwartet",
 "expected an object": "Objekt erwartet",
 "unknown value \"%s\"": "unbekannter Wert „%s“",
 "\"min\" must be below \"max\"": "„min“ muss kleiner als „max“ sein",
 "\"percentile_low\" must be below \"percentile_high\"": "„percentile_low“ muss kleiner als „percentile_high“ sein",
 "expected an array of 1 to %d models": "Liste von 1 bis %d Modellen erwartet",
 "expected a model object": "Modell-Objekt erwartet",
 "\"%s\" is not a built-in model (%s)": "„%s“ ist kein eingebautes Modell (%s)",
 "expected an array of at most %u strings": "Liste von höchstens %u Zeichenketten erwartet",
 "unknown metric \"%s\"": "unbekannte Kennzahl „%s“",
 "the path \"%s\" leaves the deck's folder (absolute, \"..\" or empty parts)":
   "der Pfad „%s“ verlässt den Ordner des Vortrags (absolut, „..“ oder leere Teile)",
 "expected a case object": "Folien-Objekt erwartet",
 "expected a sentence number from 1": "Satznummer ab 1 erwartet",
 "a case needs one of \"sentence\" (a number from 1) or a non-empty \"prompt\"":
   "eine Folie braucht entweder „sentence“ (eine Nummer ab 1) oder einen nicht leeren „prompt“",
 "a free \"prompt\" needs a live model": "ein freier „prompt“ braucht ein laufendes Modell",
 "a swapped case needs a \"sentence\": it is scored against that sentence's target":
   "eine vertauschte Folie braucht einen „sentence“: er wird am Ziel dieses Satzes bewertet",
 "expected a deck object": "Vortrags-Objekt erwartet",
 "expected \"heatscope-deck\"": "„heatscope-deck“ erwartet",
 "version %lld is not one this Heatscope reads (%d)": "Version %lld kann dieses Heatscope nicht lesen (%d)",
 "expected an array of cases": "Liste von Folien erwartet",
 "%u cases, more than %d": "%u Folien, mehr als %d",
 "case %u": "Folie %u",
 "%s: %zu bytes, over the limit of %d for a deck": "%s: %zu Bytes, über der Grenze von %d für einen Vortrag",
})

# Decks against their dataset (hs-deck-check.c)
T.update({
 "%s: cannot find the folder %s": "%s: Der Ordner %s ist nicht zu finden",
 "%s: the dataset %s is not in the deck's folder %s or below it (save the deck beside or inside the dataset)":
   "%s: Der Datensatz %s liegt nicht im Ordner %s des Vortrags oder darunter (den Vortrag neben oder im Datensatz speichern)",
 "%s: the dataset \"%s\" is missing or moved (%s)": "%s: Der Datensatz „%s“ fehlt oder wurde verschoben (%s)",
 "%s: the dataset: %s": "%s: der Datensatz: %s",
 "%s: case %u: %s": "%s: Folie %u: %s",
 "instance \"%s\" is not in the dataset": "Fall „%s“ ist nicht im Datensatz",
 "instance \"%s\" has %u sentences, not %u": "Fall „%s“ hat %u Sätze, nicht %u",
 "sentence %u of instance \"%s\" changed: it reads \"%s\", the deck saved \"%s\"":
   "Satz %u von Fall „%s“ hat sich geändert: er lautet „%s“, gespeichert war „%s“",
 "model \"%s\" is not live: a free prompt needs a live model":
   "Modell „%s“ läuft nicht live: eine freie Eingabe braucht ein laufendes Modell",
 "model \"%s\" has no map of instance \"%s\" sentence %u (%s)":
   "Modell „%s“ hat keine Karte von Fall „%s“, Satz %u (%s)",
 "model \"%s\" has no map of instance \"%s\" for the swapped prompt \"%s\"":
   "Modell „%s“ hat keine Karte von Fall „%s“ für die vertauschte Eingabe „%s“",
 "%u embedded maps for %u maps shown": "%u eingebettete Karten für %u gezeigte Karten",
 "model \"%s\" has no map for it": "Modell „%s“ hat keine Karte dafür",
 "%s: the dataset \"%s\" changed since the deck was saved (manifest SHA-256 %.12s…, saved %.12s…)":
   "%s: Der Datensatz „%s“ hat sich seit dem Speichern des Vortrags geändert (Manifest-SHA-256 %.12s…, gespeichert %.12s…)",
 "%s: case %u: re-attended by the live model, the map differs from the one saved (SHA-256 %.12s…, saved %.12s…)":
   "%s: Folie %u: vom laufenden Modell neu berechnet, weicht die Karte von der gespeicherten ab (SHA-256 %.12s…, gespeichert %.12s…)",
 "%s: case %u: the map differs from the one saved (SHA-256 %.12s…, saved %.12s…): one of its files changed: %s":
   "%s: Folie %u: Die Karte weicht von der gespeicherten ab (SHA-256 %.12s…, gespeichert %.12s…): eine ihrer Dateien hat sich geändert: %s",
 "%s: case %u: %s: the map of model \"%s\"%s differs from the one saved (SHA-256 %.12s…, saved %.12s…): the file changed":
   "%s: Folie %u: %s: Die Karte des Modells „%s“%s weicht von der gespeicherten ab (SHA-256 %.12s…, gespeichert %.12s…): die Datei hat sich geändert",
 "%s: case %u: the live model \"%s\" attended again%s: its map differs from the one saved (SHA-256 %.12s…, saved %.12s…)":
   "%s: Folie %u: Das laufende Modell „%s“ hat neu berechnet%s: seine Karte weicht von der gespeicherten ab (SHA-256 %.12s…, gespeichert %.12s…)",
 " for the swapped prompt": " für die vertauschte Eingabe",
})

# co-attention (a map's tag_attention)
T.update({
 "a {tag, weight} object": "ein {tag, weight}-Objekt",
 "a tag must be one line of at most %d characters": "ein Tag muss eine Zeile mit höchstens %d Zeichen sein",
 "a tag weight must not be negative": "ein Tag-Gewicht darf nicht negativ sein",
 "an array of {tag, weight} objects": "ein Array von {tag, weight}-Objekten",
 "%u tags (a tag attention has 1 to %d tags)": "%u Tags (eine Tag-Aufmerksamkeit hat 1 bis %d Tags)",
 'tag "%s" is listed twice': "Tag „%s“ ist doppelt aufgeführt",
 # tag-attention entropy (hs-metric-info.c)
 "Entropy (nats) of the map's tag attention (co-attention: a report generator's weights over its tags): 0 = all on one tag, ln(n) = spread evenly over the n tags":
   "Entropie (nats) der Tag-Aufmerksamkeit der Karte (Ko-Aufmerksamkeit: die Gewichte eines Berichtsgenerators über seine Tags): 0 = alles auf einem Tag, ln(n) = gleichmäßig über die n Tags verteilt",
 "Tag entropy divided by ln(n), n = the number of tags listed: 0 = all on one tag, 1 = spread evenly; comparable across tag counts":
   "Tag-Entropie geteilt durch ln(n), n = Zahl der aufgeführten Tags: 0 = alles auf einem Tag, 1 = gleichmäßig verteilt; vergleichbar über verschiedene Tag-Zahlen",
 "the tag weights sum to %g, not 1 (within %g)": "die Tag-Gewichte ergeben in Summe %g, nicht 1 (auf %g genau)",
})

# tag-attention strips in figures (hs-tag-bars.c)
T.update({
 "tag attention · normalised entropy %s": "Tag-Aufmerksamkeit · normierte Entropie %s",
 "tag attention": "Tag-Aufmerksamkeit",
 "+ %u more tags (together %s)": "+ %u weitere Tags (zusammen %s)",
})
T.update({
 # the modality an import records (hs-import.c, hs_import_check_modality;
 # the value's problem, after "--modality " or "modality ")
 "\"%s\": not UTF-8 text": "\"%s\": kein UTF-8-Text",
 "\"%s\": a control character in it": "\"%s\": enthält ein Steuerzeichen",
 "\"%s\": no letter in it (say e.g. MR or CR)": "\"%s\": enthält keinen Buchstaben (z. B. MR oder CR angeben)",
 "\"%s\": longer than %d characters": "\"%s\": länger als %d Zeichen",
 "\"%s\": npy-folder attaches maps and writes no instances": "\"%s\": npy-folder hängt Karten an und schreibt keine Fälle",
 "modality ": "Modalität ",
})
