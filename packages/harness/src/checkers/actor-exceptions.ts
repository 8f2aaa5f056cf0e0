import { streamingChecker, ViolationList } from "./checker.js";

/** No actor code may throw: an exception inside an actor is a bug (an illegal transition, a broken invariant). */
export const actorExceptions = streamingChecker({
  name: "actor-exceptions",
  description: "no actor threw an exception",
  judge() {
    const violations = new ViolationList();
    return {
      reads: ["error"],
      accept(event, index) {
        if (event.ev === "error") violations.add(event.t, `${event.actor} threw during ${event.during}: ${event.message}`, [index]);
      },
      finish: () => violations.result(),
    };
  },
});
