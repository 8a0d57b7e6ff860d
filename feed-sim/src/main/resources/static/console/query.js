// Query: a JSON query document (docs/query.md) or one SQL SELECT against the RDB, the HDB or the gateway, through feed-sim's
// pass-through; the answer as a table and, when time-bucketed, a line or candlestick plot; errors in the API's words.
import { json } from './api.js';
import { el, fill, num, table } from './dom.js';
import { queryChart } from './charts.js';

const MAX_TABLE_ROWS = 1000;
const EXAMPLES = {
  bars: { table: 'trade', where: { sym: 'S0001' }, select: { open: { first: 'price' }, high: { max: 'price' }, low: { min: 'price' },
    close: { last: 'price' }, volume: { sum: 'size' } }, by: { time: { xbar: ['1m', 'time'] } } },
  vwap: { table: 'trade', select: { vwap: { wavg: ['size', 'price'] }, n: { count: '*' } }, by: ['sym'], limit: 20 }
};
const SQL_EXAMPLES = {
  bars: "SELECT time, first(price) AS open, max(price) AS high, min(price) AS low, last(price) AS close, sum(size) AS volume "
    + "FROM trade WHERE sym = 'S0001' SAMPLE BY 1m",
  vwap: 'SELECT sym, sum(price * size) / sum(size) AS vwap, count(*) AS n FROM trade GROUP BY sym LIMIT 20'
};

export function init() {
  const text = document.getElementById('query-text');
  text.value = JSON.stringify(EXAMPLES.vwap);
  const language = document.getElementById('query-language');
  language.addEventListener('change', () => {
    text.value = language.value === 'sql' ? SQL_EXAMPLES.vwap : JSON.stringify(EXAMPLES.vwap);
  });
  document.querySelectorAll('#query-form [data-example]').forEach(b => b.addEventListener('click', () => {
    if (language.value === 'sql') {
      text.value = SQL_EXAMPLES[b.dataset.example];
      return;
    }
    const q = Object.assign({}, EXAMPLES[b.dataset.example]);
    if (document.getElementById('query-target').value !== 'rdb') {
      // the HDB and the gateway answer over dates
      q.fromDate = '2000-01-01';
      q.toDate = new Date().toISOString().slice(0, 10);
    }
    text.value = JSON.stringify(q);
  }));
  document.getElementById('query-form').addEventListener('submit', run);
}

export function show() {
}

export function hide() {
}

async function run(event) {
  event.preventDefault();
  const target = document.getElementById('query-target').value;
  const error = document.getElementById('query-error');
  const summary = document.getElementById('query-summary');
  const chartBox = document.getElementById('query-chart');
  const button = document.getElementById('query-run');
  error.hidden = true;
  summary.textContent = 'Running…';
  button.disabled = true;
  try {
    // sent as typed: the service parses it and names any problem
    const sql = document.getElementById('query-language').value === 'sql';
    const answer = await json('api/console/' + target + (sql ? '/sql' : '/query'), { method: 'POST',
      headers: { 'Content-Type': sql ? 'text/plain' : 'application/json' }, body: document.getElementById('query-text').value });
    if (answer.error) {
      // a result cut while it streamed: the rows so far, then the error
      showError(answer.error);
    }
    const shown = answer.rows.slice(0, MAX_TABLE_ROWS);
    summary.textContent = `${num(answer.rowCount)} rows (${num(answer.rowsScanned)} scanned in ${num(answer.segments)} segments, `
      + `${num(answer.elapsedMicros / 1000, 1)} ms)` + (answer.rows.length > shown.length ? `; the table shows the first ${MAX_TABLE_ROWS}` : '');
    fill('query-table', table(answer.columns.map((c, i) => ({ label: c, num: /^(float|int)/.test(answer.types[i]) })),
      shown.map(r => r.map((v, i) => ({ text: typeof v === 'number' ? value(v, answer.types[i]) : v, value: JSON.stringify(v) }))),
      null, { id: 'query-result' }));
    chartBox.hidden = false;
    const kind = queryChart(chartBox, answer);
    if (kind) {
      chartBox.setAttribute('aria-label', `${kind} plot of the answer's ${answer.rows.length} time buckets; the values are in the table`);
    } else {
      chartBox.hidden = true;
    }
  } catch (e) {
    summary.textContent = '';
    fill('query-table');
    chartBox.hidden = true;
    showError(e.message, e.status);
  } finally {
    button.disabled = false;
  }
}

/** A number as the answer holds it: integers grouped, floats with their digits (up to 9 after the point). */
function value(v, type) {
  return type.startsWith('int') ? num(v, 0) : v.toLocaleString('en-US', { maximumFractionDigits: 9, useGrouping: false });
}

function showError(message, status) {
  const error = document.getElementById('query-error');
  fill(error, el('strong', { text: status ? `Error ${status}: ` : 'Error: ' }), message);
  error.hidden = false;
}
