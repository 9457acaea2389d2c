// controls.js -- a parameter set's panel: the method, and a control for
// every parameter of it, made from the method's schema (/api/schema): its
// type, range, default and help.  Numbers are kept as the text typed or
// set by the slider and go to the server as text, so that the library's
// own parser judges them and its message names what is wrong.  The
// parameters that the other values leave without effect (the server says
// which, through the library) are greyed out with the setting under which
// they apply.
import {el, getJSON, postJSON, short, withToken} from './api.js';

// Slider positions of a real parameter and of a logarithmic scale.
const STEPS = 1000;

function rangeText(p) {
  if (p.type === 'bool') return '0 or 1';
  if (p.type === 'choice') return p.choices.join(', ');
  const lo = `${short(p.min, 6)} ${p.min_open ? '<' : '\u2264'}`;
  const hi = `${p.max_open ? '<' : '\u2264'} ${short(p.max, 6)}`;
  return `${lo} ${p.name} ${hi}${p.odd ? ', odd' : ''}`;
}

// The value of a schema default or of a .params file as the panel keeps it.
function kept(p, v) {
  if (p.type === 'bool') return Boolean(v);
  if (p.type === 'choice') return String(v);
  return String(v);
}

// The slider of a number parameter: {min, max, step, pos(value), value(pos)}.
// A short range is linear; a long one (alpha up to 1e12) is logarithmic
// around the default, position 0 giving the bound itself where it is allowed
// (tau = 0: every pixel); the text box takes any value of the range.
function slider(p) {
  const int = p.type === 'int';
  const d = p.default;
  if (p.max - p.min <= (int ? 200 : 100)) {
    if (int) return {min: p.min, max: p.max, step: p.odd ? 2 : 1, pos: (v) => v, value: (s) => s};
    const w = (p.max - p.min) / STEPS;
    return {
      min: 0, max: STEPS, step: 1,
      pos: (v) => (v - p.min) / w,
      value: (s) => {
        if (s === 0 && p.min_open) s = 1;
        if (s === STEPS && p.max_open) s = STEPS - 1;
        return Number((p.min + s * w).toPrecision(3));
      },
    };
  }
  const lo = int ? Math.max(p.min, 1) : Math.max(d > 0 ? d / 100 : 1e-3, p.min);
  const hi = int ? Math.min(p.max, Math.max(d * 10, lo + 50)) : Math.min(p.max, d > 0 ? d * 100 : 1000);
  const span = Math.log(hi / lo);
  const bottom = p.min_open ? lo : p.min;
  return {
    min: 0, max: STEPS, step: 1,
    pos: (v) => (v < lo ? 0 : Math.min(STEPS, 1 + (STEPS - 1) * Math.log(v / lo) / span)),
    value: (s) => {
      if (s === 0) return bottom;
      const v = lo * Math.exp(span * (s - 1) / (STEPS - 1));
      return int ? Math.round(v) : Number(v.toPrecision(3));
    },
  };
}

export class SetPanel {
  // root: the panel's element; name: "A" or "B"; hooks: {changed(panel),
  // error(message), methods, sequence()} (the methods' names; the sequence
  // chosen, for its presets).
  constructor(root, name, hooks) {
    this.root = root;
    this.name = name;
    this.hooks = hooks;
    this.method = null;
    this.schema = null;
    this.values = {};
    this.active = new Set();
    this.rows = new Map();
  }

  // Sets the method, its values the defaults over which `values` (a
  // .params file's, another set's) are laid.  Returns false when the schema
  // could not be had (the error is shown).
  async setMethod(method, values = null, active = null) {
    const r = await getJSON(`/api/schema?method=${encodeURIComponent(method)}`);
    if (!r.ok) {
      this.hooks.error(r.data.error);
      return false;
    }
    this.schema = r.data;
    this.method = method;
    this.values = {};
    for (const p of this.schema.params) {
      this.values[p.name] = kept(p, values && p.name in values ? values[p.name] : p.default);
    }
    this.active = new Set(active || this.schema.active);
    this.build();
    return true;
  }

  state() {
    return {method: this.method, params: {...this.values}};
  }

  build() {
    const methods = el('select', {class: 'method', 'aria-label': `method of set ${this.name}`,
                                  onchange: async (e) => {
                                    if (await this.setMethod(e.target.value)) this.hooks.changed(this);
                                  }});
    for (const m of this.hooks.methods) {
      methods.append(el('option', {value: m, selected: m === this.method}, m));
    }
    const file = el('input', {type: 'file', accept: '.params,text/plain', hidden: true,
                              onchange: (e) => this.load(e.target)});
    this.presets = el('select', {class: 'presets', title: "the sequence's own .params files",
                                 onchange: (e) => this.preset(e.target)});
    this.saveParams = el('a', {class: 'button save-params disabled', download: true, title: 'the parameters as a .params file for flow-compute -p'}, 'Save .params');
    this.saveFlow = el('a', {class: 'button save-flow disabled', download: true, title: 'the flow shown, as a .flo file'}, 'Save .flo');
    const head = el('div', {class: 'set-head'},
      el('div', {class: 'method-row'}, el('label', {}, `Method `, methods),
         el('button', {type: 'button', class: 'defaults', title: "the method's defaults",
                       onclick: () => this.defaults()}, 'Defaults')),
      el('p', {class: 'title'}, this.schema.title),
      el('div', {class: 'buttons'},
         el('label', {class: 'button', title: 'read a .params file'}, 'Load .params', file),
         this.saveParams, this.saveFlow),
      this.presets);
    const list = el('div', {class: 'params'});
    this.rows = new Map();
    for (const p of this.schema.params) {
      const row = this.row(p);
      this.rows.set(p.name, row);
      list.append(row.element);
    }
    this.root.replaceChildren(head, list);
    this.refreshPresets();
    this.showActive();
  }

