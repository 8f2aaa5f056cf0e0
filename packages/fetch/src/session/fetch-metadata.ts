/**
 * KIP-227 session metadata (Kafka's `FetchMetadata`): the (session id, epoch)
 * pair every Fetch request carries.
 */

/** The session id of a client without a session. */
export const INVALID_SESSION_ID = 0;

/** Asks the broker to create (or recreate) a session: a full request. */
export const INITIAL_EPOCH = 0;

/** Asks the broker to close any session and create none: a full, sessionless request. */
export const FINAL_EPOCH = -1;

/** Java's Integer.MAX_VALUE: session epochs wrap from here to 1. */
export const INT32_MAX = 2_147_483_647;

export interface FetchMetadata {
  readonly sessionId: number;
  readonly epoch: number;
}

/** The metadata of a fresh handler: no session, create one. */
export const INITIAL_METADATA: FetchMetadata = { sessionId: INVALID_SESSION_ID, epoch: INITIAL_EPOCH };

/** Pre-KIP-227 requests: no session and none wanted. */
export const LEGACY_METADATA: FetchMetadata = { sessionId: INVALID_SESSION_ID, epoch: FINAL_EPOCH };

/** The epoch after `prevEpoch`: FINAL stays FINAL (any negative), MAX_VALUE wraps to 1 (never back to INITIAL). */
export function nextEpoch(prevEpoch: number): number {
  if (prevEpoch < 0) return FINAL_EPOCH;
  if (prevEpoch === INT32_MAX) return 1;
  return prevEpoch + 1;
}

/** A request with epoch INITIAL or FINAL lists every partition it wants (a full request). */
export function isFull(metadata: FetchMetadata): boolean {
  return metadata.epoch === INITIAL_EPOCH || metadata.epoch === FINAL_EPOCH;
}

/** Close the session on the next request and create no new one. */
export function nextCloseExisting(metadata: FetchMetadata): FetchMetadata {
  return { sessionId: metadata.sessionId, epoch: FINAL_EPOCH };
}

/** Close the session on the next request and try to create a new one (a full request naming the old id). */
export function nextCloseExistingAttemptNew(metadata: FetchMetadata): FetchMetadata {
  return { sessionId: metadata.sessionId, epoch: INITIAL_EPOCH };
}

/** The first incremental request of a session the broker just created. */
export function newIncremental(sessionId: number): FetchMetadata {
  return { sessionId, epoch: nextEpoch(INITIAL_EPOCH) };
}

/** The next incremental request of the same session. */
export function nextIncremental(metadata: FetchMetadata): FetchMetadata {
  return { sessionId: metadata.sessionId, epoch: nextEpoch(metadata.epoch) };
}
