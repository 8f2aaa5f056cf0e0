import type { ClassicGroup } from "../classic-group/classic-group.js";
import type { ConsumerGroup } from "../consumer-group/consumer-group.js";

/**
 * Any group a coordinator hosts, told apart by `protocol` (Kafka's
 * `Group.type()`): KIP-848 consumer groups and classic groups share one
 * namespace of group ids, and a group id names one group of one kind.
 */
export type Group = ConsumerGroup | ClassicGroup;

export type GroupProtocol = Group["protocol"];
