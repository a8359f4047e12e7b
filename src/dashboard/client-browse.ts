/**
 * The page over finished runs (browser JavaScript, part of assets/dashboard.js): the index of
 * the folder (api/runs) as one table — runs, sweeps and campaigns with date, profile, target,
 * verdicts and headline figures, each report one click away — two runs picked for the compare
 * view, and each campaign's capacity table.
 */
export const CLIENT_BROWSE = String.raw`
function verdictCounts(v) {
  var span = el('span', { 'data-verdicts': JSON.stringify(v) });
  Object.keys(v).forEach(function (k) {
    span.appendChild(el('span', { class: 'v-' + k, text: v[k] + ' ' + k }));
    span.appendChild(document.createTextNode(' '));
  });
  return span;
}

function filesCell(f) {
  return el('td', { class: 'links' }, link(f.report, 'report'), link(f.summary, 'summary'), link(f.result, 'result.json'));
}

function runRow(item, picked, update, depth) {
  var box = el('input', { type: 'checkbox', 'data-pick': item.id, 'aria-label': 'compare ' + item.name });
  box.addEventListener('change', function () {
    var i = picked.indexOf(item.id);
    if (box.checked && i < 0) picked.push(item.id);
    if (!box.checked && i >= 0) picked.splice(i, 1);
    while (picked.length > 2) {
      var old = picked.shift();
      var ob = document.querySelector('input[data-pick="' + old + '"]');
      if (ob) ob.checked = false;
    }
    update();
  });
  var name = el('td', { class: 'name', text: (depth ? '↳ ' : '') + item.name });
  var best = item.best ? fmtInt(item.best.delivered_per_s) + ' deliveries/s to ' + fmtInt(item.best.joined) + ' connections, p95 ' + fmtMs(item.best.p95_ms) + ' (step ' + item.best.step + ')' : 'no stable step';
  return el('tr', { 'data-run': item.id, 'data-kind': item.kind }, el('td', null, box), el('td', { class: 'num', text: item.started_at.replace('T', ' ').slice(0, 19) }),
    el('td', { text: item.kind }), name, el('td', { text: item.profile + ' (' + item.scenario + ')' }), el('td', { class: 'target', text: item.target }),
    el('td', null, badge(item.status)), el('td', null, verdictCounts(item.verdicts)),
    el('td', { class: 'headline' }, el('div', { 'data-best': JSON.stringify(item.best), text: best }), el('div', { class: 'note', text: item.headline })), filesCell(item.files));
}

function capacityTable(c) {
  var tbody = el('tbody');
  c.rows.forEach(function (r) {
    tbody.appendChild(el('tr', { 'data-row': r.id }, el('td', { class: 'num', text: String(r.no) }), el('td', { text: r.dimension }),
      el('td', { class: 'num' + (r.value === null ? ' v-broken' : ''), text: r.display }), el('td', { text: r.limiting_factor || '—' })));
  });
  var head = el('tr');
  ['#', 'dimension', 'recommended', 'limiting factor'].forEach(function (h) { head.appendChild(el('th', { text: h })); });
  return el('table', { 'data-table': 'capacity' }, el('thead', null, head), tbody);
}

function campaignRows(tbody, c, picked, update) {
  var links = el('td', { class: 'links' });
  if (c.files.report) links.appendChild(link(c.files.report, 'capacity report'));
  tbody.appendChild(el('tr', { 'data-campaign': c.id, 'data-kind': 'campaign' }, el('td'), el('td', { class: 'num', text: (c.started_at || '').replace('T', ' ').slice(0, 19) }),
    el('td', { text: 'campaign' }), el('td', { text: c.name }), el('td', { text: c.entries.length + ' entries' }), el('td', { text: c.target || '' }),
    el('td', null, badge(c.status)), el('td', null, verdictCounts(c.verdicts)), el('td', { text: c.capacity ? c.capacity.rows.filter(function (r) { return r.value !== null; }).length + ' of ' + c.capacity.rows.length + ' capacity rows measured' : 'no capacity table' }), links));
  c.entries.forEach(function (e) { tbody.appendChild(runRow(e, picked, update, 1)); });
  if (c.capacity) {
    var cell = el('td', { colspan: '10' }, el('details', { 'data-capacity': c.id }, el('summary', { text: 'capacity table of ' + c.name }), capacityTable(c.capacity)));
    tbody.appendChild(el('tr', null, cell));
  }
}

function browse() {
  var main = document.getElementById('main');
  fetch('api/runs').then(function (r) { return r.json(); }).then(function (index) {
    clear(main);
    document.getElementById('subtitle').textContent = index.dir + ' · ' + index.runs.length + ' runs, ' + index.campaigns.length + ' campaigns';
    var picked = [];
    var button = el('button', { id: 'compare', disabled: '' , text: 'Compare the two picked runs (first picked: A)' });
    var update = function () { if (picked.length === 2) button.removeAttribute('disabled'); else button.setAttribute('disabled', ''); };
    button.addEventListener('click', function () {
      if (picked.length === 2) location.href = 'compare?a=' + encodeURIComponent(picked[0]) + '&b=' + encodeURIComponent(picked[1]);
    });
    var head = el('tr');
    ['', 'started', 'kind', 'run', 'profile', 'target', 'status', 'verdicts', 'headline', 'files'].forEach(function (h) { head.appendChild(el('th', { text: h })); });
    var tbody = el('tbody');
    index.campaigns.forEach(function (c) { campaignRows(tbody, c, picked, update); });
    index.runs.forEach(function (r) { tbody.appendChild(runRow(r, picked, update, 0)); });
    main.appendChild(el('p', null, button));
    main.appendChild(el('table', { 'data-table': 'runs' }, el('thead', null, head), tbody));
    index.problems.forEach(function (p) { main.appendChild(el('p', { class: 'note', text: p })); });
    if (!index.runs.length && !index.campaigns.length) main.appendChild(el('p', { class: 'note', text: 'No run here yet.' }));
    window.rtcapIndex = index;
  });
}
`;
