import type { ActorLogger } from "@kcsim/protocol";

/** A logger that drops everything (runs without --log-level). */
export const silentLogger: ActorLogger = {
  debug() {},
  info() {},
  warn() {},
  error() {},
};
