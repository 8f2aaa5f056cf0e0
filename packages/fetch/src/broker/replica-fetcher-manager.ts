import type { ActorId, Context, FetchResponse, ListOffsetsResponse, OffsetForLeaderEpochResponse } from "@kcsim/protocol";
import { tpKey } from "@kcsim/protocol";
import type { Partition } from "./partition.js";
import { ReplicaFetcher, type ReplicaFetcherHost } from "./replica-fetcher.js";

/**
 * The follower partitions of a broker, grouped into one fetcher per leader
 * (Kafka's `ReplicaFetcherManager` with num.replica.fetchers = 1). A
 * partition moves to another fetcher when its leader changes, and starts
 * again (truncating) when its leader epoch changes.
 */
export class ReplicaFetcherManager {
  readonly #host: ReplicaFetcherHost;
  readonly #hostOf: (nodeId: number) => ActorId | undefined;
  readonly #fetchers = new Map<number, ReplicaFetcher>();
  /** The fetcher (leader id) of each followed partition. */
  readonly #leaderOf = new Map<string, number>();

  constructor(host: ReplicaFetcherHost, hostOf: (nodeId: number) => ActorId | undefined) {
    this.#host = host;
    this.#hostOf = hostOf;
  }

  /** Follows `partition` from its leader at its current leader epoch (after a leader or epoch change); `poll` sends. */
  follow(partition: Partition, ctx: Context): void {
    this.unfollow(partition.topic, partition.index, ctx);
    const leaderHost = this.#hostOf(partition.leaderId);
    if (leaderHost === undefined) return;
    let fetcher = this.#fetchers.get(partition.leaderId);
    if (fetcher === undefined) {
      fetcher = new ReplicaFetcher(partition.leaderId, leaderHost, this.#host);
      this.#fetchers.set(partition.leaderId, fetcher);
    }
    this.#leaderOf.set(tpKey(partition.topic, partition.index), partition.leaderId);
    fetcher.add(partition, partition.leaderEpoch);
  }

  /** Lets every fetcher send what it can (after partitions were added together, as one batch). */
  poll(ctx: Context): void {
    for (const fetcher of this.#fetchers.values()) fetcher.maybeSend(ctx);
  }

  unfollow(topic: string, partition: number, ctx: Context): void {
    const key = tpKey(topic, partition);
    const leaderId = this.#leaderOf.get(key);
    if (leaderId === undefined) return;
    this.#leaderOf.delete(key);
    const fetcher = this.#fetchers.get(leaderId);
    if (fetcher === undefined) return;
    fetcher.remove(key);
    if (fetcher.isEmpty) {
      this.#fetchers.delete(leaderId);
      ctx.cancelTimer(fetcher.timerName);
    }
  }

  /** The timer of a fetcher ("fetcher:<leaderId>"); false if the name is not a fetcher's. */
  onTimer(timer: string, ctx: Context): boolean {
    if (!timer.startsWith("fetcher:")) return false;
    this.#fetchers.get(Number(timer.slice("fetcher:".length)))?.onTimer(ctx);
    return true;
  }

  /** `host` reset the connection: the fetchers following it fail their request in flight; false if none had one. */
  disconnected(host: ActorId, ctx: Context): boolean {
    let failed = false;
    for (const fetcher of this.#fetchers.values()) if (fetcher.leaderHost === host && fetcher.disconnected(ctx)) failed = true;
    return failed;
  }

  onFetchResponse(response: FetchResponse, ctx: Context): void {
    this.#owner(response.correlationId)?.onFetchResponse(response, ctx);
  }

  onOffsetForLeaderEpochResponse(response: OffsetForLeaderEpochResponse, ctx: Context): void {
    this.#owner(response.correlationId)?.onOffsetForLeaderEpochResponse(response, ctx);
  }

  onListOffsetsResponse(response: ListOffsetsResponse, ctx: Context): void {
    this.#owner(response.correlationId)?.onListOffsetsResponse(response, ctx);
  }

  #owner(correlationId: number): ReplicaFetcher | undefined {
    for (const fetcher of this.#fetchers.values()) if (fetcher.owns(correlationId)) return fetcher;
    return undefined;
  }

  /** Each followed partition's fetch state, for snapshots. */
  states(): { leader: number; topic: string; partition: number; state: string; fetchOffset: number }[] {
    return [...this.#fetchers.values()].flatMap((f) => f.states().map((s) => ({ leader: f.leaderId, ...s })));
  }
}
