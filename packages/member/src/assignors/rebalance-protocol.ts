/**
 * The classic protocol's rebalance protocols (KIP-429). EAGER revokes every
 * owned partition before each JoinGroup; COOPERATIVE revokes only what the
 * new assignment takes away, and needs a second round to hand it out.
 */
export type RebalanceProtocol = "EAGER" | "COOPERATIVE";

/** Kafka's `RebalanceProtocol` ids; the higher id is the preferred protocol. */
export const REBALANCE_PROTOCOL_ID: Readonly<Record<RebalanceProtocol, number>> = { EAGER: 0, COOPERATIVE: 1 };

/**
 * The protocol a consumer runs (`ConsumerCoordinator`'s constructor): the
 * highest one supported by every configured assignor (EAGER < COOPERATIVE).
 * Throws when the assignors share none, as Kafka does.
 */
export function chooseRebalanceProtocol(
  assignors: readonly { name: string; supportedProtocols: readonly RebalanceProtocol[] }[],
): RebalanceProtocol {
  const [first, ...rest] = assignors;
  if (first === undefined) throw new Error("no partition assignors configured: the classic protocol needs at least one");
  const common = first.supportedProtocols.filter((protocol) => rest.every((assignor) => assignor.supportedProtocols.includes(protocol)));
  if (common.length === 0) {
    const names = assignors.map((assignor) => assignor.name).join(", ");
    throw new Error(`Specified assignors [${names}] do not have commonly supported rebalance protocol`);
  }
  return common.reduce((best, protocol) => (REBALANCE_PROTOCOL_ID[protocol] > REBALANCE_PROTOCOL_ID[best] ? protocol : best));
}
