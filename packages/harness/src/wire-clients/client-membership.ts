import type { RecordRange } from "@kcsim/member";
import {
  CONSUMER_PROTOCOL_TYPE,
  ErrorCode,
  errorName,
  type Micros,
  type Observation,
  type PartitionsByTopic,
  partitionsByTopic,
  type TopicPartition,
  topicPartitionsOf,
  tpKey,
} from "@kcsim/protocol";
import { assignmentFromKafka, type WireRequest, type WireRequestOf, type WireResponseOf } from "@kcsim/wire";

/** What the application of a real client owns in one group, as the wire shows it. */
interface GroupMembership {
  memberId: string;
  /** The generation (classic) or the member epoch (the consumer protocol, KIP-848). */
  generation: number;
  state: string;
  owned: PartitionsByTopic;
  /** "consumer" once the client sends ConsumerGroupHeartbeat: a KIP-848 member. */
  protocol: "classic" | "consumer";
  /** A KIP-848 member's target assignment, as the coordinator's last answer with one gave it. */
  target: PartitionsByTopic;
  /** The protocol type of its last JoinGroup ("consumer": assignments in Kafka's consumer protocol). */
  protocolType: string;
  /** The assignor the group chose at the last join: cooperative-sticky keeps what stays assigned through a rebalance. */
  protocolName: string;
}

/** Errors after which a classic member no longer holds its membership (Kafka's `resetGenerationOnResponseError` paths). */
const MEMBERSHIP_LOST = new Set<number>([ErrorCode.UNKNOWN_MEMBER_ID, ErrorCode.ILLEGAL_GENERATION, ErrorCode.FENCED_INSTANCE_ID]);

/** What the tracker needs from its actor. */
export interface MembershipPort {
  observe(observation: Observation): void;
  now(): Micros;
  /** The name of the topic a ConsumerGroupHeartbeat names by its Kafka topic id, if the cluster has it. */
  topicNameOfKafkaId(kafkaTopicId: string): string | undefined;
}

/** Where the records a client consumed are reported from. */
export type RecordsSource = "fetched" | "application";

/**
 * Follows a real client's group membership (classic or KIP-848), commits,
 * consumption and produce acknowledgements from the requests it sends and
 * the answers it gets, and reports them as the simulated members and
 * producers do (member.state, member.owned, member.commit, member.records,
 * fetch.reset, producer.ack), so the same checkers judge it. What the wire
 * shows is what Kafka's client does:
 * - an eager member gives up everything when it sends JoinGroup, a
 *   cooperative-sticky one only what its next assignment leaves out;
 * - a member owns its SyncGroup assignment once the answer arrives;
 * - UNKNOWN_MEMBER_ID, ILLEGAL_GENERATION or FENCED_INSTANCE_ID on a
 *   JoinGroup, SyncGroup or Heartbeat answer means the membership is lost;
 * - LeaveGroup gives everything up;
 * - a KIP-848 member (ConsumerGroupHeartbeat) owns a partition from the
 *   answer whose assignment adds it, until a heartbeat that no longer lists
 *   it (its revocation acknowledged), a leave (epoch -1 or -2), or an answer
 *   that fences it (FENCED_MEMBER_EPOCH, UNKNOWN_MEMBER_ID).
 * With `records: "fetched"`, records reach the application when a Fetch
 * answer brings them (from the offset the client asked for; a re-fetch of
 * offsets already delivered in the same assignment is not counted again: at
 * the wire a retry cannot be told from a second delivery), except that a
 * group member's client drops records of partitions it does not own when
 * the answer arrives, as Kafka's clients do (those are reported as
 * member.records-dropped). So in this mode a client that hands out records
 * of partitions it gave up cannot be caught: only `records: "application"`
 * (the application's own report) shows that; where such records were never
 * consumed by an owner, no-loss names the fetch that brought them. One client id is
 * one member: a client that joins two groups is reported under the latest.
 */
