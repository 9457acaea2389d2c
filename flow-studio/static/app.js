// app.js -- the page: the sequence and pair, one or two parameter sets, and
// the flow recomputed whenever one of them changes.
//
// A change waits DEBOUNCE_MS for the next one (a slider being dragged), then
// asks the server; a newer request aborts the one in flight, and an answer
// that is not for the newest request is dropped (the server also answers a
// superseded request `stale` without computing it).
import {el, getJSON, postJSON, short, withToken} from './api.js';
import {SetPanel} from './controls.js';
import {Live} from './live.js';
import {colorKey, drawArrows, errorKey, figure, fullSize, image, statsLine} from './views.js';
import {readState, sequenceKey, writeState} from './state.js';

const DEBOUNCE_MS = 150;
const $ = (id) => document.getElementById(id);

const app = {
  client: Math.random().toString(36).slice(2) + Date.now().toString(36),
  info: null,
  sequences: [],
  sequence: null,
  sets: [],
  compare: false,
  mode: 'pair',
  generation: 0,
  inflight: null,
  timer: null,
  last: null,          // the last answer shown, redrawn when the arrows' scale changes
  good: [null, null],  // each set's last flow shown, kept (dimmed) while it fails
};

function showError(message) {
  const b = $('banner');
  b.textContent = message;
  b.hidden = !message;
}

// A number box's value for the server: the number, or the text as typed
// (the server says what is wrong with it); empty is null (automatic).
function lengthOf(id) {
  const text = $(id).value.trim();
  if (text === '') return null;
  return Number.isFinite(Number(text)) ? Number(text) : text;
}

function displayOptions() {
  return {device: $('device').value, color_max: lengthOf('color-max'),
          error_max: lengthOf('error-max') ?? 2};
}

function activeSets() {
  return app.sets.slice(0, app.compare ? 2 : 1);
}

// A pending computation shows as busy from the moment a control moves, so
// that the flow on the page is never taken for the one the controls (and
// the address) now describe.
function schedule() {
  clearTimeout(app.timer);
  if (app.mode === 'pair') $('busy').hidden = false;
  app.timer = setTimeout(app.mode === 'pair' ? compute : () => app.live.restart(), DEBOUNCE_MS);
}

async function compute() {
  const seq = app.sequence;
  if (!seq || seq.kind !== 'frames') {
    $('busy').hidden = true;
    return;
  }
  writeState(pageState());
  const generation = ++app.generation;
  if (app.inflight) app.inflight.abort();
  const controller = new AbortController();
  app.inflight = controller;
  $('busy').hidden = false;
  let r;
  try {
    r = await postJSON('/api/compute', {
      client: app.client, generation, sequence: seq.id, pair: Number($('pair').value),
      sets: activeSets().map((s) => s.state()), ...displayOptions(),
    }, controller.signal);
  } catch (e) {
    return;  // aborted: a newer request is on its way
  }
  if (generation !== app.generation) return;
  app.inflight = null;
  $('busy').hidden = true;
  if (r.data.stale) return;
  // a set's failure is said on its card; the banner is for the request's own
  showError(r.data.results ? '' : r.data.error);
  if (!r.data.results) return;
  r.data.results.forEach((res, k) => {
    app.sets[k].result(res, app.client);
    if (!res.error) app.good[k] = res;
  });
  app.last = r.data;
  render();
}

// One set's card: what was computed, how long it took, how good it is.
function card(k, res) {
  const name = `Set ${'AB'[k]}`;
  if (res.error) {
    return el('div', {class: 'card failed', 'data-set': k},
      el('h2', {}, name), el('p', {class: 'error set-error'}, res.error));
  }
  const time = `${short(res.time_ms, 4)} ms${res.setup ? ' (with the buffers\u2019 setup)' : ''}`;
  return el('div', {class: 'card', 'data-set': k},
    el('h2', {}, `${name}: ${res.method}`),
    el('p', {}, el('b', {class: 'time'}, time), ` on ${res.device}`,
       res.notice ? el('span', {class: 'note'}, ` (${res.notice})`) : null),
    el('p', {}, statsLine(res.stats, res.stats_note)
                ?? el('span', {class: 'dim'}, 'no ground truth for this pair'),
       ` largest vector ${short(res.max_radius)} px`));
}

