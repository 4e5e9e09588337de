# German translations of libheatscope (gettext domain heatscope-lib), keyed
# by msgid (or (msgctxt, msgid), or (msgid, msgid_plural)).  po-lib/de.po is
# generated from po-lib/heatscope-lib.pot with these by `po/fill-po.py de
# po-lib`; a string missing here makes it fail.  Terms as in po/de-strings.py
# (instance = Fall, map = Karte, manifest = Manifest, region = Region).
T = {
 # colour bar scale labels (hs-overlay.c)
 "percentile %s–%s %%%s": "Perzentil %s–%s %%%s",
 "min–max %s–%s%s": "Min–Max %s–%s%s",
 "shared %s–%s%s": "gemeinsam %s–%s%s",
 "fixed %s–%s%s": "fest %s–%s%s",
}