export class ClientMembership {
  readonly #port: MembershipPort;
  readonly #records: RecordsSource;
  readonly #groups = new Map<string, GroupMembership>();
  /** Per owned partition key: the next offset not yet reported in the current assignment. */
  readonly #delivered = new Map<string, number>();

  constructor(port: MembershipPort, records: RecordsSource) {
    this.#port = port;
    this.#records = records;
  }

  /** The protocol type of a group's last JoinGroup (SyncGroup below v5 does not name it). */
  protocolTypeOf(groupId: string): string {
    return this.#groups.get(groupId)?.protocolType ?? CONSUMER_PROTOCOL_TYPE;
  }

  /** A request is about to go out. */
  sent(request: WireRequest): void {
    switch (request.api) {
      case "JoinGroup":
        this.#joining(request.body);
        return;
      case "LeaveGroup": {
        const group = this.#groups.get(request.body.groupId);
        if (group !== undefined) this.#leave(request.body.groupId, group, "leave");
        return;
      }
      case "ConsumerGroupHeartbeat":
        this.#consumerHeartbeat(request.body);
        return;
      default:
    }
  }

  /** A request was answered (the response as the client gets it). */
  answered(request: WireRequest, response: unknown, sentAt: Micros): void {
    switch (request.api) {
      case "JoinGroup":
        this.#joined(request.body, response as WireResponseOf<"JoinGroup">);
        return;
      case "SyncGroup":
        this.#synced(request.body, response as WireResponseOf<"SyncGroup">);
        return;
      case "Heartbeat":
        this.#heartbeat(request.body, response as WireResponseOf<"Heartbeat">);
        return;
      case "ConsumerGroupHeartbeat":
        this.#consumerHeartbeatAnswered(request.body, response as WireResponseOf<"ConsumerGroupHeartbeat">);
        return;
      case "OffsetCommit":
        this.#committed(request.body, response as WireResponseOf<"OffsetCommit">);
        return;
      case "Fetch":
        if (this.#records === "fetched") this.#fetched(request.body, response as WireResponseOf<"Fetch">, request.header.apiVersion);
        return;
      case "ListOffsets":
        this.#listed(request.body, response as WireResponseOf<"ListOffsets">);
        return;
      case "Produce":
        this.#produced(request.body, response as WireResponseOf<"Produce">, sentAt);
        return;
      default:
    }
  }

  /** Records the application was handed: one `member.records` with a range per partition (records: "application" reports them as they come). */
  consumed(ranges: readonly RecordRange[]): void {
    if (ranges.length === 0) return;
    this.#port.observe({ type: "member.records", memberId: this.#currentMemberId(), ranges });
  }

  /** The membership the client holds in a group, if any (its id and generation). */
  membershipOf(groupId: string): { memberId: string; generation: number; owned: PartitionsByTopic } | undefined {
    const group = this.#groups.get(groupId);
    return group === undefined ? undefined : { memberId: group.memberId, generation: group.generation, owned: group.owned };
  }

  #currentMemberId(): string {
    let id = "";
    for (const group of this.#groups.values()) id = group.memberId;
    return id;
  }

  #group(groupId: string): GroupMembership {
    let group = this.#groups.get(groupId);
    if (group === undefined) {
      group = {
        memberId: "",
        generation: -1,
        state: "UNJOINED",
        owned: {},
        protocol: "classic",
        target: {},
        protocolType: CONSUMER_PROTOCOL_TYPE,
        protocolName: "",
      };
      this.#groups.set(groupId, group);
    }
    return group;
  }