// The pictures: one set's side by side (colour coding, arrows, error map),
// two sets' in rows of like beside like.
function render() {
  const data = app.last;
  $('cards').replaceChildren(...data.results.map((res, k) => card(k, res)));
  const shown = data.results.map((res, k) => (res.error ? app.good[k] : res));
  const arrows = $('arrow-scale').value;
  const views = [
    {title: 'Colour coding', key: colorKey(data.scale),
     cell: (res) => figure(el('img', {src: res.color, class: 'picture color', alt: 'colour coding'}), res.method)},
    {title: 'Arrows over the first frame', key: null,
     cell: (res) => {
       const canvas = el('canvas', {class: 'picture arrows'});
       const caption = el('span', {}, '');
       image(withToken(data.frame)).then((frame) => {
         const k = drawArrows(canvas, frame, res.vectors, arrows);
         caption.textContent = `one every ${res.vectors.step} px, drawn \u00d7${short(k)}`;
       }, (e) => { caption.textContent = e.message; });
       return figure(canvas, caption);
     }},
  ];
  if (data.gt) {
    views.push({title: 'Endpoint error',
                key: errorKey(app.info.error_ramp, app.info.not_scored, displayOptions().error_max),
                cell: (res) => (res.error_map
                  ? figure(el('img', {src: res.error_map, class: 'picture error-map', alt: 'error map'}),
                           statsLine(res.stats, res.stats_note))
                  : el('div', {class: 'empty'}, 'no error map'))});
  }
  const cell = (view, k) => {
    const s = shown[k];
    const c = s ? view.cell(s) : el('div', {class: 'empty'}, 'no flow yet');
    if (s && data.results[k].error) c.classList.add('stale');
    return c;
  };
  const title = (view) => el('div', {class: 'row-title'}, el('h3', {}, view.title), view.key);
  let grid;
  if (shown.length === 1) {
    // as many columns as fit pictures of at least 420 px: they grow with
    // the window, and wrap rather than shrink
    grid = el('div', {class: 'grid single'});
    for (const v of views) grid.append(el('div', {class: 'column'}, title(v), cell(v, 0)));
  } else {
    grid = el('div', {class: 'grid', style: `grid-template-columns: repeat(${shown.length}, minmax(0, 1fr))`});
    for (const v of views) {
      const t = title(v);
      t.classList.add('spanning');
      grid.append(t, ...shown.map((_, k) => cell(v, k)));
    }
  }
  $('results').replaceChildren(grid);
}

// A click on a picture shows it at full size.
function showFull(e) {
  const picture = e.target.closest('.picture');
  if (!picture) return;
  const caption = picture.closest('.column, .grid')?.querySelector('.row-title h3')?.textContent;
  fullSize(picture, caption || picture.getAttribute('alt') || 'picture');
}

// ---- the sequence and the pair ------------------------------------------------

function fillSequences(catalog) {
  app.sequences = catalog.sequences;
  const select = $('sequence');
  const groups = new Map();
  for (const s of catalog.sequences) {
    if (!groups.has(s.group)) groups.set(s.group, el('optgroup', {label: s.group}));
    groups.get(s.group).append(el('option', {value: s.id, title: `${s.group}/${s.name}: ${about(s)}`}, s.name));
  }
  select.replaceChildren(...groups.values());
  const notes = [...catalog.failures];
  if (!catalog.sequences.length) notes.push('No sequence found: start flow-studio with a directory of frames (flow-studio --help).');
  $('catalog-note').textContent = notes.join(' ');
  $('catalog-note').hidden = !notes.length;
  app.live.fillSources(catalog.sequences);
}

// What a sequence is, in words: "8 frames, 1 pair with ground truth".
function about(s) {
  if (s.kind !== 'frames') return s.kind;
  const gt = s.pairs.filter((p) => p.gt).length;
  return `${s.frames} frames${gt ? `, ${gt} ${gt === 1 ? 'pair' : 'pairs'} with ground truth` : ''}`;
}

