/**
 * The live page (browser JavaScript, part of assets/dashboard.js): follows the run's event
 * stream — a snapshot first (a page opened late or reloaded catches up from it), then each
 * second, step, sweep decision, campaign update and log line — and redraws. Every shown
 * figure carries its raw value in `data-value`, so a test can read what the page shows.
 */
export const CLIENT_LIVE = String.raw`
var MAX_SECONDS = 3600;
var MAX_LOG = 200;

function liveLayout(main) {
  clear(main);
  var parts = {};
  parts.end = el('div', { id: 'end', hidden: '' });
  parts.tiles = el('div', { class: 'tiles', id: 'tiles' });
  parts.charts = el('div', { class: 'charts', id: 'charts' });
  parts.steps = el('div', { id: 'steps' }, el('p', { class: 'note', text: 'No step has finished yet.' }));
  parts.sweep = el('section', { id: 'sweep', hidden: '' }, el('h2', { text: 'Search so far' }),
    el('div', { class: 'chart', id: 'chart-sweep' }), el('p', { class: 'note', id: 'sweep-text' }));
  parts.campaign = el('section', { id: 'campaign', hidden: '' }, el('h2', { text: 'Campaign' }), el('div', { id: 'campaign-table' }));
  parts.log = el('pre', { class: 'log', id: 'log' });
  main.appendChild(parts.end);
  main.appendChild(parts.tiles);
  main.appendChild(el('h2', { text: 'Every second' }));
  main.appendChild(parts.charts);
  main.appendChild(el('h2', { text: 'Finished steps (first-receipt latency, delivery, verdict)' }));
  main.appendChild(parts.steps);
  main.appendChild(parts.sweep);
  main.appendChild(parts.campaign);
  main.appendChild(el('h2', { text: 'Log' }));
  main.appendChild(parts.log);
  return parts;
}

var TILES = [
  ['step', 'Step · phase'],
  ['connections', 'Connections joined / target'],
  ['joins', 'Joins/s'],
  ['sent', 'Sent/s'],
  ['delivered', 'Delivered/s'],
  ['latency', 'Every-receipt p95 (this second)'],
  ['delivery', 'Delivery (last finished step)'],
  ['server', 'Server CPU · RSS'],
  ['generator', 'Generator CPU · RSS'],
  ['lag', 'Event-loop lag p99'],
];

function tile(parent, key, label) {
  var v = el('div', { class: 'v', 'data-figure': key });
  var s = el('div', { class: 's', 'data-figure-sub': key });
  parent.appendChild(el('div', { class: 'tile' }, el('div', { class: 'k', text: label }), v, s));
  return { v: v, s: s };
}

function setFigure(t, text, value, sub) {
  t.v.textContent = text;
  t.v.setAttribute('data-value', JSON.stringify(value === undefined ? null : value));
  t.s.textContent = sub || '';
}

function phaseText(p) {
  var left = isNum(p.phase_length_s) ? ' · ' + fmtDuration(p.phase_length_s - p.phase_elapsed_s) + ' left' : '';
  return p.phase + left;
}

function drawTiles(tiles, S) {
  var p = S.seconds[S.seconds.length - 1];
  var last = S.steps[S.steps.length - 1];
  var failed = S.steps.reduce(function (a, s) { return a + s.connections.failed; }, 0);
  if (!p) return;
  setFigure(tiles.step, 'step ' + p.step + (p.steps_planned ? '/' + p.steps_planned : ''),
    { step: p.step, phase: p.phase, left_s: isNum(p.phase_length_s) ? p.phase_length_s - p.phase_elapsed_s : null }, phaseText(p));
  setFigure(tiles.connections, fmtInt(p.joined) + ' / ' + fmtInt(p.target_connections), { joined: p.joined, target: p.target_connections, open: p.connections_open, failed: failed },
    'open ' + fmtInt(p.connections_open) + ' · failed ' + fmtInt(failed) + ' (finished steps)');
  setFigure(tiles.joins, fmtInt(p.joins_per_s), p.joins_per_s);
  setFigure(tiles.sent, fmtInt(p.sent_per_s), p.sent_per_s, '60 s mean ' + fmtInt(p.sent_per_s_60s));
  setFigure(tiles.delivered, fmtInt(p.delivered_per_s), p.delivered_per_s, '60 s mean ' + fmtInt(p.delivered_per_s_60s));
  setFigure(tiles.latency, fmtMs(p.delivery_p95_ms), { p50: p.delivery_p50_ms, p95: p.delivery_p95_ms, p99: p.delivery_p99_ms },
    'p50 ' + fmtMs(p.delivery_p50_ms) + ' · p99 ' + fmtMs(p.delivery_p99_ms));
  setFigure(tiles.delivery, last ? fmtDelivery(last.delivery_rate) : '—', last ? last.delivery_rate : null,
    last ? 'step ' + last.index + ': first-receipt p95 ' + fmtMs(last.latency_ms.p95) : 'known when a step ends');
  setFigure(tiles.server, fmtPct(p.server_cpu_pct), { cpu_pct: p.server_cpu_pct, rss_mb: p.server_rss_mb, limit: p.limit || null },
    'RSS ' + fmtMb(p.server_rss_mb) + (p.limit ? ' · ' + p.limit : ''));
  setFigure(tiles.generator, fmtPct(p.generator_cpu_pct), { cpu_pct: p.generator_cpu_pct, rss_mb: p.generator_rss_mb }, 'RSS ' + fmtMb(p.generator_rss_mb));
  setFigure(tiles.lag, fmtMs(p.generator_lag_p99_ms), p.generator_lag_p99_ms);
}

function drawSteps(box, steps) {
  if (!steps.length) return;
  var head = ['#', 'step', 'verdict', 'joined / target', 'failed', 'sent/s', 'delivered/s', 'delivery', 'p50', 'p95', 'p99', 'server CPU', 'why'];
  var tbody = el('tbody');
  steps.forEach(function (s) {
    var tr = el('tr', { 'data-step': s.index });
    tr.appendChild(el('td', { class: 'num', text: String(s.index) }));
    tr.appendChild(el('td', { text: s.label + (s.complete ? '' : ' (cut short)') }));
    tr.appendChild(verdictCell(s.verdict));
    [[fmtInt(s.connections.joined) + ' / ' + fmtInt(s.connections.target), s.connections.joined],
     [fmtInt(s.connections.failed), s.connections.failed], [fmtInt(s.rates.sent_per_s), s.rates.sent_per_s],
     [fmtInt(s.rates.delivered_per_s), s.rates.delivered_per_s], [fmtDelivery(s.delivery_rate), s.delivery_rate],
     [fmtMs(s.latency_ms.p50), s.latency_ms.p50], [fmtMs(s.latency_ms.p95), s.latency_ms.p95],
     [fmtMs(s.latency_ms.p99), s.latency_ms.p99], [fmtPct(s.server.cpu_pct), s.server.cpu_pct]].forEach(function (c) {
      tr.appendChild(el('td', { class: 'num', 'data-value': JSON.stringify(c[1]), text: c[0] }));
    });
    tr.appendChild(el('td', null, reasonsList(s.verdict_reasons)));
    tbody.appendChild(tr);
  });
  var thead = el('tr');
  head.forEach(function (h) { thead.appendChild(el('th', { text: h })); });
  clear(box).appendChild(el('table', { 'data-table': 'steps' }, el('thead', null, thead), tbody));
}

function drawSweep(section, sweepChart, S) {
  if (!S.sweep) { section.hidden = true; return sweepChart; }
  section.hidden = false;
  if (!sweepChart) sweepChart = echarts.init(document.getElementById('chart-sweep'));
  sweepChart.setOption(sweepOption(S.sweep, S.steps), true);
  var k = S.sweep.knee || {};
  document.getElementById('sweep-text').textContent = 'driver ' + S.sweep.driver + ' (' + S.sweep.mode + '): ' +
    S.sweep.points.length + ' value' + (S.sweep.points.length === 1 ? '' : 's') + ' so far' +
    (k.first_unsafe ? '; knee: ' + (k.safe ? 'safe at ' + k.safe.value + ' (step ' + k.safe.step + '), ' : 'nothing safe, ') +
      'first unsafe at ' + k.first_unsafe.value + ' (step ' + k.first_unsafe.step + ')' :
      '; no knee yet' + (k.safe ? ': highest stable ' + k.safe.value + ' (step ' + k.safe.step + ')' : '')) +
    (S.sweep.stop_reason ? '; stopped: ' + S.sweep.stop_reason : '');
  return sweepChart;
}

function drawCampaign(section, c) {
  if (!c) { section.hidden = true; return; }
  section.hidden = false;
  var tbody = el('tbody');
  c.entries.forEach(function (e) {
    var files = e.files ? fileLinks(el('td', { class: 'links' }), e.files) : el('td', { text: '' });
    tbody.appendChild(el('tr', { 'data-entry': e.index }, el('td', { class: 'num', text: String(e.index) }), el('td', { text: e.name }),
      el('td', { text: e.sweep ? 'sweep' : 'run' }), el('td', null, badge(e.status)), el('td', { class: 'num', 'data-value': JSON.stringify(e.wall_s), text: fmtDuration(e.wall_s) }),
      el('td', { class: 'num', text: String(e.attempts) }), files));
  });
  var head = el('tr');
  ['#', 'entry', 'kind', 'state', 'time spent', 'attempts', 'files'].forEach(function (h) { head.appendChild(el('th', { text: h })); });
  var box = clear(document.getElementById('campaign-table'));
  box.appendChild(el('p', null, 'campaign ' + c.name + ' ', badge(c.status)));
  box.appendChild(el('table', { 'data-table': 'campaign' }, el('thead', null, head), tbody));
}

function drawEnd(box, S) {
  if (!S.end) { box.hidden = true; return; }
  box.hidden = false;
  var e = S.end;
  box.className = 'end' + (e.status === 'completed' || e.status === 'pass' ? '' : ' bad');
  clear(box).appendChild(el('strong', { text: 'rtcap ' + S.command + ' finished: ' + e.status + (isNum(e.exit_code) ? ' (exit ' + e.exit_code + ')' : '') }));
  if (e.abort_reason) box.appendChild(el('div', { text: e.abort_reason }));
  if (e.files) box.appendChild(fileLinks(el('div', { class: 'links', 'data-links': '' }, 'Its files (' + e.files.dir + '): '), e.files));
  if (e.table) box.appendChild(textTable(e.table));
}

function fileLinks(parent, files) {
  files.links.forEach(function (l) { parent.appendChild(link(l.href, l.name)); });
  return parent;
}

function textTable(t) {
  var head = el('tr');
  t.columns.forEach(function (c) { head.appendChild(el('th', { text: c })); });
  var tbody = el('tbody');
  t.rows.forEach(function (r) {
    var tr = el('tr');
    r.forEach(function (c) { tr.appendChild(el('td', { text: c })); });
    tbody.appendChild(tr);
  });
  return el('div', null, el('h2', { text: t.title }), el('table', { 'data-table': 'end' }, el('thead', null, head), tbody));
}

function drawHeader(S) {
  var r = S.run;
  document.getElementById('subtitle').textContent = r ? r.run_id + ' · ' + r.profile + ' (' + r.scenario + ') · ' + r.target : 'starting…';
  var status = clear(document.getElementById('status'));
  status.appendChild(badge(S.end ? S.end.status : 'running'));
}

function live() {
  var main = document.getElementById('main');
  var parts = liveLayout(main);
  var tiles = {};
  TILES.forEach(function (t) { tiles[t[0]] = tile(parts.tiles, t[0], t[1]); });
  var charts = makeLiveCharts(parts.charts);
  var S = { command: '', run: null, seconds: [], steps: [], sweep: null, campaign: null, log: [], end: null };
  var sweepChart = null;
  var t0 = function () { return S.run ? Math.floor(Date.parse(S.run.started_at) / 1000) : (S.seconds[0] ? S.seconds[0].t : 0); };
  var drawLog = function () { parts.log.textContent = S.log.join('\n'); parts.log.scrollTop = parts.log.scrollHeight; };
  var dirty = false;
  var drawAll = function () {
    resetLiveCharts(charts, S.seconds, t0());
    drawHeader(S); drawTiles(tiles, S); drawLiveCharts(charts); dirty = false;
    drawSteps(parts.steps, S.steps); sweepChart = drawSweep(parts.sweep, sweepChart, S);
    drawCampaign(parts.campaign, S.campaign); drawEnd(parts.end, S); drawLog();
  };
  var es = new EventSource('events');
  var on = function (name, f) { es.addEventListener(name, function (ev) { f(JSON.parse(ev.data)); window.rtcapUpdates = (window.rtcapUpdates || 0) + 1; }); };
  on('snapshot', function (d) { for (var k in S) if (k in d) S[k] = d[k]; drawAll(); });
  on('run', function (d) { S.run = d; S.seconds = []; S.steps = []; S.sweep = null; drawAll(); });
  on('second', function (d) {
    S.seconds.push(d);
    if (S.seconds.length > MAX_SECONDS) S.seconds.splice(0, S.seconds.length - MAX_SECONDS);
    pushLiveCharts(charts, d, t0(), MAX_SECONDS);
    dirty = true;
  });
  // Seconds that arrive together (a busy machine, a page in the background) cost one redraw.
  setInterval(function () {
    if (!dirty || document.hidden) return;
    dirty = false;
    drawTiles(tiles, S); drawLiveCharts(charts);
  }, 1000);
  on('step', function (d) { S.steps.push(d); drawSteps(parts.steps, S.steps); drawTiles(tiles, S); sweepChart = drawSweep(parts.sweep, sweepChart, S); });
  on('run-info', function (d) { S.run = d; drawHeader(S); });
  on('sweep', function (d) { S.sweep = d; sweepChart = drawSweep(parts.sweep, sweepChart, S); });
  on('campaign', function (d) { S.campaign = d; drawCampaign(parts.campaign, S.campaign); });
  on('log', function (d) { S.log.push(d); if (S.log.length > MAX_LOG) S.log.splice(0, S.log.length - MAX_LOG); drawLog(); });
  on('end', function (d) { S.end = d; dirty = false; drawTiles(tiles, S); drawLiveCharts(charts); drawHeader(S); drawEnd(parts.end, S); drawCampaign(parts.campaign, S.campaign); es.close(); });
  window.rtcapState = S;
}
`;
