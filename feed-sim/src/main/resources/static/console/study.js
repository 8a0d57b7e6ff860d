// The HDB's compression study from the Runs view: pick a stored day, the encodings, run it, read its tables and a
// chart of stored size per column and encoding (through feed-sim's pass-through to hdb-service).
import { json } from './api.js';
import { el, fill, num, table } from './dom.js';
import { chart } from './charts.js';

export function init() {
  document.getElementById('study-form').addEventListener('submit', run);
}

/** The HDB's dates in the form (newest first). */
export async function show() {
  const select = document.getElementById('study-date');
  try {
    const dates = await json('api/console/hdb/partitions');
    const chosen = select.value;
    fill(select, dates.length === 0 ? el('option', { value: '', text: 'no stored day yet (end of day writes one)' })
      : dates.map(d => d.date).reverse().map(d => el('option', { value: d, text: d })));
    if (chosen) {
      select.value = chosen;
    }
  } catch (e) {
    fill(select, el('option', { value: '', text: 'HDB: ' + e.message }));
  }
}

async function run(event) {
  event.preventDefault();
  const status = document.getElementById('study-status');
  const error = document.getElementById('study-error');
  const button = document.getElementById('study-start');
  error.hidden = true;
  const body = { date: document.getElementById('study-date').value, table: document.getElementById('study-table').value.trim(),
    encodings: document.getElementById('study-encodings').value.split(',').map(s => s.trim()).filter(Boolean),
    runs: Number(document.getElementById('study-runs').value), cold: document.getElementById('study-cold').checked };
  button.disabled = true;
  status.textContent = 'Running the study (it answers when done)…';
  try {
    const r = await json('api/console/hdb/compression-study', { method: 'POST', headers: { 'Content-Type': 'application/json' },
      body: JSON.stringify(body) });
    status.textContent = `${r.table} of ${r.date}: ${num(r.rows)} rows in ${r.encodings.length} encodings. ${r.method || ''}`;
    render(r);
  } catch (e) {
    status.textContent = '';
    fill(error, el('strong', { text: `Error ${e.status || ''}: ` }), e.message);
    error.hidden = false;
  } finally {
    button.disabled = false;
  }
}

function render(r) {
  fill('study-columns', table([{ label: 'column' }, { label: 'type' }, { label: 'encoding' }, { label: 'raw', num: true },
    { label: 'stored', num: true }, { label: 'size %', num: true }, { label: 'write ms', num: true }, { label: 'write ratio', num: true }],
  r.columns.map(c => [c.column, c.type, c.encoding, num(c.rawBytes), num(c.storedBytes), num(c.sizePct, 1), num(c.writeMillis),
    num(c.writeRatio, 2)]), 'Per column and encoding: stored size as % of raw; write time and its ratio to uncompressed',
  { id: 'study-columns-table' }));
  fill('study-queries', table([{ label: 'query' }, { label: 'encoding' }, { label: 'hot ms', num: true }, { label: 'hot ratio', num: true },
    { label: 'cold ms', num: true }, { label: 'cold ratio', num: true }],
  (r.queries || []).map(q => [q.query, q.encoding, num(finite(q.hotMillis)), num(finite(q.hotRatio), 2), num(finite(q.coldMillis)),
    num(finite(q.coldRatio), 2)]), 'Per query and encoding: read time and its ratio to uncompressed'));
  const box = document.getElementById('study-chart');
  const columns = [...new Set(r.columns.map(c => c.column))];
  const encodings = [...new Set(r.columns.map(c => c.encoding))];
  box.hidden = columns.length === 0;
  if (box.hidden) {
    return;
  }
  box.setAttribute('aria-label', 'Stored size in % of raw per column, one bar per encoding; the values are in the table below');
  chart(box).setOption({
    aria: { enabled: true },
    animation: false,
    title: { text: 'Stored size, % of raw, per column and encoding', textStyle: { fontSize: 14 } },
    tooltip: { trigger: 'axis' },
    legend: { bottom: 0 },
    grid: { left: 50, right: 20, top: 50, bottom: 60, containLabel: true },
    xAxis: { type: 'category', data: columns },
    yAxis: { type: 'value', name: '% of raw' },
    series: encodings.map(e => ({ id: 'enc:' + e, name: e, type: 'bar',
      data: columns.map(c => (r.columns.find(x => x.column === c && x.encoding === e) || {}).sizePct ?? null) }))
  }, true);
}

function finite(v) {
  return typeof v === 'number' && Number.isFinite(v) ? v : null;
}
