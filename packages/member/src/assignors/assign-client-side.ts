import type { TopicPartition } from "@kcsim/protocol";
import { clientAssignor } from "./client-assignors.js";
import type { AssignorSubscription } from "./consumer-partition-assignor.js";
import { encodeCooperativeUserData, encodeStickyUserData } from "./sticky/sticky-user-data.js";
import { groupPartitionsByTopic } from "./topic-partitions.js";

/** The assignor names of the CLI (`client-range` tells the classic range from the server-side one). */
export type ClientSideAssignorName = "client-range" | "roundrobin" | "sticky" | "cooperative-sticky";

const CLIENT_SIDE_ASSIGNOR_NAMES: readonly ClientSideAssignorName[] = ["client-range", "roundrobin", "sticky", "cooperative-sticky"];

/** Member id -> topic -> partitions (topics sorted, partitions ascending); every member present. */
export type ClientSideAssignment = Record<string, Record<string, number[]>>;

/** One member of a JSON assignment input, validated. */
export interface AssignmentInputMember {
  readonly id: string;
  readonly instanceId: string | null;
  readonly subscriptions: readonly string[];
  readonly owned: readonly TopicPartition[];
  readonly generation: number;
}

const fail = (where: string, what: string): never => {
  throw new Error(`${where}: ${what}`);
};

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

function checkFields(value: Record<string, unknown>, where: string, allowed: readonly string[]): void {
  for (const key of Object.keys(value)) {
    if (!allowed.includes(key)) fail(where === "" ? key : `${where}.${key}`, `unknown field (expected ${allowed.join(", ")})`);
  }
}

function isNonNegativeInteger(value: unknown): value is number {
  return typeof value === "number" && Number.isInteger(value) && value >= 0;
}

function parseTopics(value: unknown): Map<string, number> {
  if (!Array.isArray(value)) return fail("topics", 'expected an array of {"name", "partitions"}');
  const counts = new Map<string, number>();
  for (const [i, topic] of (value as unknown[]).entries()) {
    const where = `topics[${i}]`;
    if (!isRecord(topic)) return fail(where, 'expected an object {"name", "partitions"}');
    checkFields(topic, where, ["name", "partitions"]);
    const { name, partitions } = topic;
    if (typeof name !== "string" || name === "") return fail(`${where}.name`, "expected a non-empty topic name");
    if (counts.has(name)) return fail(`${where}.name`, `duplicate topic ${JSON.stringify(name)}`);
    if (!isNonNegativeInteger(partitions)) return fail(`${where}.partitions`, "expected a partition count (an integer >= 0)");
    counts.set(name, partitions);
  }
  return counts;
}

function parseSubscriptions(value: unknown, where: string): string[] {
  if (!Array.isArray(value) || !value.every((topic) => typeof topic === "string" && topic !== "")) {
    return fail(where, "expected an array of topic names");
  }
  const topics = value as string[];
  const repeated = topics.find((topic, i) => topics.indexOf(topic) !== i);
  if (repeated !== undefined) fail(where, `topic ${JSON.stringify(repeated)} listed twice`);
  return topics;
}

function parseOwned(value: unknown, where: string, counts: ReadonlyMap<string, number>): TopicPartition[] {
  if (value === undefined) return [];
  if (!isRecord(value)) return fail(where, "expected an object mapping topic names to arrays of partitions");
  const owned: TopicPartition[] = [];
  for (const [topic, partitions] of Object.entries(value)) {
    const at = `${where}.${topic}`;
    if (!Array.isArray(partitions) || !partitions.every(isNonNegativeInteger)) {
      return fail(at, "expected an array of partition numbers (integers >= 0)");
    }
    const count = counts.get(topic);
    for (const [i, partition] of (partitions as number[]).entries()) {
      if (partitions.indexOf(partition) !== i) fail(at, `partition ${partition} listed twice`);
      // Owned partitions of a topic missing from "topics" are allowed: a deleted topic.
      if (count !== undefined && partition >= count) fail(at, `partition ${partition} does not exist (${topic} has ${count})`);
      owned.push({ topic, partition });
    }
  }
  return owned;
}

