import { sharedConsumption } from "../analysis/consumption.js";
import { formatSeconds } from "../report/time-format.js";
import { streamingChecker, ViolationList } from "./checker.js";

/**
 * Every duplicate delivery is attributed to a rebalance (a new owner
 * restarting from the last committed offset, catching up through what the
 * previous owner had not committed), to a failed commit of the previous
 * owner, to a fenced zombie still processing its old fetches, or to an
 * offset reset; a duplicate with no such cause is a violation. It names,
 * and cites, the delivery that had handed those records out before: often
 * another owner of the partition at the same time (see single-owner).
 */
export const duplicatesAttributed = streamingChecker({
  name: "duplicates-attributed",
  description: "every duplicate delivery is explained by a rebalance, a failed commit or a reset",
  judge(pass) {
    const consumption = pass.shared(sharedConsumption);
    return {
      reads: [],
      accept() {},
      finish() {
        const violations = new ViolationList();
        for (const r of consumption.redeliveries) {
          if (r.cause !== null) continue;
          // Who had them before: another member handed the same records (two owners at once, or one the group
          // moved on from), or the same one going back.
          const { actor, consumedUpTo, t, index } = r.before;
          const earlier =
            actor === r.actor
              ? `; ${actor} itself had been handed up to offset ${consumedUpTo} at ${formatSeconds(t)}`
              : `; ${actor} had been handed them, up to offset ${consumedUpTo}, at ${formatSeconds(t)}`;
          violations.add(
            r.t,
            `${r.actor} ${r.partition}: ${r.count} records delivered again with no rebalance, failed commit or reset to explain it${earlier}`,
            index >= 0 ? [index, r.index] : [r.index],
          );
        }
        return violations.result();
      },
    };
  },
});
