import type { ConsumerGroupHeartbeatRequest } from "@kcsim/protocol";
import type { ClientMemberState } from "../observations.js";
import type { LocalAssignment } from "./local-assignment.js";

/** What the heartbeat builder needs to know about the member at the moment it builds. */
export interface HeartbeatSubject {
  readonly groupId: string;
  readonly memberId: string;
  readonly groupInstanceId: string | null;
  readonly state: ClientMemberState;
  readonly memberEpoch: number;
  /** Subscribed topic names, sorted: a new array for each change, never changed in place. */
  readonly subscription: readonly string[];
  /** The last reconciled assignment (with its local epoch). */
  readonly currentAssignment: LocalAssignment;
}

type HeartbeatFieldsBody = Omit<ConsumerGroupHeartbeatRequest, "type" | "correlationId" | "apiVersion" | "clientId">;

/**
 * Which ConsumerGroupHeartbeat fields to send (spec 1.1,
 * `ConsumerHeartbeatRequestManager.HeartbeatState`): GroupId, MemberId,
 * MemberEpoch always, InstanceId always when static; the rest only when
 * joining or when they changed since the last request sent. After a failed
 * heartbeat, reset() forgets what was sent so the next one carries every field.
 */
export class HeartbeatFields {
  readonly #rebalanceTimeoutMs: number;
  readonly #serverAssignor: string | null;
  #sentRebalanceTimeoutMs = -1;
  #sentSubscription: readonly string[] | null = null;
  /** The member's subscription array the last sent one was copied from (the member replaces it, never changes it). */
  #sentSubscriptionSource: readonly string[] | null = null;
  #sentServerAssignor: string | null = null;
  #sentAssignment: LocalAssignment | null = null;

  constructor(rebalanceTimeoutMs: number, serverAssignor: string | null) {
    this.#rebalanceTimeoutMs = rebalanceTimeoutMs;
    this.#serverAssignor = serverAssignor;
  }

  reset(): void {
    this.#sentRebalanceTimeoutMs = -1;
    this.#sentSubscription = null;
    this.#sentSubscriptionSource = null;
    this.#sentServerAssignor = null;
    this.#sentAssignment = null;
  }

  /** The request's fields (in schema order), recording what is sent. */
  build(member: HeartbeatSubject): HeartbeatFieldsBody {
    const sendAll = member.state === "JOINING";

    let rebalanceTimeoutMs = -1;
    if (sendAll || this.#sentRebalanceTimeoutMs !== this.#rebalanceTimeoutMs) {
      rebalanceTimeoutMs = this.#rebalanceTimeoutMs;
      this.#sentRebalanceTimeoutMs = rebalanceTimeoutMs;
    }

    let subscribedTopicNames: string[] | null = null;
    if (sendAll || (member.subscription !== this.#sentSubscriptionSource && !sameList(this.#sentSubscription, member.subscription))) {
      subscribedTopicNames = [...member.subscription];
      this.#sentSubscription = subscribedTopicNames;
    }
    this.#sentSubscriptionSource = member.subscription;

    let serverAssignor: string | null = null;
    if (this.#serverAssignor !== null && (sendAll || this.#sentServerAssignor !== this.#serverAssignor)) {
      serverAssignor = this.#serverAssignor;
      this.#sentServerAssignor = serverAssignor;
    }

    let topicPartitions: ConsumerGroupHeartbeatRequest["topicPartitions"] = null;
    if (sendAll || this.#sentAssignment === null || !member.currentAssignment.equals(this.#sentAssignment)) {
      topicPartitions = member.currentAssignment.toHeartbeatTopicPartitions();
      this.#sentAssignment = member.currentAssignment;
    }

    return {
      groupId: member.groupId,
      memberId: member.memberId,
      memberEpoch: member.memberEpoch,
      instanceId: member.groupInstanceId,
      rackId: null,
      rebalanceTimeoutMs,
      subscribedTopicNames,
      subscribedTopicRegex: null,
      serverAssignor,
      topicPartitions,
    };
  }
}

function sameList(a: readonly string[] | null, b: readonly string[]): boolean {
  return a !== null && a.length === b.length && a.every((item, i) => item === b[i]);
}
