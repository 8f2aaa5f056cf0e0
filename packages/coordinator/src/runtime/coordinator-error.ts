import { ErrorCode, errorName } from "@kcsim/protocol";

/**
 * A Kafka `ApiException` raised while handling a request: the operation is
 * abandoned (any state it changed is rolled back) and the request is
 * answered at once with `errorCode` and `message`.
 */
export class CoordinatorError extends Error {
  override readonly name = "CoordinatorError";

  constructor(
    readonly errorCode: number,
    message: string,
  ) {
    super(message);
  }

  override toString(): string {
    return `${errorName(this.errorCode)}: ${this.message}`;
  }
}

/**
 * Kafka's `IllegalStateException` in the coordinator: an invariant of the
 * group state broke (a partition owned twice, a replayed tombstone out of
 * order). It is a bug, never an answer to a client: it propagates and
 * fails the actor.
 */
export class IllegalStateError extends Error {
  override readonly name = "IllegalStateException";
}

export function invalidRequest(message: string): CoordinatorError {
  return new CoordinatorError(ErrorCode.INVALID_REQUEST, message);
}
