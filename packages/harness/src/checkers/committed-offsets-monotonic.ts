import { getOrCreate } from "@kcsim/protocol";
import { observationOf } from "../analysis/observations.js";
import { type OffsetCommitCarrier, sharedOffsetCommitCarriers } from "../analysis/offset-commit-carriers.js";
import { PartitionTable } from "../analysis/partition-table.js";
import { formatSeconds } from "../report/time-format.js";
import { streamingChecker, ViolationList } from "./checker.js";

/**
 * What the request that wrote a backward commit went through, when the history says which request it was:
 * when it was sent and arrived, and whether its client had closed the connection it rode by then (the
 * retransmitted commit: a closed socket's bytes still reach the broker).
 */
function carrierStory(carrier: OffsetCommitCarrier): string {
  const { client, send, closedBefore } = carrier;
  const trip = `; its ${carrier.api} from ${client} was sent at ${formatSeconds(send.t)} and arrived at ${formatSeconds(send.at[0] ?? send.t)}`;
  if (closedBefore === null) return trip;
  const reason = closedBefore.close.reason === null ? "" : ` (${closedBefore.close.reason})`;
  return `${trip}, on a connection ${client} had closed at ${formatSeconds(closedBefore.close.t)}${reason}`;
}

/** When a group last became empty (its first gc.group with no members after one with some), and where. */
interface Emptied {
  readonly t: number;
  readonly index: number;
  /** The group's protocol then: a classic request carries a generation, a KIP-848 one a member epoch. */
  readonly protocol: "consumer" | "classic";
}

/** The coordinator's removal of a member id: when, where and why. */
interface Removal {
  readonly t: number;
  readonly index: number;
  readonly reason: string;
}

/**
 * Why the coordinator took a commit with no generation or member epoch (-1): the group was empty, and Kafka takes
 * such a commit there without a member check (ConsumerGroup and ClassicGroup.validateOffsetCommit: the admin
 * client's path, and a consumer's that has left the group). With the coordinator's removal of the member id the
 * commit names, when there was one: the commit after leaving, a client's request outliving its membership.
 */
function emptyGroupStory(emptied: Emptied, memberId: string, removal: Removal | undefined): string {
  const removed = removal === undefined ? "" : `; ${memberId} had been removed at ${formatSeconds(removal.t)} (${removal.reason})`;
  const epoch = emptied.protocol === "classic" ? "generation" : "member epoch";
  return `; it carried ${epoch} -1 into a group empty since ${formatSeconds(emptied.t)}, where Kafka takes it with no member check, as an admin commit${removed}`;
}

const newRemovals = (): Map<string, Removal> => new Map();

/**
 * DESIGN.md rule 4: a group's committed offsets never go backward (no explicit resets happen in scenarios).
 * A violation cites, and tells, the request that carried it when the history pins it down (see
 * OffsetCommitCarriers): the OffsetCommit, or for a transactional commit the TxnOffsetCommit whose offset
 * the COMMIT marker made the group's; and the close of its connection if its client had closed it before
 * it arrived: that close puts the retransmitted commit in a finding of its own. A plain commit with epoch -1 into
 * an empty group also cites when the group emptied and the removal of the member id it names: the commit after
 * leaving.
 */
export const committedOffsetsMonotonic = streamingChecker({
  name: "committed-offsets-monotonic",
  description: "committed offsets of a group never go backward",
  judge(pass) {
    const carriers = pass.shared(sharedOffsetCommitCarriers);
    const violations = new ViolationList();
    /** group -> partition -> its last accepted commit (offset and history index; index -1: none yet): no key string per commit. */
    const last = new Map<string, PartitionTable<{ offset: number; index: number }>>();
    /** The last instant's violations, told once their carriers are known: at a later commit, or at the end. */
    const untold: { t: number; message: string; cited: number[]; index: number; after: string }[] = [];
    /** group -> when it last became empty (null: it has members). */
    const emptied = new Map<string, Emptied | null>();
    /** group -> member id -> the coordinator's last removal of it. */
    const removals = new Map<string, Map<string, Removal>>();
    const tell = () => {
      for (const { t, message, cited, index, after } of untold) {
        const carrier = carriers.carrierAt(index);
        let story = message;
        if (carrier !== null) {
          cited.push(carrier.sendIndex);
          if (carrier.closedBefore !== null) cited.push(carrier.closedBefore.index);
          story += carrierStory(carrier);
        }
        violations.add(
          t,
          story + after,
          cited.sort((a, b) => a - b),
        );
      }
      untold.length = 0;
    };
    return {
      reads: ["gc.group", "gc.member-removed", "gc.offset-commit"],
      accept(event, index) {
        const group = observationOf(event, "gc.group");
        if (group !== undefined) {
          if (group.members > 0) emptied.set(group.groupId, null);
          else if (!emptied.get(group.groupId)) emptied.set(group.groupId, { t: event.t, index, protocol: group.protocol });
          return;
        }
        const removed = observationOf(event, "gc.member-removed");
        if (removed !== undefined) {
          getOrCreate(removals, removed.groupId, newRemovals).set(removed.memberId, { t: event.t, index, reason: removed.reason });
          return;
        }
        const commit = observationOf(event, "gc.offset-commit");
        if (commit === undefined) return;
        // An epoch-less plain commit into an empty group: the admin path, whose story each of its violations tells.
        const adminOf = commit.epoch < 0 && !commit.transactional ? emptied.get(commit.groupId) : undefined;
        const removal = adminOf ? removals.get(commit.groupId)?.get(commit.memberId) : undefined;
        // The carriers have seen this commit first, and settled the instants before it.
        if (untold.length > 0 && untold[0]?.t !== event.t) tell();
        let partitions = last.get(commit.groupId);
        if (partitions === undefined) {
          partitions = new PartitionTable(() => ({ offset: 0, index: -1 }));
          last.set(commit.groupId, partitions);
        }
        for (const topic of commit.topics) {
          for (let i = 0; i < topic.partitions.length; i++) {
            if (topic.errorCodes[i] !== 0) continue;
            const partition = topic.partitions[i] as number;
            const offset = topic.offsets[i] as number;
            // The entry of a partition moves with each of its commits: updated in place, not made again.
            const previous = partitions.get(topic.topic, partition);
            if (previous.index >= 0 && offset < previous.offset) {
              const message = `group ${commit.groupId}: ${topic.topic}-${partition} committed ${offset} after ${previous.offset} (by ${commit.memberId || "no member id"})`;
              const cited = [previous.index, index];
              if (adminOf) {
                cited.push(adminOf.index);
                if (removal !== undefined) cited.push(removal.index);
              }
              untold.push({ t: event.t, message, cited, index, after: adminOf ? emptyGroupStory(adminOf, commit.memberId, removal) : "" });
            }
            previous.offset = offset;
            previous.index = index;
          }
        }
      },
      finish() {
        carriers.settleInstant();
        tell();
        return violations.result();
      },
    };
  },
});
