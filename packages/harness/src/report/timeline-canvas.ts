import type { Micros } from "@kcsim/protocol";
import { escapeXml, num, title } from "./svg-markup.js";

/** Width of the label column left of the charts, px. */
export const LABEL_WIDTH = 210;
/** Height of the time axis above the charts, px. */
export const AXIS_HEIGHT = 34;
/** Plot width the page starts with before the script fits it to the window, px. */
export const INITIAL_PLOT_WIDTH = 1240;
/** The narrowest a bar is drawn, px (at any zoom): intervals shorter than a pixel stay visible. */
export const MIN_DRAWN_PX = 3;
/** Bars shorter than the run / this may fall under MIN_DRAWN_PX at some zoom (the page can fit the run in 200 px). */
const SHORT_FRACTION = 200 / MIN_DRAWN_PX;
/** Average advance of a character of the 10 px labels, px: decides whether a label fits its segment. */
const CHAR_WIDTH = 5.9;

/** Shapes every timeline glyph uses: drawn once in <defs>, placed with <use>. Centred on (0, 0), about 10 px. */
const GLYPHS: Readonly<Record<string, string>> = {
  start: '<path d="M-4.5 4L4.5 4L0-4Z"/>',
  crash: '<path d="M-4.5-4L4.5-4L0 4Z"/>',
  pause: '<path d="M-4-4.5h3v9h-3zM1-4.5h3v9h-3z"/>',
  resume: '<path d="M-3.5-4.5L4.5 0L-3.5 4.5Z"/>',
  command: '<circle r="3.5"/>',
  clock: '<path d="M0-4.5L4.5 0L0 4.5L-4.5 0Z"/>',
  timeout: '<path d="M-4-4L4 4M4-4L-4 4" fill="none" stroke-width="2.2"/>',
  leave: '<circle r="3.5" fill="none" stroke-width="1.6"/>',
  poll: '<path d="M0-5L5 0L0 5L-5 0Z"/>',
  target: '<path d="M-3.5-5L3.5-5L0 0Z"/>',
  ring: '<circle r="5.5" fill="none" stroke-width="2"/>',
  // Connection trouble: a lightning bolt (broken by a fault), a square (reset), an hourglass (a request timed out), an open
  // hourglass (a connect timed out).
  "conn-break": '<path d="M2.5-6L-4.5 1.2H-0.5L-2.5 6L4.5-1.2H0.5Z"/>',
  "conn-reset": '<path d="M-4-4h8v8h-8z"/>',
  "conn-close": '<path d="M-4-4.5h8L-4 4.5h8Z"/>',
  "conn-connect-timeout": '<path d="M-4-4.5h8L-4 4.5h8Z" fill="none" stroke-width="1.6"/>',
};

export type Glyph = keyof typeof GLYPHS;

/** A glyph's shape as SVG, centred on (0, 0): for a drawing that has no <defs> of its own (the explanation panel). */
export function glyphShape(glyph: Glyph): string {
  return GLYPHS[glyph] ?? "";
}

interface FullHeight {
  readonly fromUs: Micros;
  readonly toUs: Micros;
  readonly cls: string;
  readonly tip: string;
}

const ms = (us: Micros) => num(us / 1000);

/**
 * Collects the timeline's SVG while lanes lay out their rows top to bottom
 * (`y` is the next free row). Shapes along time live in one group scaled
 * horizontally by the zoom (x in milliseconds, strokes that do not scale);
 * text and glyphs are placed in pixels at the current zoom and carry their
 * times (`data-t`, `data-a`/`data-b`) so the page script can place them
 * again when the zoom changes. Row labels go to a separate column that does
 * not scroll sideways.
 */
export class TimelineCanvas {
  y = 0;
  readonly durationUs: Micros;
  /** Pixels per millisecond at the initial zoom. */
  readonly pxPerMs: number;
  readonly #labels: string[] = [];
  readonly #scaled: string[] = [];
  readonly #marks: string[] = [];
  readonly #axis: string[] = [];
  readonly #bands: FullHeight[] = [];
  readonly #lines: FullHeight[] = [];
  #rows = 0;
  /** Rects shorter than this (ms) carry their true width, so the page can draw them at least MIN_DRAWN_PX wide. */
  readonly #shortMs: number;

  constructor(durationUs: Micros, widthPx = INITIAL_PLOT_WIDTH) {
    this.durationUs = Math.max(durationUs, 1);
    this.pxPerMs = widthPx / (this.durationUs / 1000);
    this.#shortMs = this.durationUs / 1000 / SHORT_FRACTION;
  }

