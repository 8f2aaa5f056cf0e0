import { readFileSync } from "node:fs";
import { type GroupSpec, SubscribedTopicDescriber, serverAssignorNamed } from "@kcsim/coordinator";
import { type AssignmentInput, assignClientSide, type ClientSideAssignorName, parseAssignmentInput } from "@kcsim/member";
import { topicIdFor } from "@kcsim/protocol";
import { choiceFlag, parseFlags } from "../parse-flags.js";
import { resolveUserPath } from "../paths.js";
import { UsageError } from "../usage-error.js";

const SERVER_SIDE = ["uniform", "range"] as const;
const CLIENT_SIDE = ["client-range", "roundrobin", "sticky", "cooperative-sticky"] as const;
const ASSIGNORS = [...SERVER_SIDE, ...CLIENT_SIDE] as const;
type Assignment = Record<string, Record<string, number[]>>;

/**
 * Runs a KIP-848 server-side assignor: topics get ids (topicIdFor), members
 * keep the input order (the iteration order Kafka takes from a HashMap),
 * `owned` is each member's current target.
 */
export function assignServerSide(name: (typeof SERVER_SIDE)[number], input: AssignmentInput): Assignment {
  const assignor = serverAssignorNamed(name);
  if (assignor === undefined) throw new UsageError(`assign: no server assignor '${name}'`);
  const topics = [...input.topics].map(([topicName, numPartitions]) => ({
    topicId: topicIdFor(topicName),
    name: topicName,
    numPartitions,
  }));
  const nameOf = new Map(topics.map((t) => [t.topicId, t.name]));
  const idOf = (topic: string) => topicIdFor(topic);
  const spec: GroupSpec = {
    members: input.members.map((member) => {
      const owned = new Map<string, number[]>();
      for (const { topic, partition } of member.owned) owned.set(topic, [...(owned.get(topic) ?? []), partition]);
      return {
        memberId: member.id,
        instanceId: member.instanceId,
        subscribedTopicIds: member.subscriptions.map(idOf),
        currentAssignment: [...owned].map(([topic, partitions]) => ({ topicId: idOf(topic), partitions })),
      };
    }),
  };
  const result = assignor.assign(spec, new SubscribedTopicDescriber(topics));
  // Null-prototype objects: a member or topic may be named "__proto__" (a legal Kafka topic name).
  const out: Assignment = Object.create(null);
  for (const member of result.members) {
    const byTopic: Record<string, number[]> = Object.create(null);
    const entries = member.partitions
      .filter((p) => p.partitions.length > 0)
      .map((p) => [nameOf.get(p.topicId) ?? p.topicId, [...p.partitions].sort((a, b) => a - b)] as const)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    for (const [topic, partitions] of entries) byTopic[topic] = partitions;
    out[member.memberId] = byTopic;
  }
  return out;
}

/** `kcsim assign --assignor NAME --input FILE`: prints the assignment as one JSON object. */
export function assignCommand(argv: readonly string[]): number {
  const { values, positionals } = parseFlags("assign", argv, { assignor: { type: "string" }, input: { type: "string" } });
  if (positionals.length > 0) throw new UsageError(`assign: unexpected argument '${positionals[0]}'`);
  if (values.assignor === undefined) throw new UsageError(`assign: --assignor is required (${ASSIGNORS.join("|")})`);
  if (values.input === undefined) throw new UsageError("assign: --input FILE is required");
  const name = choiceFlag("assign", "assignor", values.assignor, ASSIGNORS, "uniform");
  const path = resolveUserPath(values.input);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(path, "utf8"));
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === "ENOENT" ? "no such file" : error instanceof Error ? error.message : String(error);
    throw new UsageError(`assign: ${values.input}: cannot read the input (${reason})`);
  }
  let assignment: Assignment;
  try {
    const input = parseAssignmentInput(raw);
    assignment = (SERVER_SIDE as readonly string[]).includes(name)
      ? assignServerSide(name as (typeof SERVER_SIDE)[number], input)
      : assignClientSide(name as ClientSideAssignorName, raw);
  } catch (error) {
    if (error instanceof UsageError) throw error;
    throw new UsageError(`assign: ${values.input}: ${error instanceof Error ? error.message : String(error)}`);
  }
  process.stdout.write(`${JSON.stringify(assignment)}\n`);
  return 0;
}