  // The control of one parameter: {element, set(value)}.
  row(p) {
    const id = `p${this.name}-${p.name}`;
    const element = el('div', {class: 'param', 'data-name': p.name,
                               title: `${p.help}\n${rangeText(p)}, default ${kept(p, p.default)}`});
    const change = (value) => {
      this.values[p.name] = value;
      element.classList.remove('invalid');
      this.hooks.changed(this);
    };
    let input;
    let set;
    if (p.type === 'bool') {
      input = el('input', {type: 'checkbox', id, onchange: (e) => change(e.target.checked)});
      set = (v) => { input.checked = v; };
    } else if (p.type === 'choice') {
      input = el('select', {id, onchange: (e) => change(e.target.value)});
      for (const c of p.choices) input.append(el('option', {value: c}, c));
      set = (v) => { input.value = v; };
    } else {
      const s = slider(p);
      const range = el('input', {type: 'range', min: s.min, max: s.max, step: s.step,
                                 'aria-label': `${p.name} slider`});
      input = el('input', {type: 'text', id, class: 'number', inputmode: 'decimal', spellcheck: 'false'});
      range.addEventListener('input', () => {
        input.value = String(s.value(Number(range.value)));
        change(input.value);
      });
      input.addEventListener('input', () => {
        const v = Number(input.value);
        if (input.value.trim() !== '' && Number.isFinite(v)) range.value = s.pos(v);
        change(input.value);
      });
      set = (v) => {
        input.value = v;
        if (Number.isFinite(Number(v))) range.value = s.pos(Number(v));
      };
      element.classList.add('number-param');
      element.append(el('div', {class: 'param-head'},
        el('label', {for: id}, p.name), el('span', {class: 'default'}, `[${kept(p, p.default)}]`)),
        el('div', {class: 'param-input'}, range, input));
    }
    if (p.type === 'bool' || p.type === 'choice') {
      element.append(el('div', {class: 'param-head'},
        el('label', {for: id}, p.name), el('span', {class: 'default'}, `[${kept(p, p.default)}]`),
        el('span', {class: 'param-input'}, input)));
    }
    element.append(el('div', {class: 'help'}, p.help));
    if (p.when) element.append(el('div', {class: 'when'}, `applies with ${p.when}`));
    set(this.values[p.name]);
    return {element, set, inputs: element.querySelectorAll('input, select')};
  }

  defaults() {
    for (const p of this.schema.params) {
      this.values[p.name] = kept(p, p.default);
      this.rows.get(p.name).set(this.values[p.name]);
    }
    this.active = new Set(this.schema.active);
    this.showActive();
    this.hooks.changed(this);
  }

  showActive() {
    for (const [name, row] of this.rows) {
      const on = this.active.has(name);
      row.element.classList.toggle('inactive', !on);
      for (const i of row.inputs) i.disabled = !on;
    }
  }

  // A computation's answer for this set: which parameters apply now, the
  // downloads of its flow and .params; or its error, the parameter it names
  // marked.
  result(r, client) {
    for (const row of this.rows.values()) row.element.classList.remove('invalid');
    if (r.error) {
      // the parameter the message names first ("parameter alpha = -5 ...", "rho: 'x' ...")
      let first = null;
      for (const [name, row] of this.rows) {
        const at = r.error.search(new RegExp(`\\b${name}\\b`));
        if (at >= 0 && (!first || at < first.at)) first = {at, row};
      }
      if (first) first.row.element.classList.add('invalid');
      return;
    }
    this.active = new Set(r.active);
    this.showActive();
    const base = `/api/download?client=${encodeURIComponent(client)}&result=${r.id}`;
    this.saveParams.href = withToken(`${base}&kind=params`);
    this.saveFlow.href = withToken(`${base}&kind=flo`);
    this.saveParams.classList.remove('disabled');
    this.saveFlow.classList.remove('disabled');
  }

  // Takes a .params file's method and values ({method, params, active}).
  async take(loaded) {
    if (await this.setMethod(loaded.method, loaded.params, loaded.active)) this.hooks.changed(this);
  }

  async load(input) {
    const f = input.files[0];
    input.value = '';
    if (!f) return;
    const r = await postJSON('/api/params/read', {name: f.name, text: await f.text()});
    if (!r.ok) this.hooks.error(r.data.error);
    else await this.take(r.data);
  }

  refreshPresets() {
    if (!this.presets) return;  // not built yet: build() calls it
    const seq = this.hooks.sequence();
    const names = seq ? seq.presets : [];
    this.presets.replaceChildren(el('option', {value: ''},
      names.length ? `the sequence's .params (${names.length})\u2026` : 'no .params with the sequence'));
    for (const n of names) this.presets.append(el('option', {value: n}, n));
    this.presets.disabled = !names.length;
  }

  async preset(select) {
    const name = select.value;
    select.value = '';
    const seq = this.hooks.sequence();
    if (!name || !seq) return;
    const r = await getJSON(`/api/params/preset?sequence=${seq.id}&name=${encodeURIComponent(name)}`);
    if (!r.ok) this.hooks.error(r.data.error);
    else await this.take(r.data);
  }
}
