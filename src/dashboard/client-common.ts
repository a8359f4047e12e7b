/**
 * The page script's shared helpers (browser JavaScript, served as assets/dashboard.js with
 * the live and browse parts): element building (text only, never markup from data), number
 * formats as the terminal prints them, verdict colours as the report draws them.
 */
export const CLIENT_COMMON = String.raw`
var VERDICT_COLOURS = { stable: '#2e7d32', degraded: '#ef6c00', broken: '#c62828',
  'generator-bound': '#9e9e9e', inconclusive: '#bdbdbd' };

function el(tag, attrs) {
  var e = document.createElement(tag);
  if (attrs) for (var k in attrs) {
    if (k === 'text') e.textContent = attrs[k];
    else if (k === 'class') e.className = attrs[k];
    else if (attrs[k] !== null && attrs[k] !== undefined) e.setAttribute(k, attrs[k]);
  }
  for (var i = 2; i < arguments.length; i++) {
    var c = arguments[i];
    if (c === null || c === undefined) continue;
    e.appendChild(typeof c === 'string' ? document.createTextNode(c) : c);
  }
  return e;
}

function clear(e) { while (e.firstChild) e.removeChild(e.firstChild); return e; }

function isNum(v) { return typeof v === 'number' && isFinite(v); }
function fmtInt(v) { return isNum(v) ? Math.round(v).toLocaleString('en-US') : '—'; }
function fmtMs(v) { return isNum(v) ? (v < 10 ? v.toFixed(1) : String(Math.round(v))) + ' ms' : '—'; }
function fmtPct(v) { return isNum(v) ? (v < 10 ? v.toFixed(1) : String(Math.round(v))) + ' %' : '—'; }
function fmtMb(v) { return isNum(v) ? Math.round(v).toLocaleString('en-US') + ' MB' : '—'; }
function fmtDelivery(v) { return isNum(v) ? (v * 100).toFixed(3) + ' %' : '—'; }
function fmtDuration(s) {
  if (!isNum(s)) return '—';
  s = Math.max(0, Math.round(s));
  var h = Math.floor(s / 3600), m = Math.floor((s % 3600) / 60), r = s % 60;
  return (h ? h + 'h' : '') + (h || m ? String(m).padStart(h ? 2 : 1, '0') + 'm' : '') + String(r).padStart(h || m ? 2 : 1, '0') + 's';
}

function verdictCell(v) { return el('td', { class: 'v-' + v, 'data-verdict': v, text: v }); }

function reasonsList(reasons) {
  var ul = el('ul', { class: 'reasons' });
  (reasons || []).forEach(function (r) { ul.appendChild(el('li', { text: r })); });
  return ul;
}

function link(href, text) { return el('a', { href: href, text: text }); }

function badge(status) {
  return el('span', { class: 'badge ' + status, 'data-status': status, text: status });
}
`;
