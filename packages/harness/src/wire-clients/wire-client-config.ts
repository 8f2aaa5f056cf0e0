import { ConfigError, deepestError, type JsonValue, SchemaCheck } from "@kcsim/protocol";
import { type Static, Type } from "@sinclair/typebox";

const Closed = { additionalProperties: false } as const;

/**
 * How a real client's actor sees the simulated cluster: every broker node
 * with the listener clients reach it at (the Metadata answers name it) and
 * the broker actor behind it; the group coordinators (coordinator i lives
 * on node i mod nodes, which is the node FindCoordinator names for it); the
 * KRaft controller (CreateTopics, auto-creation); the topics known at the
 * start; the broker settings the endpoint applies itself.
 */
export const WireClientConfigSchema = Type.Object(
  {
    nodes: Type.Array(
      Type.Object(
        {
          nodeId: Type.Integer({ minimum: 0 }),
          host: Type.String({ minLength: 1 }),
          port: Type.Integer({ minimum: 0 }),
          broker: Type.String(),
        },
        Closed,
      ),
      { minItems: 1 },
    ),
    coordinators: Type.Array(Type.String({ minLength: 1 }), { minItems: 1 }),
    controller: Type.Union([Type.String({ minLength: 1 }), Type.Null()]),
    topics: Type.Array(Type.Object({ name: Type.String({ minLength: 1 }), id: Type.String({ minLength: 1 }) }, Closed)),
    clusterId: Type.String(),
    autoCreateTopics: Type.Boolean(),
    offsetsTopicPartitions: Type.Integer({ minimum: 1 }),
    /** Where member.records come from: the records Fetch answers bring ("fetched"), or the application's own report. */
    records: Type.Union([Type.Literal("fetched"), Type.Literal("application")]),
  },
  Closed,
);

export type WireClientConfig = Static<typeof WireClientConfigSchema>;
export type WireClientNode = WireClientConfig["nodes"][number];

const check = new SchemaCheck(WireClientConfigSchema);

export function parseWireClientConfig(scope: string, json: JsonValue): WireClientConfig {
  if (!check.Check(json)) {
    const error = deepestError(check.Errors(json));
    throw new ConfigError(`${scope} config: '${error?.path.slice(1).replaceAll("/", ".") ?? ""}' ${error?.message ?? "is not valid"}`);
  }
  return json;
}
