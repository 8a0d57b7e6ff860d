// Small DOM helpers: elements, tables, numbers. Text always goes in as text, never as HTML.
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) {
      continue;
    }
    if (k === 'class') {
      e.className = v;
    } else if (k === 'text') {
      e.textContent = v;
    } else if (k.startsWith('on')) {
      e.addEventListener(k.slice(2), v);
    } else {
      e.setAttribute(k, v === true ? '' : v);
    }
  }
  for (const c of children.flat()) {
    if (c !== null && c !== undefined) {
      e.append(c instanceof Node ? c : document.createTextNode(String(c)));
    }
  }
  return e;
}

export function fill(id, ...children) {
  const target = typeof id === 'string' ? document.getElementById(id) : id;
  target.replaceChildren(...children.flat().filter(c => c !== null && c !== undefined));
  return target;
}

/** A number as people read it: 12,345 or 1.23 or 0.0123; null → "–". */
export function num(v, digits) {
  if (v === null || v === undefined || Number.isNaN(v)) {
    return '–';
  }
  if (typeof v !== 'number') {
    return String(v);
  }
  if (digits !== undefined) {
    return v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits });
  }
  const a = Math.abs(v);
  const d = a >= 100 ? 0 : a >= 10 ? 1 : a >= 1 ? 2 : 3;
  return v.toLocaleString('en-US', { maximumFractionDigits: d });
}

export function bytes(v) {
  if (v === null || v === undefined) {
    return '–';
  }
  const units = ['B', 'KB', 'MB', 'GB', 'TB'];
  let i = 0;
  let x = v;
  while (x >= 1024 && i < units.length - 1) {
    x /= 1024;
    i++;
  }
  return num(x, i === 0 ? 0 : 1) + ' ' + units[i];
}

/** A facts list (dl) from [label, value] pairs. */
export function facts(id, pairs) {
  return fill(id, pairs.flatMap(([k, v, attrs]) => [el('dt', { text: k }), el('dd', Object.assign({ text: v }, attrs || {}))]));
}

/**
 * A table: columns [{label, num?}], rows of cells (a cell is a value or {text, class, title, value}: value, the raw
 * value as JSON, goes in data-value); caption optional.
 */
export function table(columns, rows, caption, attrs = {}) {
  const head = el('tr', {}, columns.map(c => el('th', { scope: 'col', class: c.num ? 'num' : null, text: c.label })));
  const body = rows.map(r => el('tr', {}, r.map((cell, i) => {
    const c = cell !== null && typeof cell === 'object' && !Array.isArray(cell) ? cell : { text: cell };
    const cls = [columns[i] && columns[i].num ? 'num' : null, c.class].filter(Boolean).join(' ') || null;
    return el(i === 0 && columns[0].rowHeader ? 'th' : 'td', { class: cls, title: c.title, scope: i === 0 && columns[0].rowHeader ? 'row' : null,
      'data-value': c.value, text: c.text === null || c.text === undefined ? '–' : String(c.text) });
  })));
  return el('table', attrs, caption ? el('caption', { text: caption }) : null, el('thead', {}, head), el('tbody', {}, body));
}
