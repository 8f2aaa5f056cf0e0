/**
 * @kcsim/protocol: messages, error codes, configs and defaults, the msgpack
 * codec, the actor contract, seeded random streams; and what group
 * coordinators and partition leaders share of KIP-890's transaction
 * verification (the placement of transactional ids, the
 * AddPartitionsToTxn v4 client and answer).
 */
export * from "./actor.js";
export * from "./add-partitions-to-txn-broker-response.js";
export * from "./add-partitions-to-txn-manager.js";
export * from "./codec.js";
export * from "./configs/broker-config.js";
export * from "./configs/config-def.js";
export * from "./configs/consumer-config.js";
export * from "./configs/producer-config.js";
export * from "./consumer-protocol.js";
export * from "./errors.js";
export * from "./exponential-backoff.js";
export * from "./get-or-create.js";
export * from "./messages/index.js";
export * from "./partition-for.js";
export * from "./plain-object-keys.js";
export * from "./planted-bug-set.js";
export * from "./planted-bugs.js";
export * from "./random.js";
export * from "./rpc.js";
export * from "./schema-check.js";
export * from "./sealed-message.js";
export * from "./time.js";
export * from "./topics.js";
export * from "./transaction-placement.js";
export * from "./transaction-version.js";
export * from "./value-tape.js";
export * from "./verification-guard.js";
