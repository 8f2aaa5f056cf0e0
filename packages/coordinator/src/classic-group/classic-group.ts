import { ErrorCode } from "@kcsim/protocol";
import type { ClassicProtocolValue } from "../records/coordinator-record.js";
import { IllegalStateError } from "../runtime/coordinator-error.js";
import type { ClassicGroupMember, ParkedJoin, ParkedSync } from "./classic-group-member.js";
import { type ClassicGroupState, isValidClassicTransition } from "./classic-group-state.js";

/** `ConsumerProtocol.PROTOCOL_TYPE`: the embedded protocol of consumer groups. */
export const CONSUMER_PROTOCOL_TYPE = "consumer";

/** How a classic group starts: empty (created by a JoinGroup or an offset commit) or as loaded/converted. */
export interface ClassicGroupInit {
  readonly state: ClassicGroupState;
  readonly generationId: number;
  readonly protocolType: string | null;
  readonly protocolName: string | null;
  readonly leaderId: string | null;
  /** Milliseconds; -1 when unknown. */
  readonly currentStateTimestampMs: number;
}

/** A state the group entered, with its generation and size at that moment. */
export interface ClassicGroupTransition {
  readonly state: ClassicGroupState;
  readonly generationId: number;
  readonly members: number;
}

const NEW_GROUP: ClassicGroupInit = {
  state: "EMPTY",
  generationId: 0,
  protocolType: null,
  protocolName: null,
  leaderId: null,
  currentStateTimestampMs: -1,
};

/**
 * A classic group (JoinGroup/SyncGroup protocol; Kafka's `ClassicGroup`):
 * the state machine's data (spec 4.2). The transitions themselves live in
 * classic-rebalance.ts and the request handlers; this class keeps the
 * bookkeeping consistent (awaiting-join count, protocol support counts,
 * static member index, pending join and sync sets).
 *
 * Members are kept in insertion order; Kafka keeps them in a HashMap, so
 * wherever Kafka takes "the first member" (new leader, leader re-election,
 * the leader's member list) kcsim takes the oldest one.
 *
 * A group created by an offset commit for a group id nobody uses is a
 * *simple* group: no protocol type and no members.
 */
export class ClassicGroup {
  readonly protocol = "classic" as const;
  readonly groupId: string;
  #state: ClassicGroupState;
  #previousState: ClassicGroupState = "DEAD";
  #currentStateTimestampMs: number;
  #protocolType: string | null;
  #protocolName: string | null;
  #generationId: number;
  #leaderId: string | null;
  readonly #members = new Map<string, ClassicGroupMember>();
  /** instance id -> member id */
  readonly #staticMembers = new Map<string, string>();
  /** KIP-394: member ids handed out with MEMBER_ID_REQUIRED, not joined yet. */
  readonly #pendingJoinMembers = new Set<string>();
  #numMembersAwaitingJoin = 0;
  /** Protocol name -> number of members supporting it. */
  readonly #supportedProtocols = new Map<string, number>();
  /** Members of the current generation that have not sent SyncGroup yet. */
  readonly #pendingSyncMembers = new Set<string>();
  /** The initial rebalance is delayed once more when a member joined during the delay. */
  newMemberAdded = false;
  /** Transitions not reported yet (volatile; drained into gc.group observations). */
  #transitions: ClassicGroupTransition[] = [];

  constructor(groupId: string, init: ClassicGroupInit = NEW_GROUP) {
    this.groupId = groupId;
    this.#state = init.state;
    this.#generationId = init.generationId;
    this.#protocolType = init.protocolType;
    this.#protocolName = init.protocolName;
    this.#leaderId = init.leaderId;
    this.#currentStateTimestampMs = init.currentStateTimestampMs;
  }

  get generationId(): number {
    return this.#generationId;
  }

  get protocolType(): string | null {
    return this.#protocolType;
  }

  get protocolName(): string | null {
    return this.#protocolName;
  }

  get leaderId(): string | null {
    return this.#leaderId;
  }

  get previousState(): ClassicGroupState {
    return this.#previousState;
  }

  get currentStateTimestampMs(): number {
    return this.#currentStateTimestampMs;
  }

