import { type Actor, type ActorId, type ConfigDef, type Context, type JsonValue, type Message, ms, resolveConfig } from "@kcsim/protocol";
import { MAX_TIME_MS } from "../scenario/limits.js";

/**
 * The smallest actors that exercise a host: a pinger sends SimPing to its
 * peer and waits for the SimPong; a ponger answers (on the pinger's
 * connection, in connection mode). The pinger re-arms one
 * `timeout` timer per ping (timers replace by name), retries on timeout,
 * and keeps its last sequence number in its durable log so a restarted
 * pinger continues where it was.
 */
export interface PingerConfig {
  readonly peer: ActorId;
  /** Pings to send (0 = until the run ends). */
  readonly count: number;
  /** Open loop: ping every intervalMs. Closed loop (0): the next ping goes out when the pong arrives. */
  readonly intervalMs: number;
  readonly timeoutMs: number;
  readonly payload: string;
  /** Observe every pong (tests) or only timeouts and the final tally (benchmarks). */
  readonly observeEachPong: boolean;
}

/**
 * The pinger's settings. The timeout has a minimum of 1 ms, as Kafka's
 * timeouts do: a zero timeout would re-arm itself at the same instant forever.
 */
export const PINGER_CONFIG_DEF: ConfigDef<PingerConfig> = {
  peer: { type: "string", default: "ponger", doc: "The actor to ping." },
  count: { type: "int", default: 0, min: 0, doc: "Pings to send (0: until the run ends)." },
  intervalMs: { type: "int", default: 0, min: 0, max: MAX_TIME_MS, doc: "Open loop period; 0 = the next ping goes out on the pong." },
  timeoutMs: { type: "int", default: 100, min: 1, max: MAX_TIME_MS, doc: "Resend a ping not answered within this time." },
  payload: { type: "string", default: "ping", doc: "The ping's payload, echoed in the pong." },
  observeEachPong: { type: "boolean", default: true, doc: "Observe every pong (tests) or only timeouts (benchmarks)." },
};

/** The ponger has no settings: any given is a typo. */
export const PONGER_CONFIG_DEF: ConfigDef<Record<never, never>> = {};

export class Pinger implements Actor {
  readonly #config: PingerConfig;
  #seq = 0;
  #sentAt = 0;
  #pongs = 0;

  constructor(config: JsonValue) {
    this.#config = resolveConfig("pinger", PINGER_CONFIG_DEF, config ?? {});
  }

  start(ctx: Context): void {
    const saved = ctx.storage.readAll();
    const last = saved[saved.length - 1] as { seq: number } | undefined;
    this.#seq = last?.seq ?? 0;
    if (this.#config.intervalMs > 0) ctx.setTimer("next", ms(this.#config.intervalMs));
    this.#ping(ctx);
  }

  receive(_from: ActorId, message: Message, ctx: Context): void {
    if (message.type !== "SimPong" || message.seq !== this.#seq) return; // late or duplicate pong
    this.#pongs++;
    if (this.#config.observeEachPong) ctx.observe({ type: "ping.pong", seq: message.seq, rttUs: ctx.now() - this.#sentAt });
    ctx.cancelTimer("timeout");
    if (this.#config.intervalMs === 0) this.#ping(ctx);
  }

  fire(timer: string, ctx: Context): void {
    if (timer === "timeout") {
      ctx.observe({ type: "ping.timeout", seq: this.#seq });
      // The pinger is no Kafka client: it keeps its connection and pings again on it (a broken one is reopened when its
      // break is noticed), so the host proofs stay simple on a loaded machine's real clock.
      this.#resend(ctx);
    } else if (timer === "next") {
      ctx.setTimer("next", ms(this.#config.intervalMs));
      this.#ping(ctx);
    }
  }

  snapshot(): JsonValue {
    return { seq: this.#seq, pongs: this.#pongs };
  }

  #ping(ctx: Context): void {
    if (this.#config.count > 0 && this.#seq >= this.#config.count) return;
    this.#seq++;
    if (this.#seq % 100 === 1) ctx.storage.append({ seq: this.#seq });
    this.#resend(ctx);
  }

  #resend(ctx: Context): void {
    this.#sentAt = ctx.now();
    ctx.send(this.#config.peer, { type: "SimPing", seq: this.#seq, payload: this.#config.payload });
    ctx.setTimer("timeout", ms(this.#config.timeoutMs));
  }
}

export class Ponger implements Actor {
  #answered = 0;

  constructor(config: JsonValue = {}) {
    resolveConfig("ponger", PONGER_CONFIG_DEF, config ?? {});
  }

  start(): void {}

  receive(from: ActorId, message: Message, ctx: Context): void {
    if (message.type !== "SimPing") return;
    this.#answered++;
    ctx.send(from, { type: "SimPong", seq: message.seq, payload: message.payload });
  }

  fire(): void {}

  snapshot(): JsonValue {
    return { answered: this.#answered };
  }
}
