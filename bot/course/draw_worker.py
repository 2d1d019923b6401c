"""The process the course's pictures are drawn in (`python -m bot.course.draw_worker`,
started by bot/course/drawing.py through bot/worker_process.py): only DRAWERS may be
called."""

from __future__ import annotations

from bot.course import chart
from bot.worker_process import serve

DRAWERS = {"picture": chart.picture, "svgs": chart.svgs, "cjk_font": chart.cjk_font,
           "warm": chart.warm}

if __name__ == "__main__":
    serve(DRAWERS)
