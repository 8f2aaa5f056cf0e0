import type { Observation } from "@kcsim/protocol";
import type { GroupStore } from "../groups/group-store.js";
import { groupObservation } from "./observation-builders.js";

/**
 * Decides when a gc.group goes out: whenever a group's protocol, epochs,
 * state or member count differ from its last gc.group (the contract: one
 * per change of any field). Volatile: a restarted coordinator re-emits
 * every group once loaded.
 */
export class GroupObserver {
  readonly #lastKey = new Map<string, string>();

  /** gc.group for each of these groups that changed since its last one. */
  changes(groups: GroupStore, groupIds: Iterable<string>): Observation[] {
    const changes: Observation[] = [];
    for (const groupId of groupIds) {
      const group = groups.get(groupId);
      if (group === undefined) continue;
      const observation = groupObservation(group);
      const key = `${observation.protocol}|${observation.groupEpoch}|${observation.assignmentEpoch}|${observation.state}|${observation.members}`;
      if (this.#lastKey.get(groupId) === key) continue;
      this.#lastKey.set(groupId, key);
      changes.push(observation);
    }
    return changes;
  }
}
