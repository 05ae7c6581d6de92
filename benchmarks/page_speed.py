"""How fast the web table draws on a slow phone: Chromium's CPU throttled (4x by default,
``Emulation.setCPUThrottlingRate`` over a CDP session), Debian's ``/usr/bin/chromium``.

Serves the app in a process of its own (uvicorn, a fresh SQLite file, no worker processes: a
server in this process would share its interpreter with the browser's driver, and answer the
page only when the driver lets it), then on a phone viewport (390x844, touch):

* **first render**: opens a seat's table (a person against a ``random`` bot) and times, in
  the page, from the navigation's start to the first frame painted with the table drawn
  (``#status`` in the page, seen by a ``MutationObserver``, then the next frame), with the
  CDP ``ScriptDuration`` (JavaScript run) of that load; also as Playwright sees it (polling
  for ``#status``, then asking the page the time: later by a round trip to a throttled page);
* **updates**: watches ``--games`` games of two ``random`` bots and times each state the
  table draws (``update()``: joining the events, drawing, the layout that the motion reads,
  starting the motion), in the page, and the CDP ``ScriptDuration`` of the whole game divided
  by the states drawn (JavaScript only);
* **transfer**: the bytes the table's page fetched on its first (uncached) load (HTML, CSS,
  modules, words, icons) as sent, compressed where the server compresses, from the page's
  Resource Timing.

    .venv/bin/python benchmarks/page_speed.py --games 3 --throttle 4

The issue's targets: first render <= 1 s, each update <= 50 ms of scripting, throttled 4x.
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path
from typing import Any

import click
from playwright.sync_api import CDPSession, Page, sync_playwright
from serving import free_port

CHROMIUM = "/usr/bin/chromium"
MARKS: list[list[int]] = []  # per first render: ms to the socket's opening, to its first state
PHONE = {"width": 390, "height": 844}

# Marks the first frame painted with the table drawn: `#status` in the page, then the frame.
MARK_DRAWN = """
new MutationObserver((_, seen) => {
  if (!document.getElementById("status")) return;
  seen.disconnect();
  requestAnimationFrame(() => setTimeout(() => performance.mark("gotown:drawn")));
}).observe(document, { childList: true, subtree: true });
"""

# Times each update() of the open table, in the page (the socket's handler calls it by name).
WRAP_UPDATES = """() => {
  const table = gotown.table();
  const update = table.update.bind(table);
  window.updateTimes = [];
  table.update = (state) => {
    const start = performance.now();
    update(state);
    window.updateTimes.push(performance.now() - start);
  };
}"""


def _post(url: str, body: dict[str, Any]) -> Any:
    request = urllib.request.Request(
        url, data=json.dumps(body).encode(), headers={"content-type": "application/json"}
    )
    with urllib.request.urlopen(request) as response:
        return json.load(response)


def _script_seconds(cdp: CDPSession) -> float:
    metrics = cdp.send("Performance.getMetrics")["metrics"]
    return float(next(m["value"] for m in metrics if m["name"] == "ScriptDuration"))


def _first_render(page: Page, cdp: CDPSession, url: str) -> tuple[float, float, float]:
    """Milliseconds to the drawn table's first frame, of JavaScript run meanwhile, and to the
    drawn table as Playwright sees it."""
    before = _script_seconds(cdp)
    page.goto(url)
    page.wait_for_selector("#status")
    seen = float(page.evaluate("performance.now()"))
    page.wait_for_function("performance.getEntriesByName('gotown:drawn').length > 0")
    drawn = float(page.evaluate("performance.getEntriesByName('gotown:drawn')[0].startTime"))
    marks = page.evaluate(
        "['gotown:socket-open', 'gotown:first-state'].map("
        "(n) => Math.round(performance.getEntriesByName(n)[0]?.startTime ?? -1))"
    )
    MARKS.append(marks)
    return drawn, (_script_seconds(cdp) - before) * 1000, seen


def _transfer(page: Page) -> dict[str, int]:
    sizes: dict[str, int] = page.evaluate(
        """() => {
          const out = {};
          const add = (kind, n) => { out[kind] = (out[kind] || 0) + n; };
          for (const e of performance.getEntriesByType('navigation')) add('html', e.transferSize);
          for (const e of performance.getEntriesByType('resource')) {
            if (e.name.includes('/api/') || e.name.startsWith('ws')) continue;
            const ext = e.name.split('?')[0].split('.').pop();
            add({ js: 'modules', css: 'css', json: 'words', svg: 'images', png: 'images',
                  webmanifest: 'manifest' }[ext] || ext, e.transferSize);
          }
          return out;
        }"""
    )
    return sizes


@click.command()
@click.option("--games", default=2, show_default=True, help="bots' games to watch")
@click.option("--throttle", default=4.0, show_default=True, help="CPU slow-down factor")
def main(games: int, throttle: float) -> None:
    """Print the table's first render, its update times and its transfer size."""
    folder = Path(tempfile.mkdtemp(prefix="gotown-page-speed-"))
    port = free_port()
    server = _serve(folder / "page.sqlite3", port)
    base = f"http://127.0.0.1:{port}"
    try:
        _measure(base, games, throttle)
    finally:
        server.terminate()
        server.wait(10)


