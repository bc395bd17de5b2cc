"""The report page's style sheet and script, inlined into every page (no network when viewing).

Kept as Python strings so they travel with the package without package-data settings.
The script never builds markup from data: it only sorts rows, toggles ``hidden`` and sets
attributes read from ``data-*`` attributes or from JSON blocks parsed with ``JSON.parse``.
"""

CSS = """
:root { --ink: #1d2430; --muted: #5b6573; --line: #dfe3e8; --card: #ffffff; --bg: #f4f6f8;
        --accent: #2f6db3; --bad: #c8413f; --good: #3a9a5b; }
* { box-sizing: border-box; }
[hidden] { display: none !important; }
html { scroll-padding-top: 70px; }
body { margin: 0; background: var(--bg); color: var(--ink);
       font: 14px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }
header.top { background: #1d2430; color: #fff; padding: 14px 28px; position: sticky; top: 0; z-index: 5;
             display: flex; gap: 24px; align-items: baseline; flex-wrap: wrap; }
header.top h1 { font-size: 18px; margin: 0; font-weight: 600; }
header.top .subtitle { color: #b9c2cf; font-size: 13px; }
header.top nav { margin-left: auto; display: flex; gap: 16px; }
header.top nav a { color: #dce6f3; text-decoration: none; font-size: 13px; }
header.top nav a:hover { color: #fff; text-decoration: underline; }
main { max-width: 1240px; margin: 0 auto; padding: 20px 28px 60px; }
section { background: var(--card); border: 1px solid var(--line); border-radius: 8px; padding: 18px 22px;
          margin: 0 0 22px; scroll-margin-top: 64px; }
section > h2 { margin: 0 0 12px; font-size: 18px; }
h3 { font-size: 15px; margin: 18px 0 8px; }
h4 { font-size: 13px; margin: 14px 0 6px; color: var(--muted); text-transform: uppercase;
     letter-spacing: .04em; }
p.note, .note { color: var(--muted); }
.empty { color: var(--muted); font-style: italic; padding: 10px 0; }
code, pre { font: 12px/1.45 ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; }
pre { background: #f7f8fa; border: 1px solid var(--line); border-radius: 6px; padding: 10px 12px;
      overflow: auto; max-height: 460px; white-space: pre; margin: 6px 0; }
pre.wrap { white-space: pre-wrap; word-break: break-word; }
dl.summary { display: grid; grid-template-columns: max-content 1fr; gap: 4px 18px; margin: 0 0 12px; }
dl.summary dt { color: var(--muted); }
dl.summary dd { margin: 0; font-weight: 600; }
.cards { columns: 4 250px; column-gap: 12px; }
.card { border: 1px solid var(--line); border-radius: 6px; padding: 8px 12px; background: #fbfcfd;
        break-inside: avoid; margin: 0 0 12px; }
.card h4 { margin: 2px 0 6px; }
.card dl { display: grid; grid-template-columns: max-content 1fr; gap: 1px 12px; margin: 0;
          font-size: 12.5px; }
.card dt { color: var(--muted); }
.card dd { margin: 0; word-break: break-word; font-family: ui-monospace, Menlo, Consolas, monospace; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(460px, 1fr)); gap: 14px; }
.charts figure, figure.chart-empty { margin: 0; border: 1px solid var(--line); border-radius: 6px;
                                     padding: 6px; background: #fff; }
svg.chart, svg.scatter { width: 100%; height: auto; display: block; }
figure.chart-empty { padding: 14px 16px; min-height: 120px; }
figure.chart-empty figcaption { font-weight: 600; font-size: 15px; }
.alarm { border: 2px solid var(--bad); background: #fdf0ef; color: #7d1f1c; border-radius: 6px;
         padding: 10px 14px; margin: 0 0 14px; font-weight: 600; }
.ok { color: var(--good); }
.bad { color: var(--bad); }
table { border-collapse: collapse; width: 100%; font-size: 13px; }
th, td { text-align: left; padding: 5px 8px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { background: #eef1f4; font-weight: 600; white-space: nowrap; }
td.num, th.num { text-align: right; font-variant-numeric: tabular-nums; }
table.sortable th { cursor: pointer; user-select: none; position: sticky; top: 0; z-index: 1; }
table.sortable th::after { content: " \\2195"; color: #a3acb8; font-size: 11px; }
table.sortable th[aria-sort="ascending"]::after { content: " \\25B2"; color: var(--accent); }
table.sortable th[aria-sort="descending"]::after { content: " \\25BC"; color: var(--accent); }
.table-box { max-height: 62vh; overflow: auto; border: 1px solid var(--line); border-radius: 6px; }
tr.env-row { cursor: pointer; }
tr.env-row:hover { background: #f1f6fc; }
tr.env-row.selected { background: #dfeafa; }
td.reason { max-width: 380px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.env-detail { margin-top: 16px; border: 1px solid var(--accent); border-radius: 8px; padding: 12px 16px;
              background: #fcfdff; }
.env-detail h3 { margin-top: 0; }
.pill { display: inline-block; padding: 0 8px; border-radius: 10px; font-size: 12px; font-weight: 600; }
.pill.valid { background: #e3f3e8; color: #24693c; }
.pill.invalid { background: #fbe6e5; color: #8e2a27; }
.transcripts { display: grid; grid-template-columns: repeat(auto-fit, minmax(380px, 1fr)); gap: 12px; }
.msg { border-left: 3px solid var(--line); padding: 2px 8px; margin: 6px 0; }
.msg .role { font-size: 11px; font-weight: 700; text-transform: uppercase; color: var(--muted); }
.msg.user { border-color: #2f6db3; }
.msg.assistant { border-color: #e07b28; }
.msg.system { border-color: #8a939f; }
.msg.tool { border-color: #3a9a5b; background: #f4faf6; }
.msg pre { max-height: 240px; margin: 2px 0; }
.msg summary { cursor: pointer; color: var(--muted); font-size: 12px; }
.map-layout { display: grid; grid-template-columns: minmax(0, 2fr) minmax(220px, 1fr); gap: 16px;
              align-items: start; }
.segmented { display: inline-flex; border: 1px solid var(--line); border-radius: 6px; overflow: hidden;
             margin-bottom: 8px; }
.segmented button { border: 0; background: #fff; padding: 5px 12px; font: inherit; cursor: pointer;
                    border-right: 1px solid var(--line); }
.segmented button:last-child { border-right: 0; }
.segmented button[aria-pressed="true"] { background: var(--accent); color: #fff; }
.legend { display: flex; flex-direction: column; gap: 3px; font-size: 12.5px; }
.legend span.swatch { display: inline-block; width: 12px; height: 12px; border-radius: 50%;
                      margin-right: 6px; vertical-align: -1px; }
svg.scatter circle { cursor: pointer; }
.ci { display: inline-block; vertical-align: middle; margin-left: 6px; }
@media (max-width: 760px) { .map-layout { grid-template-columns: 1fr; }
                            .charts { grid-template-columns: 1fr; } }
"""

