// views.js -- what a flow looks like on the page: the colour coding with
// its key, arrows over the frame (drawn on a canvas from the vectors the
// server samples), the error map with its scale, and the figures: time,
// device, AAE, AEE.  The pair view and the live view both use it.
import {el, short, withToken} from './api.js';

export function loadImage(url) {
  return new Promise((resolve, reject) => {
    const img = new Image();
    img.onload = () => resolve(img);
    img.onerror = () => reject(new Error(`cannot load ${url.slice(0, 60)}`));
    img.src = url;
  });
}

// The frames of the pair view by URL, loaded once: a pair comes back often.
const frames = new Map();
const FRAMES_KEPT = 32;

export function image(url) {
  if (!frames.has(url)) {
    frames.set(url, loadImage(url));
    if (frames.size > FRAMES_KEPT) frames.delete(frames.keys().next().value);
  }
  return frames.get(url);
}

// The arrows' length factor: `scale` (a number), or "auto": the longest
// sampled vector as long as 0.9 of the sampling step.
function arrowFactor(vectors, scale) {
  if (scale !== 'auto') return Number(scale);
  let longest = 0;
  for (let i = 0; i < vectors.u.length; i++) {
    if (vectors.u[i] === null) continue;
    longest = Math.max(longest, Math.hypot(vectors.u[i], vectors.v[i]));
  }
  return longest > 0 ? 0.9 * vectors.step / longest : 1;
}

// Draws the frame (an Image) and the arrows of `vectors` on canvas.
// Returns the factor applied to the vectors.
export function drawArrows(canvas, frame, vectors, scale) {
  canvas.width = frame.naturalWidth;
  canvas.height = frame.naturalHeight;
  const g = canvas.getContext('2d');
  g.drawImage(frame, 0, 0);
  g.fillStyle = 'rgba(0, 0, 0, 0.25)';  // the arrows stand out of a bright frame
  g.fillRect(0, 0, canvas.width, canvas.height);
  const k = arrowFactor(vectors, scale);
  const {step, columns, rows} = vectors;
  const path = new Path2D();
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < columns; c++) {
      const i = r * columns + c;
      if (vectors.u[i] === null) continue;
      const x = c * step + Math.floor(step / 2) + 0.5, y = r * step + Math.floor(step / 2) + 0.5;
      const dx = vectors.u[i] * k, dy = vectors.v[i] * k;
      const len = Math.hypot(dx, dy);
      if (len < 0.5) {
        path.rect(x - 0.5, y - 0.5, 1, 1);
        continue;
      }
      const hx = x + dx, hy = y + dy, head = Math.min(0.35 * len, step / 3);
      const ux = dx / len, uy = dy / len;
      path.moveTo(x, y);
      path.lineTo(hx, hy);
      path.moveTo(hx - head * (ux - 0.5 * uy), hy - head * (uy + 0.5 * ux));
      path.lineTo(hx, hy);
      path.lineTo(hx - head * (ux + 0.5 * uy), hy - head * (uy - 0.5 * ux));
    }
  }
  g.lineCap = 'round';
  g.strokeStyle = 'rgba(0, 0, 0, 0.8)';
  g.lineWidth = 3;
  g.stroke(path);
  g.strokeStyle = '#ffd84a';
  g.lineWidth = 1.4;
  g.stroke(path);
  return k;
}

// The figures of a flow against ground truth, and the note on them (why
// there are none, a mask left out); null when there is neither.
export function statsLine(stats, note) {
  if (!stats && !note) return null;
  const line = el('span', {class: 'stats'});
  if (stats) {
    line.append(el('b', {class: 'aae'}, `AAE ${short(stats.aae, 4)}\u00b0`), ' ',
      el('b', {class: 'aee'}, `AEE ${short(stats.aee, 4)} px`), ' ',
      `EE>1px ${short(100 * stats.over1)} %`, ' ',
      el('span', {class: 'dim', title: 'pixels scored, of all'}, `(${stats.scored} of ${stats.total} px) `));
  }
  if (note) line.append(el('span', {class: 'note'}, note));
  return line;
}

// The key of the error map: the ramp from 0 to `max` px.
export function errorKey(ramp, notScored, max) {
  const stops = ramp.map(([t, r, g, b]) => `rgb(${r},${g},${b}) ${100 * t}%`).join(', ');
  return el('div', {class: 'key'},
    el('span', {class: 'bar', style: `background: linear-gradient(to right, ${stops})`}),
    el('span', {}, `0 \u2013 ${short(max)} px and more; `),
    el('span', {class: 'swatch', style: `background: rgb(${notScored.join(',')})`}),
    el('span', {}, ' not scored'));
}

export function colorKey(scale) {
  return el('div', {class: 'key'},
    el('img', {src: withToken('/api/legend.png'), class: 'legend', alt: 'colour key'}),
    el('span', {}, `the rim: ${short(scale)} px; the hue is the direction (right red, down yellow, left blue, up violet)`));
}

// The cell of one picture: a figure with its caption.
export function figure(content, caption) {
  return el('figure', {}, content, el('figcaption', {}, caption));
}
