import { type Context, ErrorCode } from "@kcsim/protocol";
import type { CommitIdentity, CommitProtocol, CommitRefusal } from "./commit-protocol.js";
import { epochForOffsetRequests, type MemberIdentity } from "./member-identity.js";

/** Errors the commit before a revocation retries (until its deadline). */
const RETRIED_BEFORE_REVOCATION = new Set<number>([
  ErrorCode.COORDINATOR_NOT_AVAILABLE,
  ErrorCode.NOT_COORDINATOR,
  ErrorCode.REQUEST_TIMED_OUT,
  ErrorCode.COORDINATOR_LOAD_IN_PROGRESS,
  ErrorCode.NETWORK_EXCEPTION,
]);

/**
 * KIP-848 commits (spec 5, `CommitRequestManager`): OffsetCommit v9 with
 * the exact member epoch, never refused locally. The commit before a
 * revocation also retries STALE_MEMBER_EPOCH (with the fresh epoch) but
 * not a deleted topic; STALE_MEMBER_EPOCH, UNKNOWN_MEMBER_ID and
 * FENCED_INSTANCE_ID are a CommitFailedException for the caller. The
 * heartbeat, not the commit, handles fencing. No interval auto-commit
 * while another auto-commit is pending (`AutoCommitState`); the commit
 * before a revocation and close()'s go at once, behind any in flight.
 */
export class MemberEpochCommitProtocol implements CommitProtocol {
  readonly intervalAutoCommitWaitsForPending = true;
  readonly #identity: MemberIdentity;

  constructor(identity: MemberIdentity) {
    this.#identity = identity;
  }

  commitIdentity(): CommitIdentity | CommitRefusal {
    return { generationIdOrMemberEpoch: epochForOffsetRequests(this.#identity), memberId: this.#identity.memberId };
  }

  retriesBeforeRevocation(error: number | null): boolean {
    if (error === null || RETRIED_BEFORE_REVOCATION.has(error)) return true;
    return error === ErrorCode.STALE_MEMBER_EPOCH && this.#identity.memberEpoch() > 0;
  }

  onCommitFailed(error: number, _sent: CommitIdentity, _ctx: Context): string {
    const commitFailed =
      error === ErrorCode.STALE_MEMBER_EPOCH || error === ErrorCode.UNKNOWN_MEMBER_ID || error === ErrorCode.FENCED_INSTANCE_ID;
    return commitFailed ? "CommitFailedException" : "";
  }
}
