// Runs: start any experiment of the lab from its parameters and defaults, follow it, read its table beside the
// paper's figures, see the paper's chart, compare two runs, download JSON/CSV/text/SVG (feed-sim's /api/runs).
import { download, json, post } from './api.js';
import { el, fill, num, table } from './dom.js';
import { chartFigures, ours, paper, runChart } from './charts.js';
import * as study from './study.js';

let experiments = null;
let openId = null;
let openRun = null;
let pollTimer = null;
let listTimer = null;

export function init() {
  document.getElementById('run-experiment').addEventListener('change', () => showExperiment(true));
  document.getElementById('run-reset').addEventListener('click', () => showExperiment(true));
  document.getElementById('run-form').addEventListener('submit', start);
  document.getElementById('run-compare').addEventListener('change', compare);
  study.init();
}

export async function show(arg) {
  const message = document.getElementById('run-form-message');
  if (!experiments) {
    try {
      experiments = await json('api/experiments');
    } catch (e) {
      message.textContent = 'Cannot read the experiments: ' + e.message;
      return;
    }
    const select = document.getElementById('run-experiment');
    fill(select, experiments.map(x => el('option', { value: x.id,
      text: x.id + (x.paperTable ? ` (paper Table ${x.paperTable})` : '') })));
    showExperiment(true);
  }
  study.show();
  await list();
  if (arg && arg !== openId) {
    open(arg);
  }
}

export function hide() {
  clearTimeout(pollTimer);
  clearTimeout(listTimer);
  pollTimer = null;
  listTimer = null;
}

function experiment(id) {
  return experiments.find(x => x.id === id);
}

/** The keys of an entry that differ from the base (the form's matrix lines). */
function diff(entry, base, always) {
  const out = {};
  for (const [k, v] of Object.entries(entry)) {
    if (base[k] !== v || always.includes(k)) {
      out[k === 'timerMillis' ? 'timer' : k] = v;
    }
  }
  return out;
}

function showExperiment(resetMatrix) {
  const x = experiment(document.getElementById('run-experiment').value);
  document.getElementById('run-experiment-about').textContent = x.title + (x.paperTable ? `; the white paper's Table ${x.paperTable}` : '')
    + `; default matrix: ${x.defaultMatrix.length} entries`;
  document.getElementById('run-duration').value = x.durationSeconds;
  if (resetMatrix) {
    // the feed's shape (r, u, t) is on every line of the lab's experiments, whatever the base says
    const always = ['io', 'replay'].includes(x.id) ? [] : ['r', 'u', 't'];
    document.getElementById('run-matrix').value = x.defaultMatrix.map(e => JSON.stringify(diff(e, x.base, always))).join('\n');
  }
  fill('run-base', el('code', { text: Object.entries(x.base).map(([k, v]) => `${k === 'timerMillis' ? 'timer' : k}=${v}`).join(' ') }));
}

function parseMatrix(text) {
  const t = text.trim();
  if (!t) {
    return undefined;
  }
  if (t.startsWith('[')) {
    return JSON.parse(t);
  }
  return t.split('\n').map(l => l.trim()).filter(Boolean).map((l, i) => {
    try {
      return JSON.parse(l);
    } catch (e) {
      throw new Error(`matrix line ${i + 1} is not a JSON object: ${e.message}`);
    }
  });
}

async function start(event) {
  event.preventDefault();
  const message = document.getElementById('run-form-message');
  const button = document.getElementById('run-start');
  let body;
  try {
    body = { experiment: document.getElementById('run-experiment').value,
      durationSeconds: Number(document.getElementById('run-duration').value), matrix: parseMatrix(document.getElementById('run-matrix').value) };
  } catch (e) {
    message.textContent = e.message;
    return;
  }
  button.disabled = true;
  try {
    const started = await post('api/runs', body);
    message.textContent = `Started ${started.id}: ${started.entries} entries.`;
    location.hash = '#runs/' + started.id;
  } catch (e) {
    message.textContent = 'Not started: ' + e.message;
  } finally {
    button.disabled = false;
  }
}

