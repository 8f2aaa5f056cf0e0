import type { Micros } from "@kcsim/protocol";
import type { ConnectionRecord, HistoryEvent } from "../history/history-event.js";
import type { ConnectionMark, ConnectionStats, ConnectionTimeline } from "./report-data.js";

/** A mark while it is being collected: a later ready fills in when the connection was back (lost counts come at the end). */
interface OpenMark extends Omit<ConnectionMark, "lost" | "readyAgainUs"> {
  readyAgainUs: Micros | null;
}

/** An outage still open: ended by the next ready connection to the same server, or by the client going down. */
interface OpenOutage {
  readonly fromUs: Micros;
  readonly peer: string;
  readonly connection: string;
  readonly marks: OpenMark[];
}

interface ClosedOutage extends OpenOutage {
  readonly toUs: Micros;
  readonly reconnected: boolean;
}

interface Counts {
  readonly actors: Set<string>;
  opened: number;
  broken: number;
  reset: number;
  requestTimeouts: number;
  connectTimeouts: number;
  messagesLost: number;
  longestOutageUs: Micros | null;
}

const connectionKey = (client: string, gen: number) => `${client}\0${gen}`;
const nodeKey = (client: string, peer: string, connection: string) => `${client}\0${peer}\0${connection}`;

/** An actor's kind when the run has no spec: its name without the trailing number ("broker-2" -> "broker"). */
export function kindFromName(actor: string): string {
  return actor.replace(/[-_]?\d+$/, "") || actor;
}

/**
 * Each client actor's connections over time, from the history's `conn`
 * lines (connection mode): a mark per trouble (a break by the router, a
 * reset, a close after a request timeout, a connect timeout), an outage
 * from the first trouble of a connection to the next connection to the
 * same server (and name) that became ready, and counts per kind of actor.
 * A break's line does not carry the connection's name (the router does not
 * know it): it is taken from the connect of the same generation.
 */
export class ConnectionTimelines {
  /** The name and server of every connection that was opened, by client and generation. */
  readonly #opened = new Map<string, { readonly peer: string; readonly connection: string }>();
  readonly #marks = new Map<string, OpenMark[]>();
  readonly #open = new Map<string, OpenOutage>();
  readonly #closed = new Map<string, ClosedOutage[]>();
  /** Connections a break was marked on: the client's reset that reports it is not a second mark. */
  readonly #broken = new Set<string>();
  /** Messages lost with each broken connection, by client and generation. */
  readonly #lost = new Map<string, number>();
  readonly #counts = new Map<string, Counts>();
  readonly #kindOf: ReadonlyMap<string, string>;

  /** `kinds`: each actor's kind, from the spec (empty: kinds from the actors' names). */
  constructor(kinds: ReadonlyMap<string, string>) {
    this.#kindOf = kinds;
  }

