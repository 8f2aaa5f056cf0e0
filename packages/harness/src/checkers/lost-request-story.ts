import type { LostAssignmentAnswer } from "../analysis/lost-assignment-answers.js";
import { formatSeconds } from "../report/time-format.js";

/**
 * A request its client had given up, as a story tells it: "a ConsumerGroupHeartbeat member-9 sent at 41.371 s that
 * arrived at 92.372 s on a connection member-9 had closed at 71.371 s (closed by its client: a request timed out)".
 */
export function lostRequestStory(lost: LostAssignmentAnswer): string {
  const { api, client, request, close } = lost;
  const reason = close.reason === null ? "" : ` (${close.reason})`;
  return `a ${api} ${client} sent at ${formatSeconds(request.t)} that arrived at ${formatSeconds(request.at[0] ?? request.t)} on a connection ${client} had closed at ${formatSeconds(close.t)}${reason}`;
}
