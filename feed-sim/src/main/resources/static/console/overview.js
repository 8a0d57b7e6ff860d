// Overview: every service's health and state, polled once a second while the page is shown.
import { json } from './api.js';
import { bytes, el, facts, fill, num, table } from './dom.js';

const PERIOD_MS = 1000;
let timer = null;
let previous = null; // the last TP status and when it came: rows/s per table from the difference

export function init() {
}

export function show() {
  if (!timer) {
    poll();
  }
}

export function hide() {
  clearTimeout(timer);
  timer = null;
}

async function settle(promise) {
  try {
    return { ok: true, value: await promise };
  } catch (e) {
    return { ok: false, error: e };
  }
}

async function poll() {
  timer = -1;
  const [feedHealth, tpHealth, rdbHealth, hdbHealth, tp, feed, rdb, hdb, dates, replays, imports, runs] = await Promise.all([
    settle(json('actuator/health', { noAsk: true })),
    settle(json('api/console/tp/health', { noAsk: true })),
    settle(json('api/console/rdb/health', { noAsk: true })),
    settle(json('api/console/hdb/health', { noAsk: true })),
    settle(json('api/console/tp/status')),
    settle(json('api/feed')),
    settle(json('api/console/rdb/status')),
    settle(json('api/console/hdb/status')),
    settle(json('api/console/hdb/partitions')),
    settle(json('api/console/hdb/replays')),
    settle(json('api/console/hdb/import')),
    settle(json('api/runs'))]);
  health([['feed-sim', feedHealth], ['tickerplant', tpHealth], ['RDB', rdbHealth], ['HDB', hdbHealth]]);
  showTp(tp);
  showFeed(feed);
  showRdb(rdb);
  showHdb(hdb, dates);
  showWork(replays, imports, runs);
  document.getElementById('overview-updated').textContent = 'updated ' + new Date().toLocaleTimeString('en-GB');
  if (timer === -1) {
    timer = setTimeout(poll, PERIOD_MS);
  }
}

function health(services) {
  fill('health', services.map(([name, r]) => {
    // a DOWN service answers its health with 503: its status is in the error message's JSON then
    const status = r.ok ? r.value.status : (r.error.status === 503 ? 'DOWN' : 'unreachable');
    const cls = status === 'UP' ? 'up' : 'down';
    return el('div', { class: 'card health', role: 'listitem', 'data-service': name },
      el('span', { text: name }), el('span', { class: 'badge ' + cls, text: status, title: r.ok ? '' : r.error.message }));
  }));
}

function failed(id, r) {
  fill(id, el('p', { class: 'error', text: r.error.message }));
}

function showTp(r) {
  if (!r.ok) {
    failed('tp-facts', r);
    return;
  }
  const s = r.value;
  const now = performance.now();
  const rates = {};
  if (previous && now > previous.at) {
    for (const t of s.tables) {
      const before = previous.status.tables.find(p => p.name === t.name);
      if (before) {
        rates[t.name] = Math.max(0, (t.rows - before.rows) * 1000 / (now - previous.at));
      }
    }
  }
  previous = { status: s, at: now };
  facts('tp-facts', [
    ['mode', s.mode + (s.mode === 'zero-latency' ? '' : ' (' + s.timerMillis + ' ms)')],
    ['date', s.date],
    ['sequence', num(s.sequence), { id: 'tp-sequence', 'data-value': s.sequence }],
    ['journalled', num(s.journalSequence)],
    ['publish', s.broadcast ? 'serialize once' : 'once per subscriber'],
    ['subscribers dropped', num(s.subscribersDisconnected)],
    ['upstream', s.upstream || 'none (feeds)']]);
  fill('tp-tables', table([{ label: 'table' }, { label: 'rows', num: true }, { label: 'updates', num: true }, { label: 'rows/s', num: true }],
    s.tables.map(t => [t.name, num(t.rows), num(t.updates), t.name in rates ? num(rates[t.name], 0) : '…'])));
  fill('tp-feeds', (s.numberedFeeds || []).length === 0 ? el('p', { class: 'hint', text: s.feeds + ' feed connection(s), none numbered' })
    : table([{ label: 'feed' }, { label: 'connected' }, { label: 'journalled', num: true }, { label: 'acknowledged', num: true },
      { label: 'reconnects', num: true }, { label: 'duplicates', num: true }],
    s.numberedFeeds.map(f => [f.name, f.connected ? 'yes' : 'no', num(f.journalled), num(f.acked), num(Math.max(0, f.connections - 1)),
      num(f.duplicates)])));
  fill('tp-subscribers', s.subscribers.length === 0 ? el('p', { class: 'hint', text: 'no subscribers' })
    : table([{ label: 'subscriber' }, { label: 'state' }, { label: 'tables' }, { label: 'backlog', num: true }, { label: 'sent', num: true },
      { label: 'alert' }],
    s.subscribers.map(x => [x.name || ('#' + x.id), x.state, x.tables.join(' '), bytes(x.backlogBytes), num(x.updatesSent),
      x.alert ? { text: 'ALERT: backlog', class: 'above' } : 'ok'])));
}

