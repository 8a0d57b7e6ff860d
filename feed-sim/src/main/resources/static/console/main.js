// The console's pages (#overview, #runs, #query): one is shown at a time; the overview polls only while shown.
import { askToken, setToken, token } from './api.js';
import * as overview from './overview.js';
import * as runs from './runs.js';
import * as query from './query.js';

const pages = { overview, runs, query };
let current = null;

function show() {
  const name = (location.hash || '#overview').slice(1).split('/')[0];
  const page = pages[name] ? name : 'overview';
  for (const p of Object.keys(pages)) {
    document.getElementById('page-' + p).hidden = p !== page;
    const link = document.querySelector(`nav a[data-page="${p}"]`);
    if (p === page) {
      link.setAttribute('aria-current', 'page');
    } else {
      link.removeAttribute('aria-current');
    }
  }
  if (current && current !== pages[page]) {
    current.hide();
  }
  current = pages[page];
  document.title = 'jtick console: ' + page;
  current.show(location.hash.slice(1).split('/').slice(1).join('/'));
}

window.addEventListener('hashchange', () => {
  show();
  document.getElementById('main').focus();
});
document.getElementById('token-button').addEventListener('click', async () => {
  await askToken();
});
setToken(token());
overview.init();
runs.init();
query.init();
show();
