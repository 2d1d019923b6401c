"""The gallery: every message state of a fixed set of class scenarios, run against the fakes
and drawn as Telegram would, at phone and projector size, in Chinese and English.

`scripts/gallery` writes build/gallery.html (and with `--pictures DIR`, PNGs for README).
"""
