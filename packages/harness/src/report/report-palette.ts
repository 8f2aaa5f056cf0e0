/**
 * The report's colours. Members get distinct hues (no pure red: red means
 * trouble here: violations, conflicts, timeouts); states get colours that
 * read as "settled" (green), "moving" (oranges), "out" (greys, purples)
 * and "broken" (reds).
 */
const MEMBER_COLOURS = [
  "#1f77b4",
  "#ff7f0e",
  "#2ca02c",
  "#9467bd",
  "#8c564b",
  "#e377c2",
  "#17becf",
  "#bcbd22",
  "#7f7f7f",
  "#393b79",
  "#aec7e8",
  "#ffbb78",
  "#98df8a",
  "#c5b0d5",
  "#c49c94",
  "#f7b6d2",
  "#9edae5",
  "#dbdb8d",
  "#637939",
  "#6b6ecf",
];

/** The colour of the i-th member: the table first, then hues spread by the golden angle. */
export function memberColour(i: number): string {
  return MEMBER_COLOURS[i] ?? `hsl(${Math.round((i * 137.508) % 360)} 55% ${i % 2 === 0 ? 45 : 62}%)`;
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
  const rules: string[] = [];
  for (let i = 0; i < memberCount; i++)
    rules.push(`.m${i}{fill:${memberColour(i)};stroke:${memberColour(i)};background:${memberColour(i)}}`);
  for (const [state, colour] of Object.entries(STATE_COLOURS)) rules.push(`.s-${token(state)}{fill:${colour};background:${colour}}`);
  for (const [state, colour] of Object.entries(SERVER_STATE_COLOURS))
    rules.push(`.ss-${token(state)}{fill:${colour};background:${colour}}`);
  rules.push(`.s-other,.ss-other{fill:${OTHER_STATE};background:${OTHER_STATE}}`);
  return rules.join("\n");
}
