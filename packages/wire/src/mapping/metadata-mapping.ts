import type { MetadataResponse } from "@kcsim/protocol";
import type { WireResponseOf } from "../apis/index.js";
import { WireError } from "../wire-error.js";
import type { WireMappingContext } from "./mapping-context.js";

/**
 * A kcsim MetadataResponse as the wire's (v0-6): brokers at the listeners
 * the server gives for them (kcsim's host is an actor id), no topic ids at
 * these versions, leader epochs (v7+) dropped, offline replicas empty. The
 * cluster id is the server's. The endpoint may also build the answer
 * itself (topic auto-creation, num.partitions): the request side is not
 * mapped, its topic list is names only.
 */
export function metadataToWire(
  response: MetadataResponse,
  context: WireMappingContext,
  clusterId: string | null,
): WireResponseOf<"Metadata"> {
  return {
    throttleTimeMs: response.throttleTimeMs,
    brokers: response.brokers.map((b) => {
      const endpoint = context.endpointOf(b.nodeId);
      if (endpoint === undefined) throw new WireError("unencodable", `no listener for node ${b.nodeId}`);
      return { nodeId: b.nodeId, host: endpoint.host, port: endpoint.port, rack: b.rack };
    }),
    clusterId,
    controllerId: response.controllerId,
    topics: response.topics.map((t) => ({
      errorCode: t.errorCode,
      name: t.name,
      isInternal: t.isInternal,
      partitions: t.partitions.map((p) => ({
        errorCode: p.errorCode,
        partitionIndex: p.partitionIndex,
        leaderId: p.leaderId,
        replicaNodes: [...p.replicaNodes],
        isrNodes: [...p.isrNodes],
        offlineReplicas: [],
      })),
    })),
  };
}
