/**
 * Kafka's `VerificationGuard` (KIP-890 part 1): the token of one
 * verification of a producer's transaction on one partition. A write
 * carries the guard its verification got, or SENTINEL_GUARD when it needed
 * none (its producer's transaction was already open there); the append
 * checks that the guard is still the partition's for that producer.
 */
export type VerificationGuard = number;
export const SENTINEL_GUARD: VerificationGuard = 0;
