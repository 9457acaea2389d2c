// live.js -- the live mode: the server computes the flow of each frame and
// the next of a sequence, video or camera with set A's parameters and sends
// each as an event (/api/live); the page draws the newest one when the
// browser paints, dropping any that came in meanwhile, so the picture keeps
// up with the device.  A change of parameters starts the stream anew.
import {el, short, withToken} from './api.js';
import {colorKey, drawArrows, errorKey, figure, loadImage, statsLine} from './views.js';

// Events over which the rate of drawing is measured.
const WINDOW = 10;

export class Live {
  constructor(app, showError) {
    this.app = app;
    this.showError = showError;
    this.source = null;  // the EventSource while playing
    this.pending = null; // the newest event not drawn yet
    this.drawing = false; // a drawing is under way or asked for
    this.drawn = [];     // when the last events were drawn
    document.getElementById('play').addEventListener('click', () => (this.source ? this.stop() : this.start()));
    document.getElementById('live-source').addEventListener('change', () => this.restart());
  }

  fillSources(sequences) {
    const select = document.getElementById('live-source');
    select.replaceChildren(...sequences.filter((s) => s.kind !== 'frames' || s.frames >= 2).map((s) =>
      el('option', {value: s.id}, `${s.name} (${s.kind === 'frames' ? `${s.frames} frames` : s.kind})`)));
  }

  status(text) {
    document.getElementById('live-status').textContent = text;
  }

  start() {
    this.stop();
    const set = this.app.sets[0].state();
    const {displayOptions} = this.app;
    const q = {sequence: document.getElementById('live-source').value, ...set, ...displayOptions()};
    const url = `/api/live?client=${encodeURIComponent(this.app.client)}&q=${encodeURIComponent(JSON.stringify(q))}`;
    const source = new EventSource(withToken(url));
    this.source = source;
    this.drawn = [];
    document.getElementById('play').textContent = 'Stop';
    this.status('starting\u2026');
    source.addEventListener('start', (e) => {
      const d = JSON.parse(e.data);
      this.showError('');
      this.status(`${d.method} on ${d.device}${d.notice ? ` (${d.notice})` : ''}`);
    });
    source.addEventListener('flow', (e) => {
      this.pending = JSON.parse(e.data);
      if (!this.drawing) {
        this.drawing = true;
        requestAnimationFrame(() => this.draw());
      }
    });
    source.addEventListener('failure', (e) => {
      this.showError(JSON.parse(e.data).error);
      this.stop();
    });
    source.addEventListener('end', () => this.stop());
    source.onerror = () => {
      if (this.source === source) {
        this.showError('the live stream broke off: is flow-studio still running?');
        this.stop();
      }
    };
  }

  stop() {
    if (this.source) this.source.close();
    this.source = null;
    document.getElementById('play').textContent = 'Play';
  }

  // Called when set A or the display options change: a running stream
  // starts again with them.
  restart() {
    if (this.source) this.start();
  }

  async draw() {
    const d = this.pending;
    this.pending = null;
    const now = performance.now();
    this.drawn.push(now);
    if (this.drawn.length > WINDOW) this.drawn.shift();
    const shownRate = this.drawn.length > 1 ? (this.drawn.length - 1) * 1000 / (now - this.drawn[0]) : null;
    const frame = await loadImage(d.frame);
    const canvas = el('canvas', {class: 'picture arrows'});
    drawArrows(canvas, frame, d.vectors, document.getElementById('arrow-scale').value);
    const cells = [
      figure(el('img', {src: d.color, class: 'picture color', alt: 'colour coding'}), colorKey(d.scale)),
      figure(canvas, `arrows, one every ${d.vectors.step} px`),
    ];
    if (d.error_map) {
      cells.push(figure(el('img', {src: d.error_map, class: 'picture error-map', alt: 'error map'}),
        el('span', {}, statsLine(d.stats, d.stats_note),
           errorKey(this.app.info.error_ramp, this.app.info.not_scored, this.app.displayOptions().error_max))));
    }
    const figures = el('p', {class: 'live-figures'},
      el('b', {class: 'fps'}, `${short(d.fps)} flows/s`), ' computed, ',
      `${short(shownRate)} drawn/s; `,
      el('b', {}, `${short(d.time_ms, 4)} ms`), ` per flow; pair ${d.pair} \u2192 ${d.pair + 1} `,
      d.error_map ? null : statsLine(null, d.stats_note));
    document.getElementById('live-results').replaceChildren(figures,
      el('div', {class: 'grid', style: `grid-template-columns: repeat(${cells.length}, minmax(0, 1fr))`}, ...cells));
    if (this.pending) requestAnimationFrame(() => this.draw());
    else this.drawing = false;
  }
}