  #x(us: Micros): string {
    return num((us / 1000) * this.pxPerMs, 1);
  }

  /**
   * A bar along time (scaled with the zoom). A bar too short to see at some zoom (an 80 ms overlap in a
   * 10-minute run is 0.2 px wide) is marked `short` with its true width: the page draws it at least
   * MIN_DRAWN_PX wide whatever the zoom, and its tooltip keeps the true span.
   */
  rect(fromUs: Micros, toUs: Micros, y: number, height: number, cls: string, tip?: string): void {
    const body = tip === undefined ? "/>" : `>${title(tip)}</rect>`;
    const widthMs = Math.max(toUs - fromUs, 0) / 1000;
    const short = widthMs < this.#shortMs && widthMs > 0;
    const drawn = short ? Math.max(widthMs, MIN_DRAWN_PX / this.pxPerMs) : widthMs;
    this.#scaled.push(
      `<rect x="${ms(fromUs)}" y="${num(y, 1)}" width="${num(drawn)}" height="${num(height, 1)}" class="${cls}${short ? " short" : ""}"${short ? ` data-w="${num(widthMs)}"` : ""}${body}`,
    );
  }

  /**
   * A row: everything `draw` puts on every layer (labels, bars, marks) goes into one group per layer
   * carrying `attributes` and the row's extent, so the page can hide a row (the member and topic
   * filters) and move the rows below it up.
   */
  row(cls: string, attributes: Readonly<Record<string, string>>, draw: () => void): void {
    const r = this.#rows++;
    const top = this.y;
    const attrs = Object.entries(attributes)
      .map(([name, value]) => ` ${name}="${escapeXml(value)}"`)
      .join("");
    const layers = [this.#labels, this.#scaled, this.#marks];
    const opened = layers.map((layer) => layer.push("") - 1);
    draw();
    const open = `<g class="row ${cls}" data-r="${r}" data-y0="${num(top, 1)}" data-h="${num(this.y - top, 1)}"${attrs}>`;
    layers.forEach((layer, i) => {
      layer[opened[i] as number] = open;
      layer.push("</g>");
    });
  }

  /** A polyline along time: points as (time, y). */
  polyline(points: readonly (readonly [Micros, number])[], cls: string, closed = false): void {
    const pts = points.map(([t, y]) => `${ms(t)},${num(y, 1)}`).join(" ");
    this.#scaled.push(`<${closed ? "polygon" : "polyline"} points="${pts}" class="${cls}"/>`);
  }

  /** A horizontal line along time at `y`. */
  hline(fromUs: Micros, toUs: Micros, y: number, cls: string, tip?: string): void {
    const body = tip === undefined ? "/>" : `>${title(tip)}</line>`;
    this.#scaled.push(`<line x1="${ms(fromUs)}" x2="${ms(toUs)}" y1="${num(y, 1)}" y2="${num(y, 1)}" class="${cls}"${body}`);
  }

  /** A band across every lane (fault windows): drawn behind everything. */
  band(fromUs: Micros, toUs: Micros, cls: string, tip: string): void {
    this.#bands.push({ fromUs, toUs, cls, tip });
  }

  /** A vertical line across every lane (violations): drawn over everything. */
  vline(tUs: Micros, cls: string, tip: string): void {
    this.#lines.push({ fromUs: tUs, toUs: tUs, cls, tip });
  }

  /** Text inside the span [fromUs, toUs): shown only while the span is wide enough at the current zoom. */
  text(fromUs: Micros, toUs: Micros, y: number, text: string, cls = "lbl"): void {
    const width = Math.ceil(text.length * CHAR_WIDTH);
    const fits = ((toUs - fromUs) / 1000) * this.pxPerMs >= width + 6;
    this.#marks.push(
      `<text class="${cls}" x="${num((fromUs / 1000) * this.pxPerMs + 3, 1)}" y="${num(y, 1)}" data-a="${ms(fromUs)}" data-b="${ms(toUs)}" data-w="${width}"${fits ? "" : ' display="none"'}>${escapeXml(text)}</text>`,
    );
  }

  /** A glyph at an instant. */
  glyph(tUs: Micros, y: number, glyph: Glyph, cls: string, tip: string, extra = ""): void {
    this.#marks.push(
      `<g class="pt ${cls}" data-t="${ms(tUs)}" data-y="${num(y, 1)}" transform="translate(${this.#x(tUs)} ${num(y, 1)})"${extra}>${title(tip)}<use href="#g-${glyph}"/></g>`,
    );
  }

  /** A numbered flag on the time axis (a violation): clicking it opens that violation's explanation. */
  axisFlag(tUs: Micros, label: string, tip: string, violation: number): void {
    this.#axis.push(
      `<g class="pt flag" data-explain="${violation}" data-t="${ms(tUs)}" data-y="22" transform="translate(${this.#x(tUs)} 22)">${title(tip)}<circle r="8"/><text y="3.5">${escapeXml(label)}</text></g>`,
    );
  }

  /** Raw SVG for the label column. */
  label(svg: string): void {
    this.#labels.push(svg);
  }

  /** A row label: text at the right height, with an optional colour swatch class and a second, smaller line. */
  rowLabel(text: string, y: number, height: number, options: { swatch?: string; sub?: string; cls?: string; indent?: number } = {}): void {
    const x = 8 + (options.indent ?? 0);
    const mid = y + height / 2;
    const parts: string[] = [];
    let textX = x;
    if (options.swatch !== undefined) {
      parts.push(`<rect x="${x}" y="${num(mid - 5, 1)}" width="10" height="10" rx="2" class="${options.swatch}"/>`);
      textX += 15;
    }
    if (options.sub === undefined) {
      parts.push(`<text x="${textX}" y="${num(mid + 3.5, 1)}" class="${options.cls ?? "rl"}">${escapeXml(text)}</text>`);
    } else {
      parts.push(`<text x="${textX}" y="${num(mid - 1.5, 1)}" class="${options.cls ?? "rl"}">${escapeXml(text)}</text>`);
      parts.push(`<text x="${textX}" y="${num(mid + 9, 1)}" class="rs">${escapeXml(options.sub)}</text>`);
    }
    this.#labels.push(parts.join(""));
  }

  /** A lane's heading: a title in the label column and a rule across the plot. */
  section(heading: string, note?: string): void {
    this.row("srow", {}, () => {
      const y = this.y;
      this.#labels.push(`<text x="8" y="${y + 16}" class="sh">${escapeXml(heading)}</text>`);
      this.#labels.push(`<line x1="0" x2="${LABEL_WIDTH}" y1="${y + 0.5}" y2="${y + 0.5}" class="rule"/>`);
      this.hline(0, this.durationUs, y + 0.5, "rule");
      if (note !== undefined) this.text(0, this.durationUs, y + 15, note, "note");
      this.y += 22;
    });
  }

  get height(): number {
    return Math.ceil(this.y + 6);
  }

  get widthPx(): number {
    return Math.ceil((this.durationUs / 1000) * this.pxPerMs);
  }

  labelsSvg(): string {
    return `<svg class="tl-labels" width="${LABEL_WIDTH}" height="${this.height}" xmlns="http://www.w3.org/2000/svg">${this.#labels.join("")}</svg>`;
  }

  axisSvg(): string {
    return `<svg id="tl-axis" class="tl-axis" width="${this.widthPx}" height="${AXIS_HEIGHT}" xmlns="http://www.w3.org/2000/svg"><g id="tl-ticks"></g>${this.#axis.join("")}<rect id="tl-brush" x="0" y="0" width="0" height="${AXIS_HEIGHT}"/></svg>`;
  }

  plotSvg(): string {
    const h = this.height;
    const full = (f: FullHeight, element: "rect" | "line") =>
      element === "rect"
        ? `<rect x="${ms(f.fromUs)}" y="0" width="${ms(Math.max(f.toUs - f.fromUs, 0))}" height="${h}" class="${f.cls}">${title(f.tip)}</rect>`
        : `<line x1="${ms(f.fromUs)}" x2="${ms(f.fromUs)}" y1="0" y2="${h}" class="${f.cls}">${title(f.tip)}</line>`;
    const defs = Object.entries(GLYPHS)
      .map(([name, shape]) => `<g id="g-${name}">${shape}</g>`)
      .join("");
    return [
      `<svg id="tl-plot" class="tl-plot" width="${this.widthPx}" height="${h}" data-duration-ms="${ms(this.durationUs)}" data-px-per-ms="${this.pxPerMs}" xmlns="http://www.w3.org/2000/svg">`,
      `<defs>${defs}</defs>`,
      `<g id="tl-grid"></g>`,
      `<g class="ts" transform="scale(${this.pxPerMs} 1)">`,
      this.#bands.map((b) => full(b, "rect")).join(""),
      this.#scaled.join(""),
      this.#lines.map((l) => full(l, "line")).join(""),
      "</g>",
      `<g class="marks">${this.#marks.join("")}</g>`,
      `<line id="tl-cursor" x1="0" x2="0" y1="0" y2="${h}"/>`,
      "</svg>",
    ].join("");
  }
}
