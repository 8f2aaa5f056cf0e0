import type { Observation } from "@kcsim/protocol";
import type { GroupStore } from "../groups/group-store.js";
import { classicGroupObservation, groupObservation } from "./observation-builders.js";

/**
 * Decides when a gc.group goes out: whenever a group's protocol, epochs,
 * state or member count differ from its last gc.group (the contract: one
 * per change of any field). A classic group may pass through several
 * states in one operation (STABLE -> PREPARING -> COMPLETING when every
 * member is already in): each transition it recorded is reported in order.
 * Volatile: a restarted coordinator re-emits every group once loaded.
 */
export class GroupObserver {
  readonly #lastKey = new Map<string, string>();

  /** gc.group for each of these groups that changed since its last one. */
  changes(groups: GroupStore, groupIds: Iterable<string>): Observation[] {
    const changes: Observation[] = [];
    for (const groupId of groupIds) {
      const group = groups.get(groupId);
      if (group === undefined) continue;
      if (group.protocol === "classic") {
        for (const { state, generationId, members } of group.drainTransitions()) {
          this.#report(changes, classicGroupObservation(groupId, generationId, state, members));
        }
      }
      this.#report(changes, groupObservation(group));
    }
    return changes;
  }

  #report(changes: Observation[], observation: Observation): void {
    const groupId = observation.groupId as string;
    const key = `${observation.protocol}|${observation.groupEpoch}|${observation.assignmentEpoch}|${observation.state}|${observation.members}`;
    if (this.#lastKey.get(groupId) === key) return;
    this.#lastKey.set(groupId, key);
    changes.push(observation);
  }
}
