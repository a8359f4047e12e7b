/**
 * The live page's charts (browser JavaScript, part of assets/dashboard.js), drawn with echarts
 * as the report draws its own: time in seconds from the run's start, nulls as gaps (never
 * zeros), no animation. Each series keeps its points as they arrive (at most the seconds the
 * page holds) and is drawn at most once a second, down-sampled to the chart's width (LTTB,
 * which keeps peaks): an hour of seconds costs a redraw no more than a minute's.
 */
export const CLIENT_CHARTS = String.raw`
var LIVE_CHARTS = [
  { id: 'connections', title: 'Connections', unit: '', series: [
    ['target', function (p) { return p.target_connections; }],
    ['open', function (p) { return p.connections_open; }],
    ['joined', function (p) { return p.joined; }]] },
  { id: 'rates', title: 'Per second', unit: '/s', series: [
    ['joins/s', function (p) { return p.joins_per_s; }],
    ['sent/s', function (p) { return p.sent_per_s; }],
    ['delivered/s', function (p) { return p.delivered_per_s; }]] },
  { id: 'latency', title: 'Every-receipt latency this second (ms)', unit: ' ms', log: true, series: [
    ['p50', function (p) { return p.delivery_p50_ms; }],
    ['p95', function (p) { return p.delivery_p95_ms; }],
    ['p99', function (p) { return p.delivery_p99_ms; }]] },
  { id: 'cpu', title: 'CPU (%)', unit: ' %', series: [
    ['server (of its vCPUs)', function (p) { return p.server_cpu_pct; }],
    ['generator (busiest process, of one core)', function (p) { return p.generator_cpu_pct; }]] },
  { id: 'memory', title: 'Memory (MB)', unit: ' MB', series: [
    ['server RSS', function (p) { return p.server_rss_mb; }],
    ['generator RSS (all processes)', function (p) { return p.generator_rss_mb; }]] },
  { id: 'lag', title: 'Generator event-loop lag p99 (ms)', unit: ' ms', series: [
    ['lag p99', function (p) { return p.generator_lag_p99_ms; }]] },
];

function baseOption(title, unit, logAxis) {
  return {
    animation: false,
    title: { text: title, left: 8, top: 4, textStyle: { fontSize: 13 } },
    tooltip: { trigger: 'axis' },
    legend: { top: 4, right: 8, textStyle: { fontSize: 11 } },
    grid: { left: 60, right: 20, top: 40, bottom: 36 },
    xAxis: { type: 'value', name: 's', nameLocation: 'end', min: 'dataMin', max: 'dataMax' },
    yAxis: { type: logAxis ? 'log' : 'value', axisLabel: { formatter: '{value}' + unit }, min: logAxis ? 0.1 : 0 },
    series: [],
  };
}

function makeLiveCharts(container) {
  var out = {};
  LIVE_CHARTS.forEach(function (c) {
    var div = el('div', { class: 'chart', id: 'chart-' + c.id, 'data-chart': c.id });
    container.appendChild(div);
    var chart = echarts.init(div, null, { renderer: 'canvas' });
    chart.setOption(baseOption(c.title, c.unit, c.log));
    out[c.id] = { spec: c, chart: chart };
  });
  window.addEventListener('resize', function () { for (var k in out) out[k].chart.resize(); });
  return out;
}

function chartPoint(c, s, p, t0) {
  var y = s[1](p);
  if (c.spec.log && isNum(y) && y <= 0) y = null;
  return [p.t - t0, isNum(y) ? y : null];
}

/** Every series rebuilt from the seconds held (a snapshot, a new run). */
function resetLiveCharts(charts, seconds, t0) {
  for (var k in charts) {
    var c = charts[k];
    c.data = c.spec.series.map(function (s) { return seconds.map(function (p) { return chartPoint(c, s, p, t0); }); });
  }
}

/** One more second on every series, the oldest dropped past max. */
function pushLiveCharts(charts, p, t0, max) {
  for (var k in charts) {
    var c = charts[k];
    c.spec.series.forEach(function (s, i) {
      c.data[i].push(chartPoint(c, s, p, t0));
      if (c.data[i].length > max) c.data[i].splice(0, c.data[i].length - max);
    });
  }
}

function drawLiveCharts(charts) {
  for (var k in charts) {
    var c = charts[k];
    c.chart.setOption({ series: c.spec.series.map(function (s, i) {
      return { name: s[0], type: 'line', showSymbol: false, connectNulls: false, sampling: 'lttb', data: c.data[i], lineStyle: { width: 1.5 } };
    }) });
  }
}

function sweepOption(sweep, steps) {
  var byStep = {};
  steps.forEach(function (s) { byStep[s.index] = s; });
  var p95 = [], cpu = [];
  sweep.points.forEach(function (pt) {
    var s = byStep[pt.step];
    if (!s) return;
    var colour = VERDICT_COLOURS[s.verdict] || '#555';
    if (isNum(s.latency_ms.p95)) p95.push({ value: [pt.value, s.latency_ms.p95], itemStyle: { color: colour } });
    if (isNum(s.server.cpu_pct)) cpu.push({ value: [pt.value, s.server.cpu_pct], itemStyle: { color: colour } });
  });
  p95.sort(function (a, b) { return a.value[0] - b.value[0]; });
  cpu.sort(function (a, b) { return a.value[0] - b.value[0]; });
  var marks = [];
  var knee = sweep.knee || {};
  if (knee.safe) marks.push({ xAxis: knee.safe.value, name: 'safe', label: { formatter: 'safe ' + knee.safe.value } });
  if (knee.first_unsafe) marks.push({ xAxis: knee.first_unsafe.value, name: 'first unsafe', label: { formatter: 'first unsafe ' + knee.first_unsafe.value } });
  return {
    animation: false,
    title: { text: sweep.driver + ' against first-receipt p95 and server CPU', left: 8, top: 4, textStyle: { fontSize: 13 } },
    tooltip: { trigger: 'item' },
    legend: { top: 4, right: 8 },
    grid: { left: 60, right: 60, top: 40, bottom: 36 },
    xAxis: { type: 'value', name: sweep.driver, nameLocation: 'middle', nameGap: 24, min: 'dataMin', max: 'dataMax' },
    yAxis: [{ type: 'value', name: 'p95 ms', min: 0 }, { type: 'value', name: 'CPU %', min: 0, max: 100 }],
    series: [
      { name: 'first-receipt p95', type: 'line', data: p95, symbolSize: 9, markLine: { symbol: 'none', data: marks, lineStyle: { type: 'dashed', color: '#444' } } },
      { name: 'server CPU %', type: 'line', yAxisIndex: 1, data: cpu, symbol: 'diamond', symbolSize: 9, lineStyle: { type: 'dotted' } },
    ],
  };
}
`;