def _serve(database: Path, port: int) -> subprocess.Popen[bytes]:
    """``gotown.server`` in a uvicorn process of its own, once it answers."""
    env = {
        **os.environ,
        "GOTOWN_DATABASE_URL": f"sqlite:///{database}",
        "GOTOWN_BOT_DELAY": "0.2",
        "GOTOWN_RATE_LIMIT": "0",
        "GOTOWN_WORKER_PROCESSES": "0",
        "GOTOWN_MAX_BOTS_ONLY_TABLES": "1000",
        "GOTOWN_MAX_BOTS_ONLY_TABLES_PER_CLIENT": "1000",
    }
    factory = "gotown.server.main:create_app_from_env"
    command = [sys.executable, "-m", "uvicorn", "--factory", factory,
               "--host", "127.0.0.1", "--port", str(port), "--log-level", "warning"]  # fmt: skip
    server = subprocess.Popen(command, env=env)
    for _ in range(600):
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=1):
                return server
        except OSError:
            time.sleep(0.05)
    server.terminate()
    raise click.ClickException("the server did not start")


def _measure(base: str, games: int, throttle: float) -> None:
    from rich.console import Console
    from rich.progress import track
    from rich.table import Table

    firsts: list[tuple[float, float, float]] = []
    updates: list[float] = []
    scripting: list[float] = []  # per game: JavaScript run while watching / states drawn
    transfer: dict[str, int] = {}
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=CHROMIUM, args=["--headless", "--no-sandbox"])
        context = browser.new_context(viewport=PHONE, is_mobile=True, has_touch=True)
        context.add_init_script(MARK_DRAWN)
        for _ in track(range(games), description="games"):
            page = context.new_page()
            cdp = context.new_cdp_session(page)
            cdp.send("Performance.enable")
            cdp.send("Emulation.setCPUThrottlingRate", {"rate": throttle})
            seat = _post(
                base + "/api/games",
                {"seats": [{"kind": "human"}, {"kind": "bot", "level": "random"}], "name": "Ann"},
            )
            firsts.append(_first_render(page, cdp, seat["play_url"]))
            if not transfer:
                transfer = _transfer(page)
            watched = _post(
                base + "/api/games",
                {"seats": [{"kind": "bot", "level": "random"}] * 2, "options": {"win_floors": 4}},
            )
            page.goto(watched["watch_url"])
            page.wait_for_selector("#status")
            page.evaluate(WRAP_UPDATES)
            before = _script_seconds(cdp)
            page.wait_for_selector("#winner", timeout=300_000)
            times = page.evaluate("window.updateTimes")
            updates += times
            scripting.append((_script_seconds(cdp) - before) * 1000 / max(1, len(times)))
            page.close()
        browser.close()

    def q(values: list[float], share: float) -> float:
        ordered = sorted(values)
        return ordered[min(len(ordered) - 1, int(share * len(ordered)))]

    out = Table(title=f"The table on a phone, CPU throttled {throttle:g}x")
    for column in ("measure", "count", "median ms", "p90 ms", "max ms"):
        out.add_column(column, justify="right" if column != "measure" else "left")
    render = [f for f, _, _ in firsts]
    script = [s for _, s, _ in firsts]
    polled = [p for _, _, p in firsts]
    for name, values in (
        ("first render (navigation to table)", render),
        ("  of it JavaScript (ScriptDuration)", script),
        ("  as Playwright sees it (polling)", polled),
        ("update (one state drawn, with layout)", updates),
        ("  JavaScript per update (per game)", scripting),
    ):
        out.add_row(
            name,
            str(len(values)),
            f"{statistics.median(values):.1f}",
            f"{q(values, 0.9):.1f}",
            f"{max(values):.1f}",
        )
    console = Console()
    console.print(out)
    for opened, first in MARKS:
        console.print(f"first render: socket open at {opened} ms, first state at {first} ms")
    total = sum(transfer.values())
    parts = ", ".join(f"{k} {v / 1024:.1f} KiB" for k, v in sorted(transfer.items()))
    console.print(f"transfer of the table's page: {total / 1024:.1f} KiB ({parts}), as sent")


if __name__ == "__main__":
    main()
