#!/usr/bin/env python3
"""Regenerates the `width_fold` char filter in mappings/analysis.json from Unicode NFKC.

Covers full-width ASCII (U+FF01-FF5E), half-width katakana (U+FF61-FF9F) including the
two-character voiced forms (ｶﾞ -> ガ), and the ideographic space. The filter runs before the
n-gram tokenizer, so a folded character never splits a gram.
"""
import json
import pathlib
import unicodedata

path = pathlib.Path(__file__).resolve().parent.parent / "mappings" / "analysis.json"


def rules():
    out = []
    for c in range(0xFF61, 0xFFA0):
        for mark in ("\uFF9E", "\uFF9F"):
            folded = unicodedata.normalize("NFKC", chr(c) + mark)
            if len(folded) == 1:
                out.append(f"{chr(c)}{mark}=>{folded}")
    for c in [*range(0xFF01, 0xFF5F), *range(0xFF61, 0xFFA0)]:
        folded = unicodedata.normalize("NFKC", chr(c))
        if folded != chr(c):
            out.append(f"{chr(c)}=>{folded.replace(chr(92), chr(92) * 2)}")
    out.append("\u3000=>\\u0020")
    return out


settings = json.loads(path.read_text(encoding="utf-8"))
settings["analysis"]["char_filter"]["width_fold"] = {"type": "mapping", "mappings": rules()}
path.write_text(json.dumps(settings, ensure_ascii=False, indent=2) + "\n", encoding="utf-8")
