import { ErrorCode, errorName } from "@kcsim/protocol";

/**
 * An error a producer operation ended with: the Kafka error code that
 * caused it (UNKNOWN_SERVER_ERROR, -1, for client-side errors without one)
 * and the name of the exception Kafka's client would throw.
 */
export interface ProducerError {
  readonly errorCode: number;
  readonly name: string;
}

/** The error a broker or coordinator error code stands for, named as the code. */
export function producerErrorOf(errorCode: number): ProducerError {
  return { errorCode, name: errorName(errorCode) };
}

/** A client-side error without a broker error code (e.g. TransactionAbortedException). */
export function clientError(name: string): ProducerError {
  return { errorCode: ErrorCode.UNKNOWN_SERVER_ERROR, name };
}