  #state(groupId: string, group: GroupMembership, to: string): void {
    if (group.state === to) return;
    this.#port.observe({
      type: "member.state",
      groupId,
      memberId: group.memberId,
      protocol: group.protocol,
      from: group.state,
      to,
      memberEpoch: group.generation,
    });
    group.state = to;
  }

  #own(groupId: string, group: GroupMembership, owned: PartitionsByTopic, cause: "assigned" | "revoked" | "lost" | "leave"): void {
    const before = new Set([...topicPartitionsOf(group.owned)].map((tp) => tpKey(tp.topic, tp.partition)));
    const after = new Set([...topicPartitionsOf(owned)].map((tp) => tpKey(tp.topic, tp.partition)));
    if (before.size === after.size && [...before].every((key) => after.has(key))) return;
    // A partition that leaves the assignment ends its tenure: a later assignment starts counting afresh.
    for (const key of before) if (!after.has(key)) this.#delivered.delete(key);
    group.owned = owned;
    this.#port.observe({ type: "member.owned", groupId, memberId: group.memberId, memberEpoch: group.generation, owned, cause });
  }

  #leave(groupId: string, group: GroupMembership, cause: "leave" | "lost"): void {
    this.#own(groupId, group, {}, cause);
    this.#state(groupId, group, "UNJOINED");
    group.memberId = "";
    group.generation = -1;
  }

  #joining(body: WireRequestOf<"JoinGroup">): void {
    const group = this.#group(body.groupId);
    group.protocolType = body.protocolType;
    if (body.memberId !== "") group.memberId = body.memberId;
    // An eager member revokes everything before it rejoins; a cooperative one keeps what it owns.
    if (group.protocolName !== "cooperative-sticky") this.#own(body.groupId, group, {}, "revoked");
    this.#state(body.groupId, group, "PREPARING_REBALANCE");
  }

  #joined(body: WireRequestOf<"JoinGroup">, response: WireResponseOf<"JoinGroup">): void {
    const group = this.#group(body.groupId);
    if (response.errorCode === ErrorCode.MEMBER_ID_REQUIRED) {
      group.memberId = response.memberId;
      return;
    }
    if (response.errorCode !== ErrorCode.NONE) {
      if (MEMBERSHIP_LOST.has(response.errorCode)) this.#leave(body.groupId, group, "lost");
      return;
    }
    group.memberId = response.memberId;
    group.generation = response.generationId;
    group.protocolName = response.protocolName;
    this.#state(body.groupId, group, "COMPLETING_REBALANCE");
  }

  #synced(body: WireRequestOf<"SyncGroup">, response: WireResponseOf<"SyncGroup">): void {
    const group = this.#group(body.groupId);
    if (response.errorCode !== ErrorCode.NONE) {
      if (MEMBERSHIP_LOST.has(response.errorCode)) this.#leave(body.groupId, group, "lost");
      else if (response.errorCode === ErrorCode.REBALANCE_IN_PROGRESS) this.#state(body.groupId, group, "PREPARING_REBALANCE");
      return;
    }
    if (body.generationId !== group.generation) return;
    const assignment = group.protocolType === CONSUMER_PROTOCOL_TYPE ? assignmentFromKafka(response.assignment) : undefined;
    const partitions: TopicPartition[] = [];
    for (const tp of assignment?.assignedPartitions ?? [])
      for (const partition of tp.partitions) partitions.push({ topic: tp.topic, partition });
    const owned = partitionsByTopic(partitions);
    const shrinks = [...topicPartitionsOf(group.owned)].some(
      (tp) => !partitions.some((p) => p.topic === tp.topic && p.partition === tp.partition),
    );
    // A cooperative member first gives up what it loses, then takes what it gains.
    if (shrinks)
      this.#own(
        body.groupId,
        group,
        partitionsByTopic(partitions.filter((p) => (group.owned[p.topic] ?? []).includes(p.partition))),
        "revoked",
      );
    this.#own(body.groupId, group, owned, "assigned");
    this.#state(body.groupId, group, "STABLE");
  }

  #heartbeat(body: WireRequestOf<"Heartbeat">, response: WireResponseOf<"Heartbeat">): void {
    const group = this.#groups.get(body.groupId);
    if (group === undefined || body.generationId !== group.generation) return;
    if (MEMBERSHIP_LOST.has(response.errorCode)) this.#leave(body.groupId, group, "lost");
    else if (response.errorCode === ErrorCode.REBALANCE_IN_PROGRESS) this.#state(body.groupId, group, "PREPARING_REBALANCE");
  }

  /**
   * A KIP-848 heartbeat going out. Its member epoch says what the client is doing: 0 joins (a member that was
   * fenced has already given everything up), -1 leaves and -2 leaves for now (a static member), and anything
   * else heartbeats as the member it is. Its topic partitions, when present, are what the client owns now
   * (ConsumerGroupHeartbeatRequest.TopicPartitions): a partition its target no longer holds that is missing there
   * has been revoked, and the coordinator learns it from this very request. A partition of its target the client
   * does not list yet stays owned: the client started owning it with the answer that assigned it (below).
   */
  #consumerHeartbeat(body: WireRequestOf<"ConsumerGroupHeartbeat">): void {
    const group = this.#group(body.groupId);
    group.protocol = "consumer";
    if (body.memberId !== "") group.memberId = body.memberId;
    if (body.memberEpoch < 0) {
      this.#own(body.groupId, group, {}, "leave");
      group.target = {};
      group.generation = body.memberEpoch;
      this.#state(body.groupId, group, "LEAVING");
      return;
    }
    if (body.memberEpoch === 0) {
      if (Object.keys(group.owned).length > 0) this.#own(body.groupId, group, {}, "lost");
      group.target = {};
      group.generation = 0;
      this.#state(body.groupId, group, "JOINING");
      return;
    }
    if (body.topicPartitions === null) return;
    const listed = new Set<string>();
    for (const tp of body.topicPartitions) {
      const topic = this.#port.topicNameOfKafkaId(tp.topicId);
      if (topic !== undefined) for (const partition of tp.partitions) listed.add(tpKey(topic, partition));
    }
    const kept = [...topicPartitionsOf(group.owned)].filter(
      (tp) => listed.has(tpKey(tp.topic, tp.partition)) || (group.target[tp.topic] ?? []).includes(tp.partition),
    );
    this.#own(body.groupId, group, partitionsByTopic(kept), "revoked");
    if (this.#reconciled(group)) this.#state(body.groupId, group, "STABLE");
  }

  /**
   * A KIP-848 heartbeat's answer. FENCED_MEMBER_EPOCH and UNKNOWN_MEMBER_ID fence the member: it loses what it owns
   * and rejoins at epoch 0 (Kafka's `transitionToFenced`). A new assignment's partitions that the member did not
   * own are its own from this answer on (the coordinator hands out only partitions that no other member holds);
   * the ones it leaves out stay owned until a heartbeat shows them revoked.
   */
  #consumerHeartbeatAnswered(body: WireRequestOf<"ConsumerGroupHeartbeat">, response: WireResponseOf<"ConsumerGroupHeartbeat">): void {
    const group = this.#group(body.groupId);
    // A leave is done whatever its answer says: the client does not send it again (Kafka's leave is best effort).
    if (body.memberEpoch < 0) {
      this.#state(body.groupId, group, "UNSUBSCRIBED");
      return;
    }
    if (response.errorCode === ErrorCode.FENCED_MEMBER_EPOCH || response.errorCode === ErrorCode.UNKNOWN_MEMBER_ID) {
      this.#own(body.groupId, group, {}, "lost");
      group.target = {};
      this.#state(body.groupId, group, "FENCED");
      return;
    }
    if (response.errorCode !== ErrorCode.NONE) return;
    if (response.memberId !== null && response.memberId !== "") group.memberId = response.memberId;
    group.generation = response.memberEpoch;
    if (response.assignment !== null) {
      const target: TopicPartition[] = [];
      for (const tp of response.assignment.topicPartitions) {
        const topic = this.#port.topicNameOfKafkaId(tp.topicId);
        if (topic !== undefined) for (const partition of tp.partitions) target.push({ topic, partition });
      }
      group.target = partitionsByTopic(target);
      const gained = target.filter((tp) => !(group.owned[tp.topic] ?? []).includes(tp.partition));
      if (gained.length > 0) this.#own(body.groupId, group, partitionsByTopic([...topicPartitionsOf(group.owned), ...gained]), "assigned");
    }
    this.#state(body.groupId, group, this.#reconciled(group) ? "STABLE" : "RECONCILING");
  }

  /** Whether a KIP-848 member owns exactly its target assignment. */
  #reconciled(group: GroupMembership): boolean {
    const owned = [...topicPartitionsOf(group.owned)];
    const target = [...topicPartitionsOf(group.target)];
    return owned.length === target.length && owned.every((tp) => (group.target[tp.topic] ?? []).includes(tp.partition));
  }

  #committed(body: WireRequestOf<"OffsetCommit">, response: WireResponseOf<"OffsetCommit">): void {
    const topics = body.topics.map((topic) => ({
      topic: topic.name,
      partitions: topic.partitions.map((p) => p.partitionIndex),
      offsets: topic.partitions.map((p) => Number(p.committedOffset)),
    }));
    let error: number = ErrorCode.NONE;
    for (const topic of response.topics) for (const p of topic.partitions) if (error === ErrorCode.NONE) error = p.errorCode;
    this.#port.observe({
      type: "member.commit",
      groupId: body.groupId,
      memberId: body.memberId,
      memberEpoch: body.generationIdOrMemberEpoch,
      kind: "async",
      topics,
      result: errorName(error),
    });
  }

  #fetched(body: WireRequestOf<"Fetch">, response: WireResponseOf<"Fetch">, version: number): void {
    // Fetch names topics up to v12, by their ids from v13.
    const nameOf = (t: { readonly topic: string; readonly topicId: string }) =>
      version >= 13 ? this.#port.topicNameOfKafkaId(t.topicId) : t.topic;
    const asked = new Map<string, number>();
    for (const topic of body.topics) {
      const name = nameOf(topic);
      if (name !== undefined) for (const p of topic.partitions) asked.set(tpKey(name, p.partition), Number(p.fetchOffset));
    }
    // One member.records per answer, as a poll's: a range per partition that brought new records. What it brought for
    // partitions the member does not own is reported apart (member.records-dropped), for no-loss to name.
    const ranges: RecordRange[] = [];
    const dropped: RecordRange[] = [];
    for (const topic of response.responses) {
      const name = nameOf(topic);
      if (name === undefined) continue;
      for (const p of topic.partitions) {
        if (p.errorCode !== ErrorCode.NONE || p.records === null) continue;
        const key = tpKey(name, p.partitionIndex);
        const owned = this.#mayHandOut(name, p.partitionIndex);
        const from = Math.max(asked.get(key) ?? 0, owned ? (this.#delivered.get(key) ?? 0) : 0);
        const offsets = dataRecordOffsets(p.records).filter((offset) => offset >= from);
        if (offsets.length === 0) continue;
        const first = offsets[0] as number;
        const last = offsets[offsets.length - 1] as number;
        const range = { topic: name, partition: p.partitionIndex, firstOffset: first, lastOffset: last, count: offsets.length };
        if (!owned) {
          dropped.push(range);
          continue;
        }
        this.#delivered.set(key, last + 1);
        ranges.push(range);
      }
    }
    this.consumed(ranges);
    if (dropped.length > 0) this.#port.observe({ type: "member.records-dropped", memberId: this.#currentMemberId(), ranges: dropped });
  }

  /**
   * Whether a Fetch answer's records of a partition can reach the application. A client that assigns its
   * partitions itself (it never joined a group) gets them all. A group member's client drops what it fetched
   * for a partition it no longer owns when the answer arrives (Java's FetchCollector: "Not returning fetched
   * records for partition since it is no longer assigned"; librdkafka discards answers of a fetch version
   * its unassign made stale): for instance the answer to a Fetch sent before the client's LeaveGroup.
   */
  #mayHandOut(topic: string, partition: number): boolean {
    if (this.#groups.size === 0) return true;
    for (const group of this.#groups.values()) if ((group.owned[topic] ?? []).includes(partition)) return true;
    return false;
  }

  /** A client asks a partition's earliest or latest offset when it has no position to resume from: its position is reset. */
  #listed(body: WireRequestOf<"ListOffsets">, response: WireResponseOf<"ListOffsets">): void {
    for (const topic of response.topics) {
      for (const p of topic.partitions) {
        const asked = body.topics.find((t) => t.name === topic.name)?.partitions.find((x) => x.partitionIndex === p.partitionIndex);
        if (p.errorCode !== ErrorCode.NONE || asked === undefined || (asked.timestamp !== -1n && asked.timestamp !== -2n)) continue;
        const offset = p.oldStyleOffsets.length > 0 ? Number(p.oldStyleOffsets[0]) : Number(p.offset);
        this.#port.observe({
          type: "fetch.reset",
          topic: topic.name,
          partition: p.partitionIndex,
          strategy: asked.timestamp === -2n ? "earliest" : "latest",
          offset,
          reason: "no-committed-offset",
        });
      }
    }
  }

  #produced(body: WireRequestOf<"Produce">, response: WireResponseOf<"Produce">, sentAt: Micros): void {
    if (body.acks === 0) return;
    for (const topic of response.responses) {
      const sent = body.topicData.find((t) => t.name === topic.name);
      for (const p of topic.partitionResponses) {
        const batch = batchHeaderOf(sent?.partitionData.find((x) => x.index === p.index)?.records ?? null);
        if (batch === null) continue;
        const acked = p.errorCode === ErrorCode.NONE && p.baseOffset >= 0n;
        this.#port.observe({
          type: "producer.ack",
          topic: topic.name,
          partition: p.index,
          baseOffset: acked ? Number(p.baseOffset) : -1,
          lastOffset: acked ? Number(p.baseOffset) + batch.lastOffsetDelta : -1,
          count: batch.records,
          acks: body.acks === -1 ? "all" : String(body.acks),
          errorCode: p.errorCode,
          latencyMs: (this.#port.now() - sentAt) / 1000,
          producerId: batch.producerId,
          producerEpoch: batch.producerEpoch,
          baseSequence: batch.baseSequence,
          transactionalId: body.transactionalId,
        });
      }
    }
  }
}