// The sequence the page opens on: a real one (not one of the generated
// demo-* sequences, nor one named synthetic) with ground truth, else a
// real one, else a generated one whose motion is not a flat translation,
// else the first.
const CLEAR_DEMOS = ['demo-object', 'demo-rotate', 'demo-zoom', 'demo-smooth'];
function openingSequence(sequences) {
  const frames = sequences.filter((s) => s.kind === 'frames');
  const real = frames.filter((s) => !/^demo-|synthetic/i.test(s.name));
  const gt = (s) => s.pairs.some((p) => p.gt);
  return real.find(gt) || real[0]
    || CLEAR_DEMOS.map((n) => frames.find((s) => s.name === n)).find(Boolean)
    || frames.find(gt) || sequences[0] || null;
}

// A pair's label "frame_007 -> frame_008" as the list shows it, the second
// name without what it shares with the first up to a separator:
// "frame_007 -> 008", so that the list is not cut off.
function shortPair(label) {
  const [a, b] = label.split(' \u2192 ');
  if (b === undefined) return label;
  let n = 0;
  for (let i = 0; i < Math.min(a.length, b.length) && a[i] === b[i]; i++) {
    if (/[-_. ]/.test(a[i])) n = i + 1;
  }
  return `${a} \u2192 ${b.slice(n)}`;
}

function chooseSequence(id, pair = null) {
  app.sequence = app.sequences.find((s) => s.id === id) || null;
  const seq = app.sequence;
  const pairs = $('pair');
  pairs.replaceChildren();
  $('sequence-about').textContent = seq ? `${seq.group}/${seq.name}: ${about(seq)}` : '';
  if (!seq) return;
  $('sequence').value = seq.id;
  for (const p of seq.pairs) {
    pairs.append(el('option', {value: p.index, title: `${p.label}${p.gt ? ', with ground truth' : ''}`},
      `${p.index}: ${shortPair(p.label)}${p.gt ? ' \u2713 GT' : ''}`));
  }
  const first = seq.pairs.find((p) => p.gt);
  pairs.value = pair !== null && seq.pairs.some((p) => p.index === pair) ? pair : first ? first.index : 0;
  pairs.disabled = seq.kind !== 'frames';
  for (const s of app.sets) s.refreshPresets();
  if (seq.kind !== 'frames') {
    showError(`${seq.name} is a ${seq.kind}: play it in the live mode.`);
  }
}

function stepPair(delta) {
  const pairs = $('pair');
  const n = pairs.options.length;
  if (!n) return;
  pairs.selectedIndex = (pairs.selectedIndex + delta + n) % n;
  schedule();
}

// ---- two sets ------------------------------------------------------------------

function showSet(k) {
  for (const [i, p] of app.sets.entries()) p.root.hidden = i !== k;
  for (const b of document.querySelectorAll('#set-tabs [data-set]')) {
    b.classList.toggle('active', Number(b.dataset.set) === k);
  }
}

async function copyAB() {
  const [a, b] = app.sets;
  if (await b.setMethod(a.method, a.values, [...a.active])) schedule();
}

async function setCompare(on) {
  app.compare = on;
  $('set-tabs').hidden = !on;
  if (on && !app.sets[1].method) await app.sets[1].setMethod(app.sets[0].method, app.sets[0].values);
  showSet(0);
  schedule();
}

function setMode(mode) {
  app.mode = mode;
  for (const b of document.querySelectorAll('#modes button')) b.classList.toggle('active', b.dataset.mode === mode);
  $('pair-view').hidden = mode !== 'pair';
  $('live-view').hidden = mode !== 'live';
  $('source').hidden = mode !== 'pair';
  $('compare-row').hidden = mode !== 'pair';
  if (mode === 'pair') {
    app.live.stop();
    if (app.compare) $('set-tabs').hidden = false;
    schedule();
  } else {
    $('set-tabs').hidden = true;
    showSet(0);
    showError('');
  }
}

