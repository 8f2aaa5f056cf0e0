import { actorExceptions } from "./actor-exceptions.js";
import type { Checker } from "./checker.js";
import { pingPongLiveness } from "./ping-pong-liveness.js";

/** Checkers by name; a scenario lists the ones that judge it (default: actor-exceptions). */
export const CHECKERS: ReadonlyMap<string, Checker> = new Map([actorExceptions, pingPongLiveness].map((checker) => [checker.name, checker]));

export const DEFAULT_CHECKERS: readonly string[] = ["actor-exceptions"];
