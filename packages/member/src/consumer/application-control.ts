import type { Context, ControlCommand } from "@kcsim/protocol";
import type { ApplicationThread } from "./application-thread.js";

/**
 * Hands a harness command meant for the consumer's application to its
 * thread: pause-app, resume-app, close, unsubscribe, commit-sync,
 * subscribe {topics} and set-processing-ms {ms}, the same for either
 * protocol's consumer. A command with bad arguments is logged as one line
 * and ignored. Returns whether the command was one of these (the caller
 * then lets its background work run on what the application did).
 */
export function controlApplication(app: ApplicationThread, command: ControlCommand, ctx: Context): boolean {
  switch (command.command) {
    case "pause-app":
      app.pause(ctx);
      return true;
    case "resume-app":
      app.resume(ctx);
      return true;
    case "close":
    case "unsubscribe":
    case "commit-sync":
      app.call({ kind: command.command }, ctx);
      return true;
    case "subscribe": {
      const topics = command.topics;
      if (!Array.isArray(topics) || !topics.every((topic) => typeof topic === "string" && topic !== "")) {
        ctx.log.error("subscribe needs {topics: [non-empty strings]}; command ignored", { topics: topics ?? null });
        return true;
      }
      // subscribe([]) is unsubscribe(), as in KafkaConsumer.
      app.call(topics.length === 0 ? { kind: "unsubscribe" } : { kind: "subscribe", topics: topics as string[] }, ctx);
      return true;
    }
    case "set-processing-ms": {
      const ms = command.ms;
      if (typeof ms !== "number" || !Number.isFinite(ms) || ms < 0) {
        ctx.log.error("set-processing-ms needs {ms: number >= 0}; command ignored", { ms: ms ?? null });
        return true;
      }
      app.setProcessingMsPerRecord(ms, ctx);
      return true;
    }
    default:
      return false;
  }
}