  accept(event: HistoryEvent): void {
    if (event.ev === "conn") this.#connection(event);
    else if (event.ev === "send") {
      if (event.fate !== "broken" || event.conn === undefined) return;
      const client = event.conn > 0 ? event.from : event.to;
      const key = connectionKey(client, Math.abs(event.conn));
      this.#lost.set(key, (this.#lost.get(key) ?? 0) + 1);
      this.#count(client).messagesLost++;
    } else if (event.ev === "life" && (event.what === "crash" || event.what === "stop")) {
      // The client's process is gone, and its connections with it: its outages end here, unmended.
      for (const [key, outage] of this.#open) if (key.startsWith(`${event.actor}\0`)) this.#close(event.actor, key, outage, event.t, false);
    }
  }

  /** The name of the connection `client` opened as generation `gen`, if the history showed its connect. */
  nameOf(client: string, gen: number): string | null {
    return this.#opened.get(connectionKey(client, gen))?.connection ?? null;
  }

  /** Every client with trouble, in `order` (actors not in it after, by name), with outages still open at `endUs` closed there. */
  finish(endUs: Micros, order: readonly string[]): { timelines: ConnectionTimeline[]; stats: ConnectionStats[] } {
    for (const [key, outage] of [...this.#open]) this.#close(key.slice(0, key.indexOf("\0")), key, outage, endUs, false);
    const rank = (actor: string) => {
      const i = order.indexOf(actor);
      return i < 0 ? order.length : i;
    };
    const actors = [...this.#marks.keys()].sort((a, b) => rank(a) - rank(b) || a.localeCompare(b, "en", { numeric: true }));
    const timelines = actors.map((actor) => {
      const outages = this.#closed.get(actor) ?? [];
      return {
        actor,
        marks: (this.#marks.get(actor) ?? []).map((m) => ({
          ...m,
          lost: m.what === "break" ? (this.#lost.get(connectionKey(actor, m.gen)) ?? 0) : 0,
        })),
        outages: outages
          .map((o) => ({
            fromUs: o.fromUs,
            toUs: o.toUs,
            peer: o.peer,
            connection: o.connection,
            cause: (o.marks[0] as OpenMark).what,
            reason: (o.marks[0] as OpenMark).reason,
            failedAttempts: o.marks.length - 1,
            reconnected: o.reconnected,
          }))
          .sort((a, b) => a.fromUs - b.fromUs),
      };
    });
    const stats = [...this.#counts]
      .map(([kind, c]) => ({
        kind,
        actors: c.actors.size,
        opened: c.opened,
        broken: c.broken,
        reset: c.reset,
        requestTimeouts: c.requestTimeouts,
        connectTimeouts: c.connectTimeouts,
        messagesLost: c.messagesLost,
        longestOutageUs: c.longestOutageUs,
      }))
      .sort((a, b) => b.opened - a.opened || a.kind.localeCompare(b.kind));
    return { timelines, stats };
  }

  #connection(event: ConnectionRecord): void {
    const client = event.actor;
    const key = connectionKey(client, event.gen);
    const counts = this.#count(client);
    const connection = this.#opened.get(key)?.connection ?? event.connection ?? "";
    switch (event.what) {
      case "connect":
        this.#opened.set(key, { peer: event.peer, connection: event.connection ?? "" });
        counts.opened++;
        return;
      case "ready": {
        const node = nodeKey(client, event.peer, connection);
        const outage = this.#open.get(node);
        if (outage !== undefined) this.#close(client, node, outage, event.t, true);
        return;
      }
      case "break":
        this.#broken.add(key);
        counts.broken++;
        break;
      case "reset":
        // The client noticing a break already marked: the break's mark says when.
        if (this.#broken.has(key)) return;
        counts.reset++;
        break;
      case "close":
        counts.requestTimeouts++;
        break;
      case "connect-timeout":
        counts.connectTimeouts++;
        break;
      default:
        return;
    }
    const at = event.at;
    const mark: OpenMark = {
      tUs: event.t,
      what: event.what,
      peer: event.peer,
      connection,
      gen: event.gen,
      reason: event.reason ?? null,
      noticedUs: at !== undefined && at.length === 2 ? [at[0], at[1]] : null,
      readyAgainUs: null,
    };
    const marks = this.#marks.get(client) ?? [];
    marks.push(mark);
    this.#marks.set(client, marks);
    const node = nodeKey(client, event.peer, connection);
    const open = this.#open.get(node);
    if (open === undefined) this.#open.set(node, { fromUs: event.t, peer: event.peer, connection, marks: [mark] });
    else open.marks.push(mark);
  }

  #close(client: string, node: string, outage: OpenOutage, t: Micros, reconnected: boolean): void {
    this.#open.delete(node);
    const toUs = Math.max(t, outage.fromUs);
    if (reconnected) for (const mark of outage.marks) mark.readyAgainUs = t;
    const list = this.#closed.get(client) ?? [];
    list.push({ ...outage, toUs, reconnected });
    this.#closed.set(client, list);
    if (reconnected) {
      const counts = this.#count(client);
      const length = toUs - outage.fromUs;
      if (counts.longestOutageUs === null || length > counts.longestOutageUs) counts.longestOutageUs = length;
    }
  }

  #count(client: string): Counts {
    const kind = this.#kindOf.get(client) ?? kindFromName(client);
    let counts = this.#counts.get(kind);
    if (counts === undefined) {
      counts = {
        actors: new Set(),
        opened: 0,
        broken: 0,
        reset: 0,
        requestTimeouts: 0,
        connectTimeouts: 0,
        messagesLost: 0,
        longestOutageUs: null,
      };
      this.#counts.set(kind, counts);
    }
    counts.actors.add(client);
    return counts;
  }
}
