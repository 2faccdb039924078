"""The classes of Unicode issue the analysis reports."""

# Finding classes; each maps to one rule of rules/hardened/obfuscation.yaml (the `unicode` view).
TAG_SMUGGLING = "tag-smuggling"
VARIATION_PAYLOAD = "variation-selector-payload"
BIDI_CONTROL = "bidi-control"
BIDI_MARK = "bidi-mark"
INVISIBLE = "invisible-character"
WORD_SPLIT = "invisible-splits-word"
CONTROL = "control-character"
ANSI = "ansi-escape"
STACKED_MARKS = "stacked-combining-marks"
HOMOGLYPH = "mixed-script-homoglyph"
SOFT_HYPHEN = "soft-hyphen"
