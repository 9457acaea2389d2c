// state.js -- the page's state in its address, so that a link shares a
// sequence, a pair and one or two parameter sets: everything after the
// '#' (which the browser never sends to the server), as fields
//   seq=GROUP/NAME  pair=N  a=SET  b=SET  color=PX  error=PX  arrows=A
// where SET is the JSON of {method, params}, params being the values that
// differ from the method's defaults, and an empty color is the automatic
// scale.  Opening such an address restores it.

// The key of a sequence in the address: its group and name, which stay
// the same when the studio is started again (its id does not).
export function sequenceKey(seq) {
  return seq ? `${seq.group}/${seq.name}` : '';
}

// Writes the state into the address without adding to the history.
export function writeState(state) {
  const q = new URLSearchParams();
  q.set('seq', state.sequence);
  q.set('pair', String(state.pair));
  state.sets.forEach((set, k) => q.set('ab'[k], JSON.stringify(set)));
  q.set('color', state.color_max);
  q.set('error', state.error_max);
  q.set('arrows', state.arrows);
  const hash = `#${q.toString()}`;
  if (window.location.hash !== hash) history.replaceState(null, '', hash);
}

// The state the address carries, or null when it carries none (or what
// it carries does not read as a state).
export function readState() {
  const text = window.location.hash.replace(/^#/, '');
  if (!text) return null;
  const q = new URLSearchParams(text);
  if (!q.has('seq') || !q.has('a')) return null;
  const sets = [];
  for (const k of ['a', 'b']) {
    if (!q.has(k)) continue;
    try {
      const set = JSON.parse(q.get(k));
      if (set && typeof set.method === 'string') {
        sets.push({method: set.method,
                   params: set.params && typeof set.params === 'object' ? set.params : null});
      }
    } catch (e) {
      // a set that does not read: left out, the method's defaults instead
    }
  }
  const pair = Number(q.get('pair'));
  return {sequence: q.get('seq'), pair: Number.isInteger(pair) ? pair : null, sets,
          color_max: q.get('color') || '', error_max: q.get('error') || '',
          arrows: q.get('arrows') || 'auto'};
}
