import { sharedConsumption } from "../analysis/consumption.js";
import { streamingChecker, ViolationList } from "./checker.js";

/**
 * Every duplicate delivery is attributed to a rebalance (a new owner
 * restarting from the last committed offset, catching up through what the
 * previous owner had not committed), to a failed commit of the previous
 * owner, to a fenced zombie still processing its old fetches, or to an
 * offset reset; a duplicate with no such cause is a violation.
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
          if (r.cause === null)
            violations.add(
              r.t,
              `${r.actor} ${r.partition}: ${r.count} records delivered again with no rebalance, failed commit or reset to explain it`,
              [r.index],
            );
        }
        return violations.result();
      },
    };
  },
});
