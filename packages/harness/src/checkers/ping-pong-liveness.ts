import { streamingChecker, ViolationList } from "./checker.js";

/**
 * Every pinger hears a pong again after the last fault has healed: the
 * last nemesis step and the end of every partition and fault window lie
 * before the final quarter of the run, and each pinger must observe a
 * `ping.pong` inside that quarter.
 */
export const pingPongLiveness = streamingChecker({
  name: "ping-pong-liveness",
  description: "every pinger gets pongs again once the faults have healed",
  judge(pass) {
    const spec = pass.spec;
    const from = Math.floor(spec.durationUs * 0.75);
    const heard = new Set<string>();
    return {
      reads: ["ping.pong"],
      accept(event) {
        if (event.ev === "obs" && event.t >= from) heard.add(event.actor);
      },
      finish() {
        const violations = new ViolationList();
        for (const actor of spec.actors) {
          if (actor.kind === "pinger" && !heard.has(actor.id)) {
            violations.add(spec.durationUs, `${actor.id} heard no pong in the last quarter of the run (after ${from} us)`);
          }
        }
        return violations.result();
      },
    };
  },
});
