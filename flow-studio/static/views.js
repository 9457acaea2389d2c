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

// The canvas of the arrows is the frame enlarged a whole number of times
// to about ARROWS_WIDTH pixels, so that the arrows of a small frame are
// drawn finely rather than blown up with the picture.
const ARROWS_WIDTH = 1200;

// Draws the frame (an Image) and the arrows of `vectors` on canvas, as
// the library draws them (flow/render.h): one every vectors.step pixels, a
// filled head 35 % of the arrow, at most 0.3 step, at least 2.5 line
// widths, outlined in black; the lines a little finer than the library's
// (0.6 step / 16 frame pixels, at least 0.6), since the page shows the
// picture smaller than the canvas.  Returns the factor applied to the
// vectors.
export function drawArrows(canvas, frame, vectors, scale) {
  const zoom = Math.max(1, Math.floor(ARROWS_WIDTH / frame.naturalWidth));
  canvas.width = frame.naturalWidth * zoom;
  canvas.height = frame.naturalHeight * zoom;
  const g = canvas.getContext('2d');
  g.imageSmoothingEnabled = false;
  g.drawImage(frame, 0, 0, canvas.width, canvas.height);
  g.fillStyle = 'rgba(0, 0, 0, 0.25)';  // the arrows stand out of a bright frame
  g.fillRect(0, 0, canvas.width, canvas.height);
  const k = arrowFactor(vectors, scale);
  const {step, columns, rows} = vectors;
  const width = 0.6 * zoom * Math.max(1, step / 16);
  const shafts = new Path2D(), heads = new Path2D();
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < columns; c++) {
      const i = r * columns + c;
      if (vectors.u[i] === null) continue;
      const x = zoom * (c * step + Math.floor(step / 2) + 0.5);
      const y = zoom * (r * step + Math.floor(step / 2) + 0.5);
      const dx = zoom * vectors.u[i] * k, dy = zoom * vectors.v[i] * k;
      const len = Math.hypot(dx, dy);
      if (len < 0.5) {
        shafts.moveTo(x, y);
        shafts.lineTo(x, y);
        continue;
      }
      const head = Math.min(len, Math.max(Math.min(0.35 * len, 0.3 * step * zoom), 2.5 * width));
      const half = Math.max(0.35 * head, 1.25 * width);
      const ux = dx / len, uy = dy / len, tx = x + dx, ty = y + dy;
      const bx = tx - head * ux, by = ty - head * uy;
      if (len > head) {
        shafts.moveTo(x, y);
        shafts.lineTo(bx, by);
      }
      heads.moveTo(tx, ty);
      heads.lineTo(bx - half * uy, by + half * ux);
      heads.lineTo(bx + half * uy, by - half * ux);
      heads.closePath();
    }
  }
  g.lineCap = 'round';
  g.lineJoin = 'round';
  g.strokeStyle = 'rgba(0, 0, 0, 0.85)';  // the outline, then the arrows
  g.lineWidth = 2 * width;
  g.stroke(shafts);
  g.stroke(heads);
  g.strokeStyle = g.fillStyle = '#ffd84a';
  g.lineWidth = width;
  g.stroke(shafts);
  g.fill(heads);
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

// The key of the error map: "0", the ramp, "2 px or more" at its end, and
// the colour of the pixels not scored.
export function errorKey(ramp, notScored, max) {
  const stops = ramp.map(([t, r, g, b]) => `rgb(${r},${g},${b}) ${100 * t}%`).join(', ');
  return el('div', {class: 'key error-key'},
    el('span', {}, '0'),
    el('span', {class: 'bar', style: `background: linear-gradient(to right, ${stops})`}),
    el('span', {}, `${short(max)} px or more`),
    el('span', {class: 'swatch', style: `background: rgb(${notScored.join(',')})`}),
    el('span', {}, 'not scored'));
}

// The full-size view: a picture (an img or a canvas) at its own size, or
// fitted to the window when larger, over the page; a click or Escape
// closes it, a click on the picture toggles fitted and 1:1.
export function fullSize(picture, caption) {
  const src = picture.tagName === 'CANVAS' ? picture.toDataURL() : picture.src;
  const img = el('img', {src, class: 'full fit', alt: caption});
  const view = el('div', {id: 'full-view', role: 'dialog', 'aria-label': caption},
    el('div', {class: 'full-bar'}, el('span', {}, caption),
       el('span', {class: 'dim'}, ' \u2014 click the picture: fitted / 1:1; Escape or click outside: close')),
    img);
  const close = () => {
    view.remove();
    document.removeEventListener('keydown', onKey);
  };
  const onKey = (e) => { if (e.key === 'Escape') close(); };
  view.addEventListener('click', (e) => {
    if (e.target === img) img.classList.toggle('fit');
    else close();
  });
  document.addEventListener('keydown', onKey);
  document.body.append(view);
  return view;
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