function showFeed(r) {
  if (!r.ok) {
    failed('feed-facts', r);
    return;
  }
  const f = r.value;
  const p = f.parameters || {};
  facts('feed-facts', [
    ['state', f.state + (f.stopReason ? ' (' + f.stopReason + ')' : '')],
    ['source', (p.source || '?') + ' ' + (p.table || '') + (p.source === 'synthetic' ? ` r=${p.r} u=${p.u} t=${p.t} ms` : '')],
    ['tickerplant', f.tp],
    ['rows/s', num(f.rowsPerSecond, 0)],
    ['rows sent', num(f.rowsSent)],
    ['acknowledged', num(f.acknowledged)],
    ['unacknowledged', num(f.unackedUpdates) + ' updates, ' + bytes(f.unackedBytes)],
    ['reconnects', num(f.reconnects)],
    ['last error', f.lastError || 'none']]);
}

function showRdb(r) {
  if (!r.ok) {
    failed('rdb-facts', r);
    fill('rdb-tables');
    return;
  }
  const s = r.value;
  const m = s.memory || {};
  facts('rdb-facts', [
    ['subscribed', (s.subscribed ? 'yes' : 'no') + ' to ' + s.tp + (s.caughtUp ? ', caught up' : ', catching up')],
    ['last sequence', num(s.lastSequence)],
    ['rows received since start', num(s.rows)],
    ['heap', bytes(m.heapUsedBytes) + ' of ' + bytes(m.heapMaxBytes)],
    ['end of day', s.lastEodError ? 'failed: ' + s.lastEodError : (s.endOfDays + ' done')]]);
  const tables = m.tables || {};
  fill('rdb-tables', table([{ label: 'table' }, { label: 'rows', num: true }, { label: 'memory', num: true }, { label: 'bytes/row', num: true }],
    Object.entries(tables).map(([name, t]) => [name, num(t.rows), bytes(t.bytes), num(t.bytesPerRow, 1)])));
}

function showHdb(r, dates) {
  if (!r.ok) {
    failed('hdb-facts', r);
    return;
  }
  const s = r.value;
  facts('hdb-facts', [
    ['dates', s.partitions === 0 ? 'none yet (the first end of day writes one)' : `${s.partitions}: ${s.firstDate} … ${s.lastDate}`],
    ['rows', num(s.rows)],
    ['on disk', bytes(s.bytesOnDisk)],
    ['tiering', s.tieringRunning ? 'running' : s.tieringSchedule]]);
  fill('hdb-tiers', table([{ label: 'tier' }, { label: 'up to age (days)', num: true }, { label: 'encoding' }],
    s.tiers.map(t => [t.name, t.maxAgeDays < 0 ? 'older' : num(t.maxAgeDays), t.encoding])));
  if (!dates.ok || dates.value.length === 0) {
    fill('hdb-dates', el('p', { class: 'hint', text: dates.ok ? 'no partitions' : dates.error.message }));
    return;
  }
  const last = dates.value.slice(-10).reverse();
  fill('hdb-dates', table([{ label: 'date' }, { label: 'tier' }, { label: 'tables' }, { label: 'rows', num: true }, { label: 'on disk', num: true }],
    last.map(d => [d.date, d.tier, d.tables.map(t => t.table).join(' '), num(d.tables.reduce((a, t) => a + t.rows, 0)),
      bytes(d.tables.reduce((a, t) => a + t.bytesOnDisk, 0))]), dates.value.length > 10 ? `the last 10 of ${dates.value.length}` : null));
}

function showWork(replays, imports, runs) {
  const items = [];
  if (replays.ok) {
    for (const x of replays.value.replays.filter(x => x.state === 'running')) {
      items.push(work(`replay #${x.id} to ${x.consumer}: ${x.tables.join(', ')} ${x.from}…${x.to}, ${num(x.rowsPerSecond, 0)} rows/s`,
        x.progress, 100, `${num(x.rowsSent)} of ${num(x.totalRows)} rows`));
    }
  }
  if (imports.ok) {
    for (const x of imports.value.filter(x => x.state === 'running')) {
      items.push(work(`import ${x.id}: ${x.source} ${x.table}, at ${x.currentDate || '…'}`, null, null,
        `${num(x.rowsRead)} rows read, ${x.badLines} bad lines`));
    }
  }
  if (runs.ok) {
    for (const x of runs.value.filter(x => x.status === 'running')) {
      const link = el('a', { href: '#runs/' + x.id, text: 'profiling run ' + x.id });
      items.push(work(link, x.entriesDone, x.entries, `${x.entriesDone} of ${x.entries} entries`));
    }
  }
  fill('work', items.length ? items : el('p', { class: 'hint', text: 'No replay, import or profiling run in progress.' }));
}

function work(label, value, max, detail) {
  const id = 'w' + Math.random().toString(36).slice(2);
  const bar = el('progress', { 'aria-labelledby': id });
  if (value !== null && max) {
    bar.max = max;
    bar.value = value;
  }
  return el('div', { class: 'work-item' }, el('div', { id }, label, ' — ', detail), bar);
}