function parseMembers(value: unknown, counts: ReadonlyMap<string, number>): AssignmentInputMember[] {
  if (!Array.isArray(value)) return fail("members", 'expected an array of {"id", "instanceId", "subscriptions", "owned", "generation"}');
  const ids = new Set<string>();
  return value.map((member: unknown, i) => {
    const where = `members[${i}]`;
    if (!isRecord(member)) return fail(where, 'expected an object {"id", "instanceId", "subscriptions", "owned", "generation"}');
    checkFields(member, where, ["id", "instanceId", "subscriptions", "owned", "generation"]);
    const { id, instanceId = null, generation = -1 } = member;
    if (typeof id !== "string" || id === "") return fail(`${where}.id`, "expected a non-empty member id");
    if (ids.has(id)) return fail(`${where}.id`, `duplicate member id ${JSON.stringify(id)}`);
    ids.add(id);
    if (instanceId !== null && (typeof instanceId !== "string" || instanceId === "")) {
      return fail(`${where}.instanceId`, "expected a non-empty group.instance.id or null");
    }
    if (typeof generation !== "number" || !Number.isInteger(generation) || generation < -1) {
      return fail(`${where}.generation`, "expected an integer >= -1 (-1: none)");
    }
    return {
      id,
      instanceId,
      subscriptions: parseSubscriptions(member.subscriptions, `${where}.subscriptions`),
      owned: parseOwned(member.owned, `${where}.owned`, counts),
      generation,
    };
  });
}

/** The subscription each assignor expects from a member with this state (what its client would send). */
function subscriptionFor(assignor: ClientSideAssignorName, member: AssignmentInputMember): AssignorSubscription {
  const base = { memberId: member.id, groupInstanceId: member.instanceId, topics: member.subscriptions, rackId: null };
  switch (assignor) {
    case "sticky": {
      // Eager: the member revoked everything before joining; its previous assignment rides in the user data.
      const hasHistory = member.owned.length > 0 || member.generation >= 0;
      const userData = hasHistory ? encodeStickyUserData(member.owned, member.generation) : null;
      return { ...base, userData, ownedPartitions: [], generationId: member.generation };
    }
    case "cooperative-sticky":
      return {
        ...base,
        userData: encodeCooperativeUserData(member.generation),
        ownedPartitions: member.owned,
        generationId: member.generation,
      };
    default:
      return { ...base, userData: null, ownedPartitions: member.owned, generationId: member.generation };
  }
}

/** A JSON assignment input, validated: partition counts by topic (in input order) and members in input order. */
export interface AssignmentInput {
  readonly topics: ReadonlyMap<string, number>;
  readonly members: readonly AssignmentInputMember[];
}

/**
 * Validates the CLI's JSON description of a group (the input of every
 * `kcsim assign` assignor, client- or server-side). Throws an Error whose
 * one-line message names the bad field.
 */
export function parseAssignmentInput(input: unknown): AssignmentInput {
  if (!isRecord(input)) return fail("input", 'expected an object {"topics", "members"}');
  checkFields(input, "", ["topics", "members"]);
  const topics = parseTopics(input.topics);
  return { topics, members: parseMembers(input.members, topics) };
}

/**
 * Runs a classic client-side assignor on a JSON description of a group, for
 * the CLI. `input`:
 * `{"topics":[{"name":"T1","partitions":3}], "members":[{"id":"A","instanceId":null,
 * "subscriptions":["T1"],"owned":{"T1":[0]},"generation":3}]}`; member array order is
 * the iteration order, `owned` the member's currently owned partitions, `generation`
 * (default -1, none) matters only to the sticky assignors. Returns
 * `{"A":{"T1":[0,1]}}`. Throws an Error whose one-line message names the bad field.
 */
export function assignClientSide(assignorName: ClientSideAssignorName, input: unknown): ClientSideAssignment {
  if (!CLIENT_SIDE_ASSIGNOR_NAMES.includes(assignorName)) {
    fail("assignor", `expected one of ${CLIENT_SIDE_ASSIGNOR_NAMES.join(", ")}, got ${JSON.stringify(assignorName)}`);
  }
  const { topics: counts, members } = parseAssignmentInput(input);
  const assignor = clientAssignor(assignorName === "client-range" ? "range" : assignorName);
  const assignment = assignor.assign(
    counts,
    members.map((member) => subscriptionFor(assignorName, member)),
  );

  // Null-prototype objects: a member or topic may be named "__proto__" (a legal Kafka topic name).
  const result: ClientSideAssignment = Object.create(null);
  for (const member of members) {
    const byTopic: Record<string, number[]> = Object.create(null);
    for (const { topic, partitions } of groupPartitionsByTopic(assignment.get(member.id)?.partitions ?? [])) byTopic[topic] = partitions;
    result[member.id] = byTopic;
  }
  return result;
}
