import { Worker } from "node:worker_threads";
import { type ActorId, decodeUnchecked, encodeValue, getOrCreate, type Micros } from "@kcsim/protocol";
import type { HistoryOptions } from "../../history/history.js";
import { builtModule } from "../../kernel/built-module.js";
import { MemoryDurableLog } from "../../kernel/durable-log.js";
import { compareKeys, type SimEvent } from "../../kernel/event.js";
import type { RunResult } from "../../kernel/run-result.js";
import { SimulationCore } from "../../kernel/simulation-core.js";
import type { SimulationSpec } from "../../kernel/simulation-spec.js";
import type { Effect, EffectGroup, ShardInit, ShardReply, ShardWindow, ShardWindowDone } from "./shard-protocol.js";

const WORKER_ENTRY = builtModule("./worker-entry.js", import.meta.url);

export interface LockstepHostOptions {
  readonly history?: HistoryOptions;
  /** Actors per worker thread (default 1: each actor isolated in its own worker). */
  readonly actorsPerWorker?: number;
}

/** One worker thread hosting a shard of actors, with at most one request in flight. */
class Shard {
  readonly worker: Worker;
  nextTimerDue: Micros | null = null;
  #pending: { resolve: (reply: ShardReply) => void; reject: (error: Error) => void } | null = null;
  #failure: Error | null = null;

  constructor(readonly actors: readonly ActorId[]) {
    this.worker = new Worker(WORKER_ENTRY, { execArgv: [] });
    this.worker.on("message", (data: Uint8Array) => {
      const pending = this.#pending;
      this.#pending = null;
      pending?.resolve(decodeUnchecked(data) as ShardReply);
    });
    const fail = (error: Error) => {
      this.#failure = error;
      const pending = this.#pending;
      this.#pending = null;
      pending?.reject(error);
    };
    this.worker.on("error", fail);
    this.worker.on("exit", (code) => fail(new Error(`worker for ${this.actors.join(",")} exited with code ${code}`)));
  }

  request(message: ShardInit | ShardWindow): Promise<ShardReply> {
    if (this.#failure !== null) return Promise.reject(this.#failure);
    return new Promise((resolve, reject) => {
      this.#pending = { resolve, reject };
      const bytes = encodeValue(message);
      const owned = new Uint8Array(bytes.length);
      owned.set(bytes);
      this.worker.postMessage(owned, [owned.buffer]);
    });
  }
}

/**
 * The lockstep host (minimal form): each actor (or shard of actors) in its
 * own worker thread, the main thread owning virtual time. Every window of
 * one lookahead is handed to the workers at once and run in parallel; their
 * effects come back tagged with event keys and are applied here in the
 * total order, so the history is byte-identical to the inline host's.
 */
export class LockstepHost {
  readonly core: SimulationCore;
  readonly #shards: Shard[] = [];
  readonly #shardOf = new Map<ActorId, Shard>();
  readonly #logs = new Map<ActorId, MemoryDurableLog>();

  constructor(spec: SimulationSpec, options: LockstepHostOptions = {}) {
    this.core = new SimulationCore(spec, options.history);
    const perWorker = Math.max(1, options.actorsPerWorker ?? 1);
    for (let i = 0; i < spec.actors.length; i += perWorker) {
      const ids = spec.actors.slice(i, i + perWorker).map((a) => a.id);
      const shard = new Shard(ids);
      this.#shards.push(shard);
      for (const id of ids) {
        this.#shardOf.set(id, shard);
        this.#logs.set(id, new MemoryDurableLog());
      }
    }
  }

  async run(): Promise<RunResult> {
    const started = performance.now();
    try {
      await this.#init();
      await this.#loop(this.core.spec.durationUs);
      return this.#result(performance.now() - started);
    } finally {
      await this.close();
    }
  }

  async close(): Promise<void> {
    await Promise.all(this.#shards.map((shard) => shard.worker.terminate()));
  }

  async #init(): Promise<void> {
    const spec = this.core.spec;
    await Promise.all(
      this.#shards.map(async (shard) => {
        const actors = spec.actors
          .filter((a) => shard.actors.includes(a.id))
          .map((a) => ({ id: a.id, kind: a.kind, config: a.config, log: this.#logs.get(a.id)?.encoded() ?? [] }));
        const reply = await shard.request({
          type: "init",
          seed: spec.seed,
          useCodec: spec.useCodec,
          restartPolicy: spec.restartPolicy,
          actors,
        });
        shard.nextTimerDue = reply.nextTimerDue;
      }),
    );
  }

  async #loop(until: Micros): Promise<void> {
    const core = this.core;
    const lookahead = core.router.lookaheadUs;
    for (;;) {
      let start = core.queue.peek()?.due ?? Number.POSITIVE_INFINITY;
      for (const shard of this.#shards) if (shard.nextTimerDue !== null) start = Math.min(start, shard.nextTimerDue);
      if (start > until) break;
      // Nothing sent inside [start, start + lookahead) can arrive inside it: the window runs in parallel.
      const limit = Math.min(start + lookahead - 1, until);
      const batches = new Map<Shard, SimEvent[]>();
      const local: EffectGroup[] = [];
      for (let event = core.popDue(limit); event !== undefined; event = core.popDue(limit)) {
        const shard = this.#shardOf.get(event.to);
        if (shard === undefined) {
          if (event.kind === "deliver") {
            local.push({ key: event, effects: [["lost", event.to, event.due, event.from, event.msgType, "no such actor"]] });
          }
          continue;
        }
        getOrCreate(batches, shard, () => []).push(event);
      }
      const busy = this.#shards.filter((shard) => batches.has(shard) || (shard.nextTimerDue !== null && shard.nextTimerDue <= limit));
      const replies = await Promise.all(busy.map((shard) => shard.request({ type: "window", limit, events: batches.get(shard) ?? [] })));
      const groups: EffectGroup[] = local;
      replies.forEach((reply, index) => {
        const done = reply as ShardWindowDone;
        (busy[index] as Shard).nextTimerDue = done.nextTimerDue;
        for (const group of done.groups) groups.push(group);
      });
      groups.sort((a, b) => compareKeys(a.key, b.key));
      for (const group of groups) for (const effect of group.effects) this.#apply(effect);
      core.now = limit;
    }
    core.now = Math.max(core.now, until);
  }

  #apply(effect: Effect): void {
    const core = this.core;
    switch (effect[0]) {
      case "send":
        core.send(effect[1], effect[2], effect[3], effect[4], effect[5], effect[6] as Uint8Array, effect[7]);
        return;
      case "obs":
        core.observe(effect[1], effect[2], effect[3]);
        return;
      case "append":
        this.#logs.get(effect[1])?.appendEncoded(effect[2]);
        return;
      case "life":
        core.lifecycle(effect[1], effect[2], effect[3], effect[4]);
        return;
      case "error":
        core.actorError(effect[1], effect[2], effect[3], effect[4], effect[5]);
        return;
      case "reject":
        core.rejected(effect[1], effect[2], effect[3], effect[4], effect[5]);
        return;
      case "lost":
        core.lost(effect[1], effect[2], effect[3], effect[4], effect[5]);
        return;
    }
  }

  #result(wallMs: number): RunResult {
    const core = this.core;
    return {
      host: "lockstep",
      scenario: core.spec.scenario,
      seed: core.spec.seed,
      historyHash: core.history.finish(),
      events: core.history.events,
      eventsProcessed: core.eventsProcessed,
      virtualEndUs: core.now,
      wallMs,
      router: core.router.stats,
      actors: {},
    };
  }
}