  state(): ClassicGroupState {
    return this.#state;
  }

  isInState(state: ClassicGroupState): boolean {
    return this.#state === state;
  }

  get numMembers(): number {
    return this.#members.size;
  }

  /** Members in insertion order. */
  members(): ReadonlyMap<string, ClassicGroupMember> {
    return this.#members;
  }

  member(memberId: string): ClassicGroupMember | undefined {
    return this.#members.get(memberId);
  }

  hasMember(memberId: string): boolean {
    return this.#members.has(memberId);
  }

  isLeader(memberId: string): boolean {
    return this.#leaderId === memberId;
  }

  hasStaticMember(instanceId: string): boolean {
    return this.#staticMembers.has(instanceId);
  }

  staticMemberId(instanceId: string): string | undefined {
    return this.#staticMembers.get(instanceId);
  }

  /** A simple group holds only committed offsets: a consumer group may take its place. */
  isSimpleGroup(): boolean {
    return this.#protocolType === null && this.#state === "EMPTY" && this.#members.size === 0 && this.#pendingJoinMembers.size === 0;
  }

  usesConsumerGroupProtocol(): boolean {
    return this.#protocolType === CONSUMER_PROTOCOL_TYPE;
  }

  // ---- pending join members (KIP-394) ----

  isPendingMember(memberId: string): boolean {
    return this.#pendingJoinMembers.has(memberId);
  }

