"""The built documentation as a reader sees it, in headless Chromium (issue 43's judged lines).

Three checks on a site built by ``sphinx-build -b html docs docs/_build/html``:

* **no sideways scroll**: at 390 px (a phone) and 1280 px (a desktop), no page and no code block, table or
  rendered formula is wider than its box (a script injected into a copy of each page measures
  ``scrollWidth`` against ``clientWidth`` after load);
* **the API sidebar grouped by module**: the API reference's page carries the "By module" caption and a
  sidebar entry for each public module page;
* **search**: the site's own search for "csv" lists the own-data page first.

Usage::

    python docs/check_rendering.py docs/_build/html            # every page (~3 min at 2 x ~150 pages)
    python docs/check_rendering.py docs/_build/html api user_guide   # pages whose path matches a pattern

Needs ``chromium`` on PATH (Debian's package). Exits non-zero when a check fails. Not part of CI (no browser
there); run it after a change of the theme, the CSS or the API pages' structure. Last run: docs/install.md.
"""
from __future__ import annotations

import html
import json
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

MEASURE = """<script>
window.addEventListener('load', function () {
  var out = {page: document.documentElement.scrollWidth > window.innerWidth + 1, wide: []};
  document.querySelectorAll('pre, div.highlight, table, .math, mjx-container').forEach(function (e) {
    if (e.scrollWidth > e.clientWidth + 1) out.wide.push(e.tagName + '.' + (e.className || ''));
  });
  var d = document.createElement('div'); d.id = 'rendering-result'; d.textContent = JSON.stringify(out);
  document.body.appendChild(d);
});
</script>"""
WIDTHS = (390, 1280)
MODULE_PAGES = ("noise", "tabular", "linear_model", "kernel_model", "kernel_approximation", "multilabel", "fol",
                "mkl", "dask", "datasets", "plotting", "cli")


def chromium(url: str, width: int, budget_ms: int = 3000) -> str:
    """The DOM of ``url`` after load (and ``budget_ms`` of virtual time) at a window ``width`` px wide."""
    result = subprocess.run(["chromium", "--headless", "--no-sandbox", "--disable-gpu", f"--window-size={width},900",
                             f"--virtual-time-budget={budget_ms}", "--dump-dom", url],
                            capture_output=True, text=True, timeout=120)
    return result.stdout


def sideways_scroll(site: Path, patterns: list[str]) -> list[str]:
    """Pages (and the elements in them) wider than their box, at each width."""
    tmp = Path(tempfile.mkdtemp())
    copy = tmp / "site"
    shutil.copytree(site, copy)
    pages = sorted(p for p in copy.rglob("*.html") if "_static" not in p.parts and "_sources" not in p.parts)
    if patterns:
        pages = [p for p in pages if any(re.search(pat, str(p.relative_to(copy))) for pat in patterns)]
    for page in pages:
        page.write_text(page.read_text(errors="replace").replace("</body>", MEASURE + "</body>"))
    failures = []
    for width in WIDTHS:
        bad = 0
        for page in pages:
            name = str(page.relative_to(copy))
            found = re.search(r'<div id="rendering-result">(.*?)</div>', chromium(page.as_uri(), width))
            if not found:
                failures.append(f"{width} px {name}: the page did not finish loading")
                bad += 1
                continue
            result = json.loads(html.unescape(found.group(1)))
            if result["page"] or result["wide"]:
                failures.append(f"{width} px {name}: page wider than the window {result['page']}, "
                                f"elements wider than their box {result['wide'][:3]}")
                bad += 1
        print(f"{width} px: {len(pages)} pages, {bad} scroll sideways", flush=True)
    shutil.rmtree(tmp)
    return failures


def api_sidebar(site: Path) -> list[str]:
    """The API reference's sidebar: the module caption and one entry per module page."""
    dom = chromium((site / "api" / "index.html").as_uri(), 1280)
    sidebar = dom[dom.find('class="sidebar-tree"'):] if 'class="sidebar-tree"' in dom else dom
    failures = [] if "By module" in sidebar else ["api/index.html: no 'By module' caption in the sidebar"]
    failures += [f"api/index.html: no sidebar entry for api/{name}.html" for name in MODULE_PAGES
                 if f'{name}.html"' not in sidebar]
    print(f"API sidebar: {'grouped by module' if not failures else 'NOT grouped'}", flush=True)
    return failures


def search_first(site: Path, query: str, expected: str) -> list[str]:
    """The site search's result list for ``query``; a failure unless its first entry is ``expected``."""
    dom = chromium((site / "search.html").as_uri() + f"?q={query}", 1280, budget_ms=10000)
    results = dom[dom.find('id="search-results"'):] if 'id="search-results"' in dom else ""
    hits = re.findall(r'<li[^>]*>\s*<a[^>]*href="([^"?#]+)', results)
    print(f"search {query!r}: {len(hits)} results, first {hits[:3]}", flush=True)
    if not hits or not hits[0].endswith(expected):
        return [f"search {query!r}: first result {hits[:1]}, expected {expected}"]
    return []


def main(argv: list[str]) -> int:
    if not argv:
        print(__doc__)
        return 2
    if shutil.which("chromium") is None:
        print("chromium is not on PATH")
        return 2
    site, patterns = Path(argv[0]).resolve(), argv[1:]
    failures = sideways_scroll(site, patterns) + api_sidebar(site) + search_first(site, "csv", "own_data.html")
    for line in failures:
        print("FAIL", line)
    print("rendering checks:", "passed" if not failures else f"{len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
