import { ErrorCode, PlantedBugs } from "@kcsim/protocol";
import type { ClassicGroup } from "../classic-group/classic-group.js";
import type { ConsumerGroup } from "../consumer-group/consumer-group.js";
import { CoordinatorError } from "../runtime/coordinator-error.js";
import type { WriteOp } from "../runtime/write-op.js";

/** OffsetCommit v9: the first version for consumer-protocol members, and the one returning GROUP_ID_NOT_FOUND. */
export const MODERN_OFFSET_COMMIT_VERSION = 9;

/** Who commits offsets, as an OffsetCommit or a TxnOffsetCommit (KIP-447: the consumer's group metadata) names it. */
export interface OffsetCommitter {
  readonly groupId: string;
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  /** OffsetCommit's GenerationIdOrMemberEpoch, TxnOffsetCommit's GenerationId. */
  readonly generationIdOrMemberEpoch: number;
  readonly apiVersion: number;
  /** A TxnOffsetCommit (its offsets join the producer's transaction). */
  readonly transactional: boolean;
}

/**
 * `OffsetMetadataManager.validateOffsetCommit` and
 * `validateTransactionalOffsetCommit`: a missing group with a negative
 * generation becomes a simple (offsets-only) classic group; otherwise
 * GROUP_ID_NOT_FOUND (OffsetCommit v9+) or ILLEGAL_GENERATION (older
 * OffsetCommit, and every TxnOffsetCommit). Existing groups check the
 * committer (`ConsumerGroup`/`ClassicGroup.validateOffsetCommit`); a
 * TxnOffsetCommit reports a stale member epoch as ILLEGAL_GENERATION
 * (spec 9.11). Throws the CoordinatorError the request is answered with.
 */
export function validateOffsetCommit(op: WriteOp, committer: OffsetCommitter, bugs: PlantedBugs = PlantedBugs.NONE): void {
  const { groupId, generationIdOrMemberEpoch: epoch } = committer;
  const group = op.state.groups.get(groupId);
  if (group === undefined) {
    if (epoch < 0) {
      op.touch(groupId);
      op.state.groups.createSimpleClassicGroup(groupId);
      return;
    }
    if (!committer.transactional && committer.apiVersion >= MODERN_OFFSET_COMMIT_VERSION)
      throw new CoordinatorError(ErrorCode.GROUP_ID_NOT_FOUND, `Group ${groupId} not found.`);
    throw new CoordinatorError(ErrorCode.ILLEGAL_GENERATION, `Group ${groupId} not found.`);
  }
  if (group.protocol === "consumer") validateConsumerGroupOffsetCommit(group, committer, bugs);
  else validateClassicGroupOffsetCommit(group, committer);
}

/**
 * `ClassicGroup.validateOffsetCommit` (spec 5): DEAD:
 * COORDINATOR_NOT_AVAILABLE; a negative generation on an EMPTY group (admin,
 * or a consumer outside group management): accepted; a generation, member
 * id or instance id: the member check (UNKNOWN_MEMBER_ID,
 * FENCED_INSTANCE_ID) and the exact generation (ILLEGAL_GENERATION); none
 * of them on a non-empty group: UNKNOWN_MEMBER_ID for a plain commit (a
 * TxnOffsetCommit may leave them out: old producers do); COMPLETING_REBALANCE:
 * REBALANCE_IN_PROGRESS for a plain commit (the committer knows the new
 * generation but has no assignment yet).
 */
function validateClassicGroupOffsetCommit(group: ClassicGroup, committer: OffsetCommitter): void {
  const { generationIdOrMemberEpoch: generationId, memberId, groupInstanceId, transactional } = committer;
  if (group.isInState("DEAD")) throw new CoordinatorError(ErrorCode.COORDINATOR_NOT_AVAILABLE, `Group ${group.groupId} is dead.`);
  if (generationId < 0 && group.isInState("EMPTY")) return;
  if (generationId >= 0 || memberId !== "" || groupInstanceId !== null) {
    const memberError = group.validateMember(memberId, groupInstanceId);
    if (memberError !== ErrorCode.NONE)
      throw new CoordinatorError(memberError, `Member ${memberId} cannot commit offsets for group ${group.groupId}.`);
    if (generationId !== group.generationId) {
      throw new CoordinatorError(
        ErrorCode.ILLEGAL_GENERATION,
        `The generation id ${generationId} does not match the group's generation ${group.generationId}.`,
      );
    }
  } else if (!transactional && !group.isInState("EMPTY")) {
    throw new CoordinatorError(
      ErrorCode.UNKNOWN_MEMBER_ID,
      `Commits without a member are accepted only while group ${group.groupId} is empty.`,
    );
  }
  if (!transactional && group.isInState("COMPLETING_REBALANCE")) {
    throw new CoordinatorError(ErrorCode.REBALANCE_IN_PROGRESS, `Group ${group.groupId} is completing a rebalance.`);
  }
}

/**
 * `ConsumerGroup.validateOffsetCommit`: the member must exist and commit
 * at exactly its epoch: STALE_MEMBER_EPOCH, or ILLEGAL_GENERATION for a
 * classic member (whose generation is its epoch; it may use any version)
 * and for any TxnOffsetCommit. A TxnOffsetCommit without member id,
 * generation and instance id (an old producer) is not checked.
 */
function validateConsumerGroupOffsetCommit(group: ConsumerGroup, committer: OffsetCommitter, bugs: PlantedBugs): void {
  const { generationIdOrMemberEpoch: epoch, memberId, transactional } = committer;
  // Admin or a consumer without group management: allowed while the group is empty.
  if (epoch < 0 && group.numMembers === 0) return;
  if (transactional && epoch === -1 && memberId === "" && committer.groupInstanceId === null) return;
  const member = group.member(memberId);
  if (member === undefined) {
    throw new CoordinatorError(ErrorCode.UNKNOWN_MEMBER_ID, `Member ${memberId} is not a member of group ${group.groupId}.`);
  }
  const classic = member.classicMemberMetadata !== null;
  if (!transactional && !classic && committer.apiVersion < MODERN_OFFSET_COMMIT_VERSION) {
    throw new CoordinatorError(
      ErrorCode.UNSUPPORTED_VERSION,
      "OffsetCommit version 9 or above must be used by members using the modern group protocol",
    );
  }
  // Planted bug: a plain commit from an older epoch of the member (a zombie of its past assignment) goes through.
  const staleAccepted = bugs.has("accept-stale-commit") && !transactional && epoch >= 0 && epoch < member.memberEpoch;
  if (epoch !== member.memberEpoch && !staleAccepted) {
    throw new CoordinatorError(
      classic || transactional ? ErrorCode.ILLEGAL_GENERATION : ErrorCode.STALE_MEMBER_EPOCH,
      `The received ${classic ? "generation id" : "member epoch"} ${epoch} does not match the expected member epoch ${member.memberEpoch}.`,
    );
  }
}
