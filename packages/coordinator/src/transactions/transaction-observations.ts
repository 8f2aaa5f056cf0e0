import { type Observation, parseTpKey, partitionsByTopic } from "@kcsim/protocol";
import type {
  TransactionCoordinatorLoadedObservation,
  TransactionMarkerObservation,
  TransactionStateName,
  TransactionStateObservation,
} from "../observations.js";

/** Builders of the transaction coordinator's observations (observations.ts is the contract). */

export function transactionStateObservation(
  transactionalId: string,
  producerId: number,
  producerEpoch: number,
  from: TransactionStateName,
  to: TransactionStateName,
  partitions: Iterable<string>,
): Observation {
  const observation: TransactionStateObservation = {
    type: "txn.state",
    transactionalId,
    producerId,
    producerEpoch,
    from,
    to,
    partitions: partitionsByTopic([...partitions].map(parseTpKey)),
  };
  return { ...observation };
}

export function transactionMarkerObservation(fields: Omit<TransactionMarkerObservation, "type">): Observation {
  const observation: TransactionMarkerObservation = { type: "txn.marker", ...fields };
  return { ...observation };
}

export function transactionCoordinatorLoadedObservation(fields: Omit<TransactionCoordinatorLoadedObservation, "type">): Observation {
  const observation: TransactionCoordinatorLoadedObservation = { type: "txn.loaded", ...fields };
  return { ...observation };
}