  addPendingMember(memberId: string): void {
    if (this.#members.has(memberId)) throw new IllegalStateError(`pending member ${memberId} is already a member of group ${this.groupId}`);
    this.#pendingJoinMembers.add(memberId);
  }

  pendingMembers(): ReadonlySet<string> {
    return this.#pendingJoinMembers;
  }

  // ---- pending sync members ----

  addPendingSyncMember(memberId: string): void {
    if (!this.#members.has(memberId))
      throw new IllegalStateError(`pending sync member ${memberId} is not a member of group ${this.groupId}`);
    this.#pendingSyncMembers.add(memberId);
  }

  removePendingSyncMember(memberId: string): void {
    this.#pendingSyncMembers.delete(memberId);
  }

  hasReceivedSyncFromAllMembers(): boolean {
    return this.#pendingSyncMembers.size === 0;
  }

  pendingSyncMembers(): ReadonlySet<string> {
    return this.#pendingSyncMembers;
  }

  clearPendingSyncMembers(): void {
    this.#pendingSyncMembers.clear();
  }

  // ---- membership ----

  /** Adds a member, parked in its JoinGroup when `parked` is given. The first member sets the protocol type; a leaderless group gets it as leader. */
  add(member: ClassicGroupMember, parked: ParkedJoin | null): void {
    if (member.instanceId !== null) {
      if (this.#staticMembers.has(member.instanceId)) {
        throw new IllegalStateError(`static member with instance id ${member.instanceId} is already a member of group ${this.groupId}`);
      }
      this.#staticMembers.set(member.instanceId, member.memberId);
    }
    if (this.#members.size === 0) this.#protocolType = member.protocolType;
    if (this.#protocolType !== member.protocolType) throw new IllegalStateError("the group and member's protocol type must be the same");
    if (
      !this.supportsProtocols(
        member.protocolType,
        member.supportedProtocols.map((p) => p.name),
      )
    ) {
      throw new IllegalStateError("none of the member's protocols can be supported");
    }
    if (this.#leaderId === null) this.#leaderId = member.memberId;
    this.#members.set(member.memberId, member);
    this.#countProtocols(member.supportedProtocols, 1);
    member.awaitingJoin = parked;
    if (parked !== null) this.#numMembersAwaitingJoin++;
    this.#pendingJoinMembers.delete(member.memberId);
  }

  /** Removes a member or a pending member; a removed leader is succeeded by the oldest remaining member. */
  remove(memberId: string): void {
    const removed = this.#members.get(memberId);
    if (removed !== undefined) {
      this.#members.delete(memberId);
      this.#countProtocols(removed.supportedProtocols, -1);
      if (removed.isAwaitingJoin) this.#numMembersAwaitingJoin--;
      if (removed.instanceId !== null && this.#staticMembers.get(removed.instanceId) === memberId) {
        this.#staticMembers.delete(removed.instanceId);
      }
    }
    if (this.isLeader(memberId)) {
      const next = this.#members.keys().next();
      this.#leaderId = next.done === true ? null : next.value;
    }
    this.#pendingJoinMembers.delete(memberId);
    this.#pendingSyncMembers.delete(memberId);
  }

  /**
   * Keeps the leader if it rejoined, else elects a member that did. False
   * when the group has no leader or no member rejoined.
   */
  maybeElectNewJoinedLeader(): boolean {
    if (this.#leaderId === null) return false;
    const leader = this.#members.get(this.#leaderId);
    if (leader?.isAwaitingJoin === true) return true;
    for (const member of this.#members.values()) {
      if (member.isAwaitingJoin) {
        this.#leaderId = member.memberId;
        return true;
      }
    }
    return false;
  }

  /**
   * Static membership: the member of `instanceId` continues under
   * `newMemberId` with the same settings and assignment (Kafka's
   * `replaceStaticMember`). Returns the old member, whose parked requests
   * the caller must fence. A pending SyncGroup obligation moves to the new
   * id (Kafka leaves it with the old id, so an expiring sync timer would
   * then rebalance the group for a member that is already gone).
   */
  replaceStaticMember(
    instanceId: string,
    oldMemberId: string,
    newMemberId: string,
  ): { readonly removed: ClassicGroupMember; readonly added: ClassicGroupMember } {
    const removed = this.#members.get(oldMemberId);
    if (removed === undefined) throw new IllegalStateError(`cannot replace non-existing member id ${oldMemberId}`);
    this.#members.delete(oldMemberId);
    if (removed.isAwaitingJoin) this.#numMembersAwaitingJoin--;
    const added = removed.withMemberId(newMemberId);
    this.#members.set(newMemberId, added);
    if (this.isLeader(oldMemberId)) this.#leaderId = newMemberId;
    this.#staticMembers.set(instanceId, newMemberId);
    if (this.#pendingSyncMembers.delete(oldMemberId)) this.#pendingSyncMembers.add(newMemberId);
    return { removed, added };
  }

  /** Updates a rejoining member; `parked` is its JoinGroup waiting for the join phase (null: not waiting). */
  updateMember(
    member: ClassicGroupMember,
    protocols: readonly ClassicProtocolValue[],
    rebalanceTimeoutMs: number,
    sessionTimeoutMs: number,
    parked: ParkedJoin | null,
  ): void {
    this.#countProtocols(member.supportedProtocols, -1);
    member.supportedProtocols = protocols;
    this.#countProtocols(protocols, 1);
    member.rebalanceTimeoutMs = rebalanceTimeoutMs;
    member.sessionTimeoutMs = sessionTimeoutMs;
    if (parked !== null && !member.isAwaitingJoin) this.#numMembersAwaitingJoin++;
    else if (parked === null && member.isAwaitingJoin) this.#numMembersAwaitingJoin--;
    member.awaitingJoin = parked;
  }

  /** The member's parked JoinGroup, now answered (null when it had none). */
  takeParkedJoin(member: ClassicGroupMember): ParkedJoin | null {
    const parked = member.awaitingJoin;
    if (parked === null) return null;
    member.awaitingJoin = null;
    this.#numMembersAwaitingJoin--;
    return parked;
  }

  /** The member's parked SyncGroup, now answered (null when it had none). */
  takeParkedSync(member: ClassicGroupMember): ParkedSync | null {
    const parked = member.awaitingSync;
    member.awaitingSync = null;
    return parked;
  }

  /** Every member rejoined and no KIP-394 pending member is outstanding. */
  hasAllMembersJoined(): boolean {
    return this.#members.size === this.#numMembersAwaitingJoin && this.#pendingJoinMembers.size === 0;
  }

  get numAwaitingJoinResponse(): number {
    return this.#numMembersAwaitingJoin;
  }

  notYetRejoinedMembers(): ClassicGroupMember[] {
    return [...this.#members.values()].filter((member) => !member.isAwaitingJoin);
  }

  /** The group's rebalance timeout: the largest of its members' (0 for an empty group). */
  rebalanceTimeoutMs(): number {
    let timeout = 0;
    for (const member of this.#members.values()) timeout = Math.max(timeout, member.rebalanceTimeoutMs);
    return timeout;
  }

  /** `validateMember`: 0, UNKNOWN_MEMBER_ID or FENCED_INSTANCE_ID. */
  validateMember(memberId: string, instanceId: string | null): number {
    if (instanceId !== null) {
      const existing = this.#staticMembers.get(instanceId);
      if (existing === undefined) return ErrorCode.UNKNOWN_MEMBER_ID;
      if (existing !== memberId) return ErrorCode.FENCED_INSTANCE_ID;
    }
    return this.#members.has(memberId) ? ErrorCode.NONE : ErrorCode.UNKNOWN_MEMBER_ID;
  }

  // ---- states and generations ----

  /** A rebalance may start from EMPTY, STABLE and COMPLETING_REBALANCE. */
  canRebalance(): boolean {
    return isValidClassicTransition(this.#state, "PREPARING_REBALANCE");
  }

  transitionTo(state: ClassicGroupState, nowMs: number): void {
    if (!isValidClassicTransition(this.#state, state)) {
      throw new IllegalStateError(`group ${this.groupId} cannot move from ${this.#state} to ${state}`);
    }
    this.#previousState = this.#state;
    this.#state = state;
    this.#currentStateTimestampMs = nowMs;
    this.#transitions.push({ state, generationId: this.#generationId, members: this.#members.size });
  }

  /** The transitions since the last call, oldest first. */
  drainTransitions(): ClassicGroupTransition[] {
    const transitions = this.#transitions;
    this.#transitions = [];
    return transitions;
  }

  /**
   * At least one of the protocols can be supported: any non-empty protocol
   * list of any type when the group is EMPTY; otherwise the group's protocol
   * type and a protocol every member supports.
   */
  supportsProtocols(protocolType: string, protocolNames: readonly string[]): boolean {
    if (this.#state === "EMPTY") return protocolType.length > 0 && protocolNames.length > 0;
    return (
      this.#protocolType === protocolType && protocolNames.some((name) => (this.#supportedProtocols.get(name) ?? 0) === this.#members.size)
    );
  }

  /**
   * The protocol vote: among the protocols every member supports, each
   * member votes for its most preferred one; most votes wins (a tie goes to
   * the protocol voted first, in member order).
   */
  selectProtocol(): string {
    if (this.#members.size === 0) throw new IllegalStateError(`cannot select a protocol for empty group ${this.groupId}`);
    const candidates = new Set<string>();
    for (const [name, count] of this.#supportedProtocols) if (count === this.#members.size) candidates.add(name);
    const votes = new Map<string, number>();
    for (const member of this.#members.values()) {
      const vote = member.vote(candidates);
      votes.set(vote, (votes.get(vote) ?? 0) + 1);
    }
    let selected: string | null = null;
    let most = 0;
    for (const [name, count] of votes) {
      if (count > most) {
        selected = name;
        most = count;
      }
    }
    if (selected === null) throw new IllegalStateError(`no protocol to select in group ${this.groupId}`);
    return selected;
  }

  setProtocolName(protocolName: string | null): void {
    this.#protocolName = protocolName;
  }

  /** `initNextGeneration`: generation + 1, the protocol vote, COMPLETING_REBALANCE (EMPTY without members). */
  initNextGeneration(nowMs: number): void {
    this.#generationId++;
    if (this.#members.size > 0) {
      this.#protocolName = this.selectProtocol();
      this.transitionTo("COMPLETING_REBALANCE", nowMs);
    } else {
      this.#protocolName = null;
      this.transitionTo("EMPTY", nowMs);
    }
    this.#pendingSyncMembers.clear();
  }

  #countProtocols(protocols: readonly ClassicProtocolValue[], delta: number): void {
    for (const { name } of protocols) {
      const count = (this.#supportedProtocols.get(name) ?? 0) + delta;
      if (count <= 0) this.#supportedProtocols.delete(name);
      else this.#supportedProtocols.set(name, count);
    }
  }
}
