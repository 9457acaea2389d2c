// api.js -- the server's JSON API as the page calls it.

// The token the server wrote into the page: every request to the API shows
// it (pages of other sites cannot read it, so cannot use the API).
const TOKEN = document.querySelector('meta[name="flow-studio-token"]').content;
const TOKEN_HEADER = {'X-Flow-Studio-Token': TOKEN};

// url with the token in its query, for what cannot send a header: an
// image, a link, an EventSource.
export function withToken(url) {
  return `${url}${url.includes('?') ? '&' : '?'}token=${encodeURIComponent(TOKEN)}`;
}

// An element with attributes and children: el('div', {class: 'x'}, 'text', child).
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === false || v === null || v === undefined) continue;
    if (k.startsWith('on')) e.addEventListener(k.slice(2), v);
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

// The answer of a request as {ok, status, data}; data is the JSON the
// server sent ({error: message} when it refused), or {error} of our own
// when no answer came.  An aborted request rejects (AbortError).
async function answer(promise) {
  let response;
  try {
    response = await promise;
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    return {ok: false, status: 0, data: {error: `the server does not answer (${e.message}): is flow-studio still running?`}};
  }
  let data;
  try {
    data = await response.json();
  } catch (e) {
    if (e.name === 'AbortError') throw e;
    data = {error: `HTTP ${response.status}: the answer is not JSON`};
  }
  return {ok: response.ok, status: response.status, data};
}

export function getJSON(url, signal) {
  return answer(fetch(url, {headers: TOKEN_HEADER, signal}));
}

export function postJSON(url, body, signal) {
  return answer(fetch(url, {method: 'POST',
                            headers: {'Content-Type': 'application/json', ...TOKEN_HEADER},
                            body: JSON.stringify(body), signal}));
}

// A number for people: 3 significant digits, no trailing zeros.
export function short(x, digits = 3) {
  if (x === null || x === undefined) return '\u2013';
  return String(Number(Number(x).toPrecision(digits)));
}
