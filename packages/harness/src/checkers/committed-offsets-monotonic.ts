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

/**
 * DESIGN.md rule 4: a group's committed offsets never go backward (no explicit resets happen in scenarios).
 * A violation cites, and tells, the request that carried it when the history pins it down (see
 * OffsetCommitCarriers): the OffsetCommit, or for a transactional commit the TxnOffsetCommit whose offset
 * the COMMIT marker made the group's; and the close of its connection if its client had closed it before
 * it arrived: that close puts the retransmitted commit in a finding of its own.
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
    const untold: { t: number; message: string; cited: number[]; index: number }[] = [];
    const tell = () => {
      for (const { t, message, cited, index } of untold) {
        const carrier = carriers.carrierAt(index);
        if (carrier !== null) {
          cited.push(carrier.sendIndex);
          if (carrier.closedBefore !== null) cited.push(carrier.closedBefore.index);
        }
        violations.add(
          t,
          carrier === null ? message : `${message}${carrierStory(carrier)}`,
          cited.sort((a, b) => a - b),
        );
      }
      untold.length = 0;
    };
    return {
      reads: ["gc.offset-commit"],
      accept(event, index) {
        const commit = observationOf(event, "gc.offset-commit");
        if (commit === undefined) return;
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
              untold.push({
                t: event.t,
                message: `group ${commit.groupId}: ${topic.topic}-${partition} committed ${offset} after ${previous.offset} (by ${commit.memberId})`,
                cited: [previous.index, index],
                index,
              });
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
