import type { ActorId, JoinGroupRequest, PartitionsByTopic, SyncGroupRequest } from "@kcsim/protocol";
import type { ClassicProtocolValue } from "../records/coordinator-record.js";
import { IllegalStateError } from "../runtime/coordinator-error.js";

/** `ClassicGroupMember.EMPTY_ASSIGNMENT`: never mutated. */
export const EMPTY_ASSIGNMENT: Uint8Array = new Uint8Array(0);

/** A JoinGroup waiting for the join phase to complete (Kafka's `awaitingJoinFuture`). */
export interface ParkedJoin {
  readonly from: ActorId;
  readonly request: JoinGroupRequest;
}

/** A SyncGroup waiting for the leader's assignment (Kafka's `awaitingSyncFuture`). */
export interface ParkedSync {
  readonly from: ActorId;
  readonly request: SyncGroupRequest;
}

export interface ClassicGroupMemberInit {
  readonly memberId: string;
  readonly instanceId: string | null;
  readonly clientId: string;
  readonly clientHost: string;
  readonly rebalanceTimeoutMs: number;
  readonly sessionTimeoutMs: number;
  readonly protocolType: string;
  readonly supportedProtocols: readonly ClassicProtocolValue[];
  readonly assignment?: Uint8Array;
}

function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Whether two protocol lists are equal: same names and metadata, in the same order (Kafka's `matches`). */
export function sameProtocols(a: readonly ClassicProtocolValue[], b: readonly ClassicProtocolValue[]): boolean {
  if (a.length !== b.length) return false;
  return a.every((protocol, i) => {
    const other = b[i];
    return other !== undefined && other.name === protocol.name && sameBytes(other.metadata, protocol.metadata);
  });
}

/**
 * A member of a classic group (Kafka's `ClassicGroupMember`). Mutable, and
 * volatile beyond what the GroupMetadata record keeps: the parked JoinGroup
 * and SyncGroup, and whether the member is new (still inside its first join).
 */
export class ClassicGroupMember {
  readonly memberId: string;
  readonly instanceId: string | null;
  readonly clientId: string;
  readonly clientHost: string;
  readonly protocolType: string;
  rebalanceTimeoutMs: number;
  sessionTimeoutMs: number;
  supportedProtocols: readonly ClassicProtocolValue[];
  /** What the leader's SyncGroup handed this member (opaque bytes). */
  assignment: Uint8Array;
  awaitingJoin: ParkedJoin | null = null;
  awaitingSync: ParkedSync | null = null;
  /** A member added by a JoinGroup whose join phase has not completed yet. */
  isNew = false;
  /** The generation of the last assignment reported for this member (gc.member's previous epoch). */
  lastReportedGeneration = 0;
  /** The partitions of the last assignment reported for this member (for gc.target's `moved`). */
  reportedAssignment: PartitionsByTopic = {};

  constructor(init: ClassicGroupMemberInit) {
    this.memberId = init.memberId;
    this.instanceId = init.instanceId;
    this.clientId = init.clientId;
    this.clientHost = init.clientHost;
    this.rebalanceTimeoutMs = init.rebalanceTimeoutMs;
    this.sessionTimeoutMs = init.sessionTimeoutMs;
    this.protocolType = init.protocolType;
    this.supportedProtocols = init.supportedProtocols;
    this.assignment = init.assignment ?? EMPTY_ASSIGNMENT;
  }

  get isStaticMember(): boolean {
    return this.instanceId !== null;
  }

  get isAwaitingJoin(): boolean {
    return this.awaitingJoin !== null;
  }

  get isAwaitingSync(): boolean {
    return this.awaitingSync !== null;
  }

  /** The member's metadata for a protocol it supports. */
  metadata(protocolName: string): Uint8Array {
    const protocol = this.supportedProtocols.find((candidate) => candidate.name === protocolName);
    if (protocol === undefined) throw new IllegalStateError(`member ${this.memberId} does not support protocol ${protocolName}`);
    return protocol.metadata;
  }

  /**
   * Whether an expired session may be ignored: an existing member parked in
   * a JoinGroup or SyncGroup is alive; a new member is not (it has its own
   * join deadline, which this same timer carries).
   */
  hasSatisfiedHeartbeat(): boolean {
    if (this.isNew) return false;
    return this.isAwaitingJoin || this.isAwaitingSync;
  }

  matches(protocols: readonly ClassicProtocolValue[]): boolean {
    return sameProtocols(protocols, this.supportedProtocols);
  }

  /** The member's vote: its first protocol (in its preference order) among the candidates. */
  vote(candidates: ReadonlySet<string>): string {
    for (const protocol of this.supportedProtocols) if (candidates.has(protocol.name)) return protocol.name;
    throw new IllegalStateError(`member ${this.memberId} does not support any of the candidate protocols`);
  }

  /** A copy of this member under a new member id (static membership: the assignment and settings carry over). */
  withMemberId(memberId: string): ClassicGroupMember {
    const copy = new ClassicGroupMember({ ...this.#init(), memberId });
    copy.lastReportedGeneration = this.lastReportedGeneration;
    copy.reportedAssignment = this.reportedAssignment;
    return copy;
  }

  #init(): ClassicGroupMemberInit {
    return {
      memberId: this.memberId,
      instanceId: this.instanceId,
      clientId: this.clientId,
      clientHost: this.clientHost,
      rebalanceTimeoutMs: this.rebalanceTimeoutMs,
      sessionTimeoutMs: this.sessionTimeoutMs,
      protocolType: this.protocolType,
      supportedProtocols: this.supportedProtocols,
      assignment: this.assignment,
    };
  }
}
