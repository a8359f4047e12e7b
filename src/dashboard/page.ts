/**
 * The dashboard's one page: an HTML shell with its CSS, filled by assets/dashboard.js (live
 * from the run's event stream, or from the index of finished runs). Scripts come from the
 * dashboard itself only: echarts' dist file and the page script.
 */
import { escapeHtml } from '../report/html.js';

const CSS = `
:root { --fg: #1b1f24; --muted: #5f6b76; --line: #d8dee4; --bg: #f6f8fa; --card: #fff;
  --stable: #2e7d32; --degraded: #ef6c00; --broken: #c62828; --gb: #9e9e9e; --inc: #bdbdbd; }
* { box-sizing: border-box; }
body { margin: 0; font: 14px/1.45 system-ui, sans-serif; color: var(--fg); background: var(--bg); }
header { padding: 12px 20px; background: #24292f; color: #fff; display: flex; gap: 16px;
  align-items: baseline; flex-wrap: wrap; }
header h1 { font-size: 18px; margin: 0; }
header .sub { color: #c9d1d9; }
main { padding: 14px 20px 40px; }
h2 { font-size: 16px; margin: 22px 0 8px; }
.badge { display: inline-block; padding: 1px 8px; border-radius: 10px; font-size: 12px;
  background: #57606a; color: #fff; }
.badge.running { background: #0969da; } .badge.completed { background: var(--stable); }
.badge.aborted, .badge.interrupted { background: var(--broken); }
.tiles { display: grid; grid-template-columns: repeat(auto-fill, minmax(170px, 1fr)); gap: 10px; }
.tile { background: var(--card); border: 1px solid var(--line); border-radius: 6px; padding: 8px 10px; }
.tile .k { color: var(--muted); font-size: 12px; }
.tile .v { font-size: 20px; font-weight: 600; white-space: nowrap; }
.tile .s { color: var(--muted); font-size: 12px; }
.charts { display: grid; grid-template-columns: repeat(auto-fill, minmax(460px, 1fr)); gap: 10px; }
.chart { background: var(--card); border: 1px solid var(--line); border-radius: 6px; height: 260px; }
table { border-collapse: collapse; background: var(--card); width: 100%; }
th, td { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #eef1f4; font-weight: 600; }
td.num { text-align: right; font-variant-numeric: tabular-nums; white-space: nowrap; }
.v-stable { color: var(--stable); font-weight: 600; } .v-degraded { color: var(--degraded); font-weight: 600; }
.v-broken { color: var(--broken); font-weight: 600; } .v-generator-bound { color: var(--gb); font-weight: 600; }
.v-inconclusive { color: var(--inc); font-weight: 600; }
.reasons { color: var(--muted); font-size: 12px; margin: 0; padding-left: 16px; }
.note { color: var(--muted); }
.links a { margin-right: 12px; }
pre.log { background: var(--card); border: 1px solid var(--line); padding: 8px; max-height: 220px;
  overflow: auto; font-size: 12px; margin: 0; }
.end { background: #ddf4e4; border: 1px solid #9fd8ae; padding: 10px 12px; border-radius: 6px; }
.end.bad { background: #fde2e1; border-color: #f1aeab; }
td.headline { min-width: 30em; } td.target { word-break: break-all; max-width: 18em; }
td.name { white-space: nowrap; } td.links { white-space: nowrap; }
[hidden] { display: none !important; }
button { font: inherit; padding: 4px 12px; }
`;

export function dashboardPage(mode: 'live' | 'browse', title: string): string {
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${CSS}</style>
<script src="assets/echarts.min.js"></script>
<script src="assets/dashboard.js" defer></script>
</head>
<body data-mode="${mode}">
<header><h1 id="title">${escapeHtml(title)}</h1><span class="sub" id="subtitle"></span><span id="status"></span></header>
<main id="main"><p class="note" id="loading">Loading…</p></main>
</body>
</html>
`;
}