/** The fields of a record batch v2 header that a produce acknowledgement reports (big-endian, Kafka's DefaultRecordBatch layout). */
function batchHeaderOf(
  bytes: Uint8Array | null,
): { lastOffsetDelta: number; records: number; producerId: number; producerEpoch: number; baseSequence: number } | null {
  if (bytes === null || bytes.length < 61) return null;
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  return {
    lastOffsetDelta: view.getInt32(23),
    producerId: Number(view.getBigInt64(43)),
    producerEpoch: view.getInt16(51),
    baseSequence: view.getInt32(53),
    records: view.getInt32(57),
  };
}

/**
 * The offsets of the data records in a Fetch answer's record set: every
 * batch but control batches (transaction markers), each batch's records
 * from baseOffset to baseOffset + lastOffsetDelta. Records of a batch are
 * dense (kcsim's logs are never compacted); a truncated last batch is
 * ignored, as clients ignore it.
 */
export function dataRecordOffsets(records: Uint8Array): number[] {
  const view = new DataView(records.buffer, records.byteOffset, records.byteLength);
  const offsets: number[] = [];
  for (let at = 0; at + 61 <= records.length; ) {
    const baseOffset = Number(view.getBigInt64(at));
    const length = view.getInt32(at + 8);
    if (at + 12 + length > records.length) break;
    const attributes = view.getInt16(at + 21);
    const lastOffsetDelta = view.getInt32(at + 23);
    const isControl = (attributes & 0x20) !== 0;
    if (!isControl) for (let delta = 0; delta <= lastOffsetDelta; delta++) offsets.push(baseOffset + delta);
    at += 12 + length;
  }
  return offsets;
}
