// Every call the console makes: feed-sim's own /api/..., the other services through /api/console/... (same origin).
// When a service answers 401 the console asks for the API token once, keeps it for the tab, and sends it as
// "Authorization: Bearer <token>", as the API asks.
const KEY = 'jtick.apiToken';
let asking = null;
// the dialog was cancelled: the polls stop asking until the header's button is pressed
let declined = false;

export function token() {
  return sessionStorage.getItem(KEY);
}

export function setToken(t) {
  if (t) {
    sessionStorage.setItem(KEY, t);
  } else {
    sessionStorage.removeItem(KEY);
  }
  document.getElementById('token-button').textContent = 'API token: ' + (t ? 'set' : 'none');
}

/** Opens the token dialog; resolves with the token entered, or null. One dialog at a time. */
export function askToken() {
  declined = false;
  if (asking) {
    return asking;
  }
  const dialog = document.getElementById('token-dialog');
  const input = document.getElementById('token-input');
  input.value = token() || '';
  asking = new Promise(resolve => {
    dialog.addEventListener('close', () => {
      asking = null;
      if (dialog.returnValue === 'save') {
        setToken(input.value.trim());
        resolve(token());
      } else {
        declined = true;
        resolve(null);
      }
    }, { once: true });
  });
  dialog.showModal();
  input.focus();
  return asking;
}

/** An API error: the service's own words ({"error": ..., "status": ...}) when it gave them. */
export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function send(path, options) {
  const headers = Object.assign({ Accept: 'application/json' }, options.headers || {});
  const t = token();
  if (t) {
    headers.Authorization = 'Bearer ' + t;
  }
  return fetch(path, Object.assign({}, options, { headers }));
}

/** The fetch Response of a call; a 401 asks for the token once and retries with it. */
export async function call(path, options = {}) {
  let r = await send(path, options);
  if (r.status === 401 && !options.noAsk && !declined) {
    if (await askToken()) {
      r = await send(path, options);
    }
  }
  return r;
}

/** The JSON of a call; anything but 2xx throws an ApiError with the message the API gave. */
export async function json(path, options = {}) {
  let r;
  try {
    r = await call(path, options);
  } catch (e) {
    throw new ApiError(0, 'no answer from feed-sim (' + e.message + ')');
  }
  const text = await r.text();
  let body = null;
  try {
    body = text ? JSON.parse(text) : null;
  } catch (e) {
    if (r.ok) {
      throw new ApiError(r.status, 'not JSON: ' + text.slice(0, 200));
    }
  }
  if (!r.ok) {
    throw new ApiError(r.status, body && body.error ? body.error : (r.status + ' ' + (text || r.statusText)).slice(0, 500));
  }
  return body;
}

export function post(path, body) {
  return json(path, { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: JSON.stringify(body) });
}

/** A download that carries the token: fetched, then saved from a blob URL. */
export async function download(path, filename) {
  const r = await call(path);
  if (!r.ok) {
    throw new ApiError(r.status, await r.text());
  }
  const url = URL.createObjectURL(await r.blob());
  const a = document.createElement('a');
  a.href = url;
  a.download = filename;
  document.body.appendChild(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
