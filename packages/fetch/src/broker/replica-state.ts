import type { Micros } from "@kcsim/protocol";

/** Kafka's `UnifiedLog.UnknownOffset`. */
export const UNKNOWN_OFFSET = -1;

/**
 * What a leader knows of one follower replica (Kafka's `Replica` /
 * `ReplicaState`), learned from the follower's fetches: its log end offset
 * (the fetch offset), its log start offset, and when it was last caught up
 * with the leader's log end. Times are virtual microseconds.
 */
export class ReplicaState {
  readonly brokerId: number;
  logStartOffset = UNKNOWN_OFFSET;
  logEndOffset = UNKNOWN_OFFSET;
  /** The leader's log end offset at the follower's previous fetch. */
  lastFetchLeaderLogEndOffset = UNKNOWN_OFFSET;
  lastFetchTime: Micros = 0;
  lastCaughtUpTime: Micros = 0;

  constructor(brokerId: number) {
    this.brokerId = brokerId;
  }

  /**
   * Records a fetch (Kafka's `updateFetchStateOrThrow`): fetching at the
   * leader's log end means caught up now; reaching the leader's log end of
   * the previous fetch means caught up as of that previous fetch.
   */
  updateFetchState(fetchOffset: number, followerLogStartOffset: number, fetchTime: Micros, leaderEndOffset: number): void {
    if (fetchOffset >= leaderEndOffset) {
      this.lastCaughtUpTime = Math.max(this.lastCaughtUpTime, fetchTime);
    } else if (fetchOffset >= this.lastFetchLeaderLogEndOffset) {
      this.lastCaughtUpTime = Math.max(this.lastCaughtUpTime, this.lastFetchTime);
    }
    this.logStartOffset = followerLogStartOffset;
    this.logEndOffset = fetchOffset;
    this.lastFetchLeaderLogEndOffset = Math.max(leaderEndOffset, this.lastFetchLeaderLogEndOffset);
    this.lastFetchTime = fetchTime;
  }

  /**
   * A new leader epoch on this leader (Kafka's `resetReplicaState`): an ISR
   * member counts as caught up now, others as never; a newly elected leader
   * knows nothing of the follower's log until it fetches.
   */
  reset(now: Micros, leaderEndOffset: number, isNewLeader: boolean, isInSync: boolean): void {
    this.lastCaughtUpTime = isInSync ? now : 0;
    if (isNewLeader) {
      this.logStartOffset = UNKNOWN_OFFSET;
      this.logEndOffset = UNKNOWN_OFFSET;
      this.lastFetchLeaderLogEndOffset = UNKNOWN_OFFSET;
      this.lastFetchTime = 0;
    } else {
      this.lastFetchLeaderLogEndOffset = leaderEndOffset;
      this.lastFetchTime = isInSync ? now : 0;
    }
  }

  /** At the leader's log end, or caught up within the last `maxLag`. */
  isCaughtUp(leaderEndOffset: number, now: Micros, maxLag: Micros): boolean {
    return leaderEndOffset === this.logEndOffset || now - this.lastCaughtUpTime <= maxLag;
  }
}