JS = """
(function () {
  "use strict";
  function cellKey(row, index, numeric) {
    var cell = row.cells[index];
    var raw = cell ? (cell.getAttribute("data-sort") ?? cell.textContent) : "";
    if (!numeric) { return raw.toLowerCase(); }
    var value = parseFloat(raw);
    return isNaN(value) ? null : value;
  }
  function sortBy(th) {
    var table = th.closest("table");
    var body = table.tBodies[0];
    var index = Array.prototype.indexOf.call(th.parentNode.children, th);
    var numeric = th.getAttribute("data-type") === "number";
    var ascending = th.getAttribute("aria-sort") !== "ascending";
    table.querySelectorAll("th").forEach(function (other) { other.removeAttribute("aria-sort"); });
    th.setAttribute("aria-sort", ascending ? "ascending" : "descending");
    var rows = Array.prototype.slice.call(body.rows);
    rows.sort(function (a, b) {
      var x = cellKey(a, index, numeric), y = cellKey(b, index, numeric);
      if (x === y) { return 0; }
      if (x === null) { return 1; }
      if (y === null) { return -1; }
      return (x < y ? -1 : 1) * (ascending ? 1 : -1);
    });
    rows.forEach(function (row) { body.appendChild(row); });
  }
  document.querySelectorAll("table.sortable th").forEach(function (th) {
    th.addEventListener("click", function () { sortBy(th); });
  });

  function showEnv(id) {
    var target = document.getElementById("env-" + id);
    document.querySelectorAll(".env-detail").forEach(function (el) { el.hidden = el !== target; });
    document.querySelectorAll("tr.env-row").forEach(function (row) {
      row.classList.toggle("selected", row.getAttribute("data-env") === String(id));
    });
    var missing = document.getElementById("env-missing");
    if (missing) { missing.hidden = target !== null; }
    (target || missing || document.getElementById("environments")).scrollIntoView({block: "start"});
  }
  document.querySelectorAll("tr.env-row").forEach(function (row) {
    row.addEventListener("click", function () { showEnv(row.getAttribute("data-env")); });
    row.addEventListener("keydown", function (event) {
      if (event.key === "Enter") { showEnv(row.getAttribute("data-env")); }
    });
  });

  var mapData = document.getElementById("map-colours");
  if (mapData) {
    var colours = JSON.parse(mapData.textContent);
    var circles = document.querySelectorAll("#diversity svg.scatter circle[data-index]");
    var recolour = function (mode) {
      var fills = colours[mode] || [];
      circles.forEach(function (circle) {
        var fill = fills[Number(circle.getAttribute("data-index"))];
        if (fill) { circle.setAttribute("fill", fill); }
      });
      document.querySelectorAll("#diversity .legend[data-mode]").forEach(function (legend) {
        legend.hidden = legend.getAttribute("data-mode") !== mode;
      });
      document.querySelectorAll("#diversity .segmented button").forEach(function (button) {
        button.setAttribute("aria-pressed", String(button.getAttribute("data-mode") === mode));
      });
    };
    document.querySelectorAll("#diversity .segmented button").forEach(function (button) {
      button.addEventListener("click", function () { recolour(button.getAttribute("data-mode")); });
    });
    circles.forEach(function (circle) {
      circle.addEventListener("click", function () { showEnv(circle.getAttribute("data-env")); });
    });
  }
  if (location.hash.indexOf("#env-") === 0) { showEnv(location.hash.slice(5)); }
})();
"""
