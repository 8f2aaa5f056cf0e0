import type { Micros } from "@kcsim/protocol";
import type { HistoryEvent } from "../history/history-event.js";
import type { ProcessBand, ProcessBandKind, ProcessMark, ProcessTimeline } from "./report-data.js";

interface ActorProcess {
  readonly bands: ProcessBand[];
  readonly marks: ProcessMark[];
  readonly open: Map<ProcessBandKind, { fromUs: Micros; detail: string | null }>;
  started: boolean;
}

/**
 * Each actor's process over time, from the history's lifecycle events
 * (what the nemesis did, and restarts after exceptions): bands while it was
 * down (crash or stop until restart), paused whole (pause until resume) or
 * had its application thread paused (the pause-app command until
 * resume-app), and a mark per event. A crash ends a pause: the process
 * that was paused is gone.
 */
export class ProcessTimelines {
  readonly #actors = new Map<string, ActorProcess>();

  accept(event: HistoryEvent): void {
    if (event.ev !== "life") return;
    let p = this.#actors.get(event.actor);
    if (p === undefined) {
      p = { bands: [], marks: [], open: new Map(), started: false };
      this.#actors.set(event.actor, p);
    }
    const t = event.t;
    switch (event.what) {
      case "start":
      case "restart":
        this.#close(p, "down", t);
        break;
      case "crash":
      case "stop":
        this.#close(p, "paused", t);
        this.#close(p, "app-paused", t);
        this.#open(p, "down", t, event.detail);
        break;
      case "pause":
        this.#open(p, "paused", t, event.detail);
        break;
      case "resume":
        this.#close(p, "paused", t);
        break;
      case "command":
        if (event.detail === "pause-app") this.#open(p, "app-paused", t, event.detail);
        if (event.detail === "resume-app") this.#close(p, "app-paused", t);
        break;
    }
    // The first start at time 0 is every actor's; later starts (a member joining) are worth a mark.
    if (!(event.what === "start" && !p.started && t === 0)) p.marks.push({ tUs: t, what: event.what, detail: event.detail });
    if (event.what === "start") p.started = true;
  }

  /** Every actor's timeline, with bands still open at `endUs` closed there. */
  finish(endUs: Micros): Map<string, ProcessTimeline> {
    const out = new Map<string, ProcessTimeline>();
    for (const [actor, p] of this.#actors) {
      for (const kind of [...p.open.keys()]) this.#close(p, kind, endUs);
      out.set(actor, { actor, bands: p.bands.sort((a, b) => a.fromUs - b.fromUs), marks: p.marks });
    }
    return out;
  }

  #open(p: ActorProcess, kind: ProcessBandKind, t: Micros, detail: string | null): void {
    if (!p.open.has(kind)) p.open.set(kind, { fromUs: t, detail });
  }

  #close(p: ActorProcess, kind: ProcessBandKind, t: Micros): void {
    const open = p.open.get(kind);
    if (open === undefined) return;
    p.open.delete(kind);
    p.bands.push({ kind, fromUs: open.fromUs, toUs: Math.max(t, open.fromUs), detail: open.detail });
  }
}