async function start() {
  const info = await getJSON('/api/info');
  if (!info.ok) {
    showError(info.data.error);
    return;
  }
  app.info = info.data;
  $('version').textContent = `libflow ${app.info.version}`;
  const devices = $('device');
  for (const d of new Set([...app.info.devices, app.info.device])) devices.append(el('option', {value: d}, d));
  devices.value = app.info.device;
  const hooks = {
    methods: app.info.methods,
    changed: schedule,
    error: showError,
    sequence: () => app.sequence,
  };
  app.sets = [new SetPanel($('set-0'), 'A', hooks), new SetPanel($('set-1'), 'B', hooks)];
  app.displayOptions = displayOptions;
  app.live = new Live(app, showError);
  const catalog = await getJSON('/api/sequences');
  if (!catalog.ok) {
    showError(catalog.data.error);
    return;
  }
  fillSequences(catalog.data);
  if (!(await restore(readState()))) {
    await app.sets[0].setMethod(app.info.default_method);
    chooseSequence(openingSequence(app.sequences)?.id);
  }

  $('sequence').addEventListener('change', (e) => { chooseSequence(e.target.value); schedule(); });
  $('pair').addEventListener('change', schedule);
  $('prev-pair').addEventListener('click', () => stepPair(-1));
  $('next-pair').addEventListener('click', () => stepPair(1));
  $('device').addEventListener('change', schedule);
  $('color-max').addEventListener('input', schedule);
  $('error-max').addEventListener('input', schedule);
  $('arrow-scale').addEventListener('change', () => {
    if (app.mode === 'pair' && app.last) {
      writeState(pageState());
      render();
    }
  });
  $('compare').addEventListener('change', (e) => setCompare(e.target.checked));
  for (const b of document.querySelectorAll('#set-tabs [data-set]')) {
    b.addEventListener('click', () => showSet(Number(b.dataset.set)));
  }
  $('copy-ab').addEventListener('click', copyAB);
  for (const b of document.querySelectorAll('#modes button')) {
    b.addEventListener('click', () => setMode(b.dataset.mode));
  }
  $('results').addEventListener('click', showFull);
  // a shared address pasted into this tab: its sequence and sets
  window.addEventListener('hashchange', async () => {
    if (app.mode === 'pair' && await restore(readState())) schedule();
  });
  schedule();
}

// ---- the address: what is on the page, to share ------------------------------------

// The page's state as the address carries it (state.js).
function pageState() {
  return {
    sequence: sequenceKey(app.sequence), pair: Number($('pair').value),
    sets: activeSets().map(setState),
    color_max: $('color-max').value.trim(), error_max: $('error-max').value.trim(),
    arrows: $('arrow-scale').value,
  };
}

// A set as the address carries it: its method and the values that are
// not the method's defaults (which parameters apply follows from them).
function setState(set) {
  const out = {method: set.method, params: {}};
  for (const p of set.schema.params) {
    if (String(set.values[p.name]) !== String(p.default)) out.params[p.name] = set.values[p.name];
  }
  return out;
}

// Puts a state read from the address on the page; false when there is
// none.  A sequence the catalog does not have is said, and the opening
// sequence shown instead.
async function restore(state) {
  if (!state) return false;
  const seq = app.sequences.find((s) => sequenceKey(s) === state.sequence);
  const sets = state.sets.length ? state.sets : [{method: app.info.default_method}];
  for (const [k, set] of sets.slice(0, 2).entries()) {
    const method = app.info.methods.includes(set.method) ? set.method : app.info.default_method;
    await app.sets[k].setMethod(method, set.params || null);
  }
  $('color-max').value = state.color_max;
  $('error-max').value = state.error_max || '2';
  if ([...$('arrow-scale').options].some((o) => o.value === state.arrows)) $('arrow-scale').value = state.arrows;
  $('compare').checked = sets.length > 1;
  app.compare = sets.length > 1;
  $('set-tabs').hidden = !app.compare;
  showSet(0);
  chooseSequence((seq || openingSequence(app.sequences))?.id, seq ? state.pair : null);
  $('state-note').textContent = !seq && state.sequence
    ? `The shared sequence ${state.sequence} is not in this studio's catalog: showing another.` : '';
  $('state-note').hidden = Boolean(seq) || !state.sequence;
  return true;
}

start();
