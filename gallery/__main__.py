"""`python -m gallery [--out build/gallery.html] [--pictures DIR [--all]]`."""

from __future__ import annotations

import argparse
import asyncio
import logging
import sys
from pathlib import Path

from gallery.draw import page
from gallery.run import play_all


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/gallery", description=__doc__)
    parser.add_argument("--out", type=Path, default=Path("build/gallery.html"))
    parser.add_argument("--pictures", type=Path, metavar="DIR",
                        help="also write PNGs into DIR with chromium: the class board on a "
                             "projector (1280×720) after each board scenario, and phones")
    parser.add_argument("--all", action="store_true",
                        help="phone and Telegram Desktop pictures of every scenario, not "
                             "only README's")
    parser.add_argument("--fast", action="store_true", help="no streaming pace (for tests)")
    args = parser.parse_args(argv)
    logging.basicConfig(level=logging.ERROR)
    played = asyncio.run(play_all(delay=0.0 if args.fast else 0.03, boards=args.pictures))
    args.out.parent.mkdir(parents=True, exist_ok=True)
    args.out.write_text(page(played), "utf-8")
    print(f"{args.out}: {len(played)} scenarios", file=sys.stderr)
    if args.pictures:
        from gallery.pictures import README_SHOTS, take
        written = asyncio.run(take(args.out, args.pictures, None if args.all else README_SHOTS))
        boards = [p.board for p in played if p.board is not None]
        print(f"{args.pictures}: {len(written)} pictures and {len(boards)} of the board",
              file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