async function list() {
  clearTimeout(listTimer);
  let runs;
  try {
    runs = await json('api/runs');
  } catch (e) {
    fill('run-list', el('p', { class: 'error', text: e.message }));
    return;
  }
  fill('run-list', runs.length === 0 ? el('p', { class: 'hint', text: 'No runs yet: start one.' }) : el('div', { class: 'scroll' },
    table([{ label: 'run' }, { label: 'experiment' }, { label: 'status' }, { label: 'entries', num: true }, { label: 'started' }],
      runs.map(r => [{ text: r.id }, r.experiment, r.status + (r.reason ? ': ' + r.reason : ''), `${r.entriesDone}/${r.entries}`,
        r.createdAt.replace('T', ' ').slice(0, 19)]), null, { id: 'run-list-table' })));
  // the run ids become links to their page
  document.querySelectorAll('#run-list-table tbody tr').forEach((tr, i) => {
    const id = runs[i].id;
    tr.cells[0].replaceChildren(el('a', { href: '#runs/' + id, text: id }));
  });
  const compareSelect = document.getElementById('run-compare');
  const chosen = compareSelect.value;
  fill(compareSelect, el('option', { value: '', text: '(another run)' }),
    runs.filter(r => r.id !== openId).map(r => el('option', { value: r.id, text: `${r.id} (${r.status})` })));
  compareSelect.value = chosen;
  if (runs.some(r => r.status === 'running')) {
    listTimer = setTimeout(list, 2000);
  }
}

async function open(id) {
  clearTimeout(pollTimer);
  openId = id;
  const detail = document.getElementById('run-detail');
  detail.hidden = false;
  let run;
  try {
    run = await json('api/runs/' + encodeURIComponent(id));
  } catch (e) {
    fill('run-status', e.message);
    return;
  }
  if (openId !== id) {
    return;
  }
  openRun = run;
  render(run);
  if (run.status === 'running') {
    pollTimer = setTimeout(() => open(id), 1000);
  } else {
    list();
  }
}

/** The value of one parameter column of the text table for a row. */
function param(row, column) {
  const p = row.params;
  switch (column) {
    case 'rows/s': return num(row.targetRowsPerSecond, 0);
    case 'bytes': return num(row.messageBytes, 0);
    case 'timer': return p.mode === 'zero-latency' ? '–' : p.timerMillis + ' ms';
    case 'subs': case 'cons': return p.subscribers;
    case 'bcast': return p.broadcast ? 'once' : 'per-sub';
    case 'enc': return p.encoding;
    case 'bulk': return p.r;
    default: return p[column];
  }
}

/** An entry's label on the chart's x axis: its parameters without the rates, as the SVG chart writes them. */
function label(row, x) {
  return labelColumns(x).map(c => param(row, c)).join('/');
}

export function labelColumns(x) {
  return x.parameterColumns.filter(c => c !== 'rows/s' && c !== 'bytes');
}

function figureOf(row, f) {
  if (f === 'tpcpu') {
    return row.cpu ? row.cpu.tp : null;
  }
  if (f === 'rdbcpu') {
    return row.cpu ? row.cpu.rdb : null;
  }
  return ours(row, f);
}

function render(run) {
  const x = experiment(run.experiment) || experiment('custom');
  const p = run.progress || {};
  document.getElementById('run-title').textContent = `${run.id}: ${x.title}` + (x.paperTable ? ` (white paper Table ${x.paperTable})` : '');
  document.getElementById('run-status').textContent = `${run.status}` + (run.reason ? ` (${run.reason})` : '')
    + ` — ${p.rowsDone ?? 0} of ${p.rowsTotal ?? 0} entries done` + (run.status === 'running'
    ? `, entry ${p.currentRow} ${p.currentPhase}, about ${num(p.estimatedRemainingSeconds, 0)} s left` : '');
  const bar = document.getElementById('run-progress');
  bar.max = Math.max(1, p.rowsTotal || 1);
  bar.value = p.rowsDone || 0;
  const base = 'api/runs/' + encodeURIComponent(run.id);
  fill('run-downloads', 'Download: ', ['json', 'csv', 'text', 'svg'].map(f => el('a', { href: base + '?format=' + f,
    onclick: e => {
      e.preventDefault();
      download(base + '?format=' + f, `${run.id}.${f === 'text' ? 'txt' : f}`).catch(err => alert(err.message));
    }, text: f.toUpperCase() })));
  const chartBox = document.getElementById('run-chart');
  const drawable = !['throughput', 'io'].includes(x.id) && run.rows.length > 0;
  chartBox.hidden = !drawable;
  if (drawable) {
    runChart(chartBox, run, x, run.rows.map(r => label(r, x)), labelColumns(x).join(' / '));
    chartBox.setAttribute('aria-label', `Chart of ${run.rows.length} entries; the same figures are in the table below.`);
  }
  fill('run-table', resultTable(run, x));
  compare();
}

