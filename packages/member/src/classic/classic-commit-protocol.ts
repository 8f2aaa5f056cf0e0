import { type Context, ErrorCode, errorName } from "@kcsim/protocol";
import type { CommitIdentity, CommitProtocol, CommitRefusal } from "../consumer/commit-protocol.js";
import type { ClassicMembership } from "./classic-membership.js";

/** Errors the classic client retries (`RetriableCommitFailedException`): the coordinator moved, loads, or did not answer. */
const RETRIABLE = new Set<number>([
  ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
  ErrorCode.UNKNOWN_TOPIC_OR_PARTITION,
  ErrorCode.COORDINATOR_NOT_AVAILABLE,
  ErrorCode.NOT_COORDINATOR,
  ErrorCode.REQUEST_TIMED_OUT,
  ErrorCode.NETWORK_EXCEPTION,
]);

/** The local failure of a commit while rebalancing (`RebalanceInProgressException`). */
export const COMMIT_REFUSED_REBALANCING = "REBALANCE_IN_PROGRESS";
/** The local failure of a commit outside any generation (`CommitFailedException`: "not part of an active group"). */
export const COMMIT_REFUSED_NOT_IN_GROUP = "COMMIT_FAILED";

/**
 * Classic commits (`ConsumerCoordinator.sendOffsetCommitRequest` and its
 * `OffsetCommitResponseHandler`): an OffsetCommit carries the generation
 * and member id, and only a STABLE member sends one; otherwise it fails
 * locally (RebalanceInProgressException while rebalancing, else
 * CommitFailedException). On the answer:
 * - REBALANCE_IN_PROGRESS: rejoin (the generation stays);
 * - UNKNOWN_MEMBER_ID / ILLEGAL_GENERATION: the member was fenced: reset the
 *   generation (ILLEGAL_GENERATION keeps the member id) and rejoin, a
 *   CommitFailedException; unless the member already rejoined since
 *   (PREPARING_REBALANCE in a newer generation): only a RebalanceInProgressException;
 * - FENCED_INSTANCE_ID in the same generation: fatal (another instance has
 *   this group.instance.id).
 */
export class ClassicCommitProtocol implements CommitProtocol {
  /** `maybeAutoCommitOffsetsAsync` looks only at its timer. */
  readonly intervalAutoCommitWaitsForPending = false;
  readonly #membership: ClassicMembership;
  readonly #fail: (error: string, ctx: Context) => void;

  constructor(membership: ClassicMembership, fail: (error: string, ctx: Context) => void) {
    this.#membership = membership;
    this.#fail = fail;
  }

  commitIdentity(): CommitIdentity | CommitRefusal {
    const membership = this.#membership;
    const stable = membership.generationIfStable();
    if (stable !== null) return { generationIdOrMemberEpoch: stable.generationId, memberId: stable.memberId };
    return {
      refusedWith: membership.rebalanceInProgress ? COMMIT_REFUSED_REBALANCING : COMMIT_REFUSED_NOT_IN_GROUP,
      memberEpoch: membership.generation.generationId,
    };
  }

  retriesBeforeRevocation(error: number | null): boolean {
    return error === null || RETRIABLE.has(error);
  }

  onCommitFailed(error: number, sent: CommitIdentity, ctx: Context): string {
    const membership = this.#membership;
    const current = membership.generation;
    const generationUnchanged = current.generationId === sent.generationIdOrMemberEpoch && current.memberId === sent.memberId;
    switch (error) {
      case ErrorCode.FENCED_INSTANCE_ID:
        if (generationUnchanged) {
          this.#fail(errorName(error), ctx);
          return "FencedInstanceIdException";
        }
        return membership.state === "PREPARING_REBALANCE" ? "RebalanceInProgressException" : "CommitFailedException";
      case ErrorCode.REBALANCE_IN_PROGRESS:
        membership.requestRejoin("offset commit failed since group is already rebalancing", ctx);
        return "RebalanceInProgressException";
      case ErrorCode.UNKNOWN_MEMBER_ID:
      case ErrorCode.ILLEGAL_GENERATION:
        if (!generationUnchanged && membership.state === "PREPARING_REBALANCE") return "RebalanceInProgressException";
        membership.resetStateAndRejoin(
          `encountered ${errorName(error)} from OFFSET_COMMIT response`,
          error === ErrorCode.UNKNOWN_MEMBER_ID,
          ctx,
        );
        return "CommitFailedException";
      default:
        return "";
    }
  }
}
