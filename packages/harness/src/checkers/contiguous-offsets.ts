import { sharedConsumption } from "../analysis/consumption.js";
import { streamingChecker, ViolationList } from "./checker.js";

/**
 * Offsets handed to the application are contiguous within one owner's
 * tenure: a skip or a rewind is a violation unless an auto.offset.reset
 * explains it; records of a partition the member does not own are a
 * violation too.
 */
export const contiguousOffsets = streamingChecker({
  name: "contiguous-offsets",
  description: "offsets handed to the application are contiguous within one owner's tenure",
  judge(pass) {
    const consumption = pass.shared(sharedConsumption);
    return {
      reads: [],
      accept() {},
      finish() {
        const violations = new ViolationList();
        for (const b of consumption.breaks) {
          if (b.cause !== null) continue;
          violations.add(b.t, `${b.actor} ${b.partition}: ${b.kind} from offset ${b.expected} to ${b.got} with no reset to explain it`, [
            b.index,
          ]);
        }
        for (const u of consumption.unowned)
          violations.add(u.t, `${u.actor} was handed records of ${u.partition}, which it did not own`, [u.index]);
        violations.items.sort((a, b) => a.t - b.t);
        return violations.result();
      },
    };
  },
});
