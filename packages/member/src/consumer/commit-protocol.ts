import type { Context } from "@kcsim/protocol";

/** What an OffsetCommit carries to prove the member may commit. */
export interface CommitIdentity {
  /** The member epoch (KIP-848) or the generation (classic); -1 outside group management. */
  readonly generationIdOrMemberEpoch: number;
  readonly memberId: string;
}

/** The member may not commit now: the commit fails locally, nothing is sent. */
export interface CommitRefusal {
  /** The error the commit ends with (the `member.commit` result). */
  readonly refusedWith: string;
  /** The epoch or generation reported with it. */
  readonly memberEpoch: number;
}

/**
 * What the group protocol decides about offset commits (KIP-848's
 * `CommitRequestManager` or the classic `ConsumerCoordinator`): what a
 * commit carries, which failures the commit before a revocation retries,
 * and how the member reacts to an error it does not retry.
 */
export interface CommitProtocol {
  /**
   * Whether the interval auto-commit is skipped while another auto-commit
   * (on the interval or before a revocation, retries included) is still
   * pending: KIP-848's `AutoCommitState`. The classic `ConsumerCoordinator`
   * looks only at its timer. In neither client does any other commit wait
   * for one in flight: the commits share one connection to the coordinator,
   * which keeps them in order.
   */
  readonly intervalAutoCommitWaitsForPending: boolean;
  /** The identity a commit sent now carries, or its local refusal. */
  commitIdentity(): CommitIdentity | CommitRefusal;
  /** Whether the commit before a revocation tries again after `error` (null: no response in time). */
  retriesBeforeRevocation(error: number | null): boolean;
  /**
   * A commit sent with `sent` failed with `error` and is not retried: the
   * member's reaction (the classic client rejoins or resets its generation).
   * Returns the exception Kafka raises to the caller, "" for a plain failure.
   */
  onCommitFailed(error: number, sent: CommitIdentity, ctx: Context): string;
}

export function isRefusal(identity: CommitIdentity | CommitRefusal): identity is CommitRefusal {
  return "refusedWith" in identity;
}
