/**
 * The report's colours. Members get colours of their own, never repeated,
 * however many there are: hues spread by the golden angle in CIE LCh
 * (perceptually even, so no two neighbours look alike), three lightness
 * levels in turn, and no hue near red (red means trouble here: violations,
 * conflicts, timeouts). States get colours that read as "settled" (green),
 * "moving" (oranges), "out" (greys, purples) and "broken" (reds).
 */
const GOLDEN_ANGLE = 137.50776405003785;
/** LCh hues of red (about 20-50 degrees) that members never get. */
const RED_FROM = 10;
const RED_TO = 55;
const LIGHTNESS = [58, 44, 72] as const;
const CHROMA = [52, 44, 40] as const;

/** CIE LCh(ab) (D65) to sRGB hex, reducing chroma until the colour fits sRGB. */
export function lchToHex(l: number, c: number, h: number): string {
  for (let chroma = c; chroma >= 0; chroma -= 2) {
    const rgb = lchToSrgb(l, chroma, h);
    if (rgb.every((v) => v >= -1e-9 && v <= 1 + 1e-9))
      return `#${rgb
        .map((v) =>
          Math.round(Math.min(1, Math.max(0, v)) * 255)
            .toString(16)
            .padStart(2, "0"),
        )
        .join("")}`;
  }
  return "#808080";
}

function lchToSrgb(l: number, c: number, h: number): [number, number, number] {
  const a = c * Math.cos((h * Math.PI) / 180);
  const b = c * Math.sin((h * Math.PI) / 180);
  const fy = (l + 16) / 116;
  const fx = fy + a / 500;
  const fz = fy - b / 200;
  const inv = (t: number) => (t ** 3 > 216 / 24389 ? t ** 3 : (116 * t - 16) / (24389 / 27));
  const [x, y, z] = [0.95047 * inv(fx), 1 * inv(fy), 1.08883 * inv(fz)];
  const linear = [
    3.2404542 * x - 1.5371385 * y - 0.4985314 * z,
    -0.969266 * x + 1.8760108 * y + 0.041556 * z,
    0.0556434 * x - 0.2040259 * y + 1.0572252 * z,
  ];
  return linear.map((v) => (v <= 0.0031308 ? 12.92 * v : 1.055 * v ** (1 / 2.4) - 0.055)) as [number, number, number];
}

/** The colours of `count` members, in order: all different (a colour that rounds to one already given is nudged lighter). */
export function memberPalette(count: number): string[] {
  const usable = 360 - (RED_TO - RED_FROM);
  const seen = new Set<string>();
  const out: string[] = [];
  for (let i = 0; i < count; i++) {
    // Hues over the circle without the red band, by the golden angle: never the same hue twice.
    const along = (200 + i * GOLDEN_ANGLE) % usable;
    const hue = along < RED_FROM ? along : along + (RED_TO - RED_FROM);
    const level = i % 3;
    let colour = lchToHex(LIGHTNESS[level] as number, CHROMA[level] as number, hue);
    for (let nudge = 1; seen.has(colour); nudge++) colour = lchToHex((LIGHTNESS[level] as number) + nudge, CHROMA[level] as number, hue);
    seen.add(colour);
    out.push(colour);
  }
  return out;
}

/** Client states (member.state) and group states (gc.group) share one palette: the same name means the same thing. */
export const STATE_COLOURS: Readonly<Record<string, string>> = {
  STABLE: "#8fd18a",
  JOINING: "#fdd9ae",
  RECONCILING: "#fdb46e",
  ACKNOWLEDGING: "#fd9448",
  ASSIGNING: "#fdd9ae",
  UNSUBSCRIBED: "#e3e3e3",
  UNJOINED: "#e3e3e3",
  EMPTY: "#e9e9e9",
  PREPARING_REBALANCE: "#fdb46e",
  COMPLETING_REBALANCE: "#fd9448",
  PREPARE_LEAVING: "#cfcde6",
  LEAVING: "#aba6d3",
  FENCED: "#f08080",
  STALE: "#f4a582",
  FATAL: "#b2182b",
  DEAD: "#9a9a9a",
};

/** The coordinator's view of a member (gc.member state). */
export const SERVER_STATE_COLOURS: Readonly<Record<string, string>> = {
  STABLE: "#b9dfb4",
  UNREVOKED_PARTITIONS: "#fcc893",
  UNRELEASED_PARTITIONS: "#cdc9ec",
  UNKNOWN: "#e6e6e6",
};

const OTHER_STATE = "#d0d0d0";

const token = (state: string) => state.replace(/[^A-Za-z0-9_]/g, "_");

/** The CSS class of a state: `s-STABLE` (client and group), `ss-STABLE` (coordinator's view of a member). */
export function stateClass(state: string, server = false): string {
  const known = server ? SERVER_STATE_COLOURS : STATE_COLOURS;
  return state in known ? `${server ? "ss" : "s"}-${token(state)}` : `${server ? "ss" : "s"}-other`;
}

/** CSS for the member colour classes (`m0`, `m1`, ...) and the state classes. */
export function paletteCss(memberCount: number): string {
  const rules = memberPalette(memberCount).map((colour, i) => `.m${i}{fill:${colour};stroke:${colour};background:${colour}}`);
  for (const [state, colour] of Object.entries(STATE_COLOURS)) rules.push(`.s-${token(state)}{fill:${colour};background:${colour}}`);
  for (const [state, colour] of Object.entries(SERVER_STATE_COLOURS))
    rules.push(`.ss-${token(state)}{fill:${colour};background:${colour}}`);
  rules.push(`.s-other,.ss-other{fill:${OTHER_STATE};background:${OTHER_STATE}}`);
  return rules.join("\n");
}