function resultTable(run, x) {
  if (run.rows.length === 0) {
    return el('p', { class: 'hint', text: 'No entry measured yet.' });
  }
  if (x.id === 'throughput' || x.id === 'io') {
    const rows = run.rows.flatMap(r => (r.measures || []).map(m => Object.values(m).map(v => typeof v === 'number' ? num(v) : v)));
    const keys = Object.keys((run.rows.find(r => r.measures && r.measures.length) || { measures: [{}] }).measures[0] || {});
    return table(keys.map(k => ({ label: k })), rows, 'KX figures beside ours (JSON/CSV have every value)');
  }
  if (x.id === 'replay') {
    const keys = Object.keys(run.rows[0].replay || {}).filter(k => typeof run.rows[0].replay[k] !== 'object');
    return table([{ label: '#' }, ...x.parameterColumns.map(c => ({ label: c })), ...keys.map(k => ({ label: k, num: true }))],
      run.rows.map(r => [r.index, ...x.parameterColumns.map(c => param(r, c)), ...keys.map(k => num(r.replay ? r.replay[k] : null))]));
  }
  const figures = x.figureColumns;
  const columns = [{ label: '#' }, { label: 'status' }, ...x.parameterColumns.map(c => ({ label: c })), { label: 'rows/s achieved', num: true }];
  for (const f of figures) {
    columns.push({ label: f + (f.endsWith('cpu') ? ' %' : ' µs'), num: true }, { label: 'paper', num: true }, { label: 'ratio', num: true });
  }
  const rows = run.rows.map(r => {
    const cells = [r.index, r.status + (r.settled ? '' : ' (not settled)'), ...x.parameterColumns.map(c => param(r, c)),
      num(r.rowsPerSecond, 0)];
    for (const f of figures) {
      const ourValue = figureOf(r, f);
      const ref = f.endsWith('cpu') ? (r.paper || {})[f] : paper(r, f);
      const ratio = r.ratio && r.ratio[f] !== undefined ? r.ratio[f] : (ourValue && ref ? ourValue / ref : null);
      const above = ourValue !== null && ref !== null && ref !== undefined && ourValue > ref;
      cells.push(above ? { text: num(ourValue) + ' ▲', class: 'above', title: `above the paper's ${num(ref)}` } : num(ourValue),
        { text: ref === null || ref === undefined ? '–' : num(ref), class: 'paper' }, num(ratio, 2));
    }
    return cells;
  });
  return table(columns, rows, 'Medians per entry; ▲ and red: above the paper\'s figure; ratio = ours / paper', { id: 'run-result' });
}

async function compare() {
  const other = document.getElementById('run-compare').value;
  if (!other || !openRun) {
    fill('run-compare-table');
    return;
  }
  let b;
  try {
    b = await json('api/runs/' + encodeURIComponent(other));
  } catch (e) {
    fill('run-compare-table', el('p', { class: 'error', text: e.message }));
    return;
  }
  const a = openRun;
  const x = experiment(a.experiment) || experiment('custom');
  const figures = chartFigures(x);
  const rows = [];
  a.rows.forEach((ra, i) => {
    const rb = b.rows[i];
    for (const f of figures) {
      const va = ours(ra, f);
      const vb = rb ? ours(rb, f) : null;
      rows.push([label(ra, x), rb ? label(rb, x) : '–', f, num(va), num(vb), va && vb ? num(vb / va, 2) : '–']);
    }
  });
  fill('run-compare-table', table([{ label: a.id }, { label: b.id }, { label: 'figure' }, { label: 'median, this run', num: true },
    { label: 'median, other', num: true }, { label: 'other / this', num: true }], rows, 'Entries side by side, in matrix order'));
}
