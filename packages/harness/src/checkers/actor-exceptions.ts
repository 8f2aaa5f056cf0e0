import type { Checker } from "./checker.js";
import { ViolationList } from "./checker.js";

/** No actor code may throw: an exception inside an actor is a bug (an illegal transition, a broken invariant). */
export const actorExceptions: Checker = {
  name: "actor-exceptions",
  description: "no actor threw an exception",
  check(events) {
    const violations = new ViolationList();
    events.forEach((event, index) => {
      if (event.ev === "error") violations.add(event.t, `${event.actor} threw during ${event.during}: ${event.message}`, [index]);
    });
    return violations.result();
  },
};
