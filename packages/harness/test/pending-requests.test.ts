import { describe, expect, it } from "vitest";
import { PendingRequests } from "../src/analysis/pending-requests.js";
import type { SendRecord } from "../src/history/history-event.js";

type Api = "JoinGroup" | "SyncGroup";

/** A send on connection `conn` (negative: the server's answer back), delivered at `at` unless `at` is empty. */
function send(t: number, from: string, to: string, type: string, conn: number | undefined, at: number[] = [t + 1]): SendRecord {
  return { t, ev: "send", from, to, type, bytes: 10, fate: at.length > 0 ? "deliver" : "drop", at, conn };
}

describe("PendingRequests", () => {
  it("reads the request and answer sends of each API", () => {
    expect(new PendingRequests<Api>(["JoinGroup", "SyncGroup"]).reads).toEqual([
      "send JoinGroupRequest",
      "send JoinGroupResponse",
      "send SyncGroupRequest",
      "send SyncGroupResponse",
    ]);
  });

  it("pairs each answer with the oldest unanswered request of its API on its connection", () => {
    const pending = new PendingRequests<Api>(["JoinGroup", "SyncGroup"]);
    const join1 = send(1, "c", "s", "JoinGroupRequest", 1);
    const sync = send(2, "c", "s", "SyncGroupRequest", 1);
    const join2 = send(3, "c", "s", "JoinGroupRequest", 1);
    // Another connection of the same client, to the same server: its own queue.
    const other = send(4, "c", "s", "JoinGroupRequest", 2);
    for (const [i, request] of [join1, sync, join2, other].entries()) expect(pending.accept(request, i)).toBeUndefined();

    const a = pending.accept(send(5, "s", "c", "SyncGroupResponse", -1), 4);
    expect(a?.api).toBe("SyncGroup");
    expect(a?.request?.send).toBe(sync);
    expect(a?.request?.index).toBe(1);
    expect(pending.accept(send(6, "s", "c", "JoinGroupResponse", -2), 5)?.request?.send).toBe(other);
    expect(pending.accept(send(7, "s", "c", "JoinGroupResponse", -1), 6)?.request?.send).toBe(join1);
    expect(pending.accept(send(8, "s", "c", "JoinGroupResponse", -1), 7)?.request?.send).toBe(join2);
    // Nothing left to answer: an answer of no known request.
    const unknown = pending.accept(send(9, "s", "c", "JoinGroupResponse", -1), 8);
    expect(unknown).toEqual({ api: "JoinGroup", answer: expect.objectContaining({ t: 9 }), request: null });
  });

  it("queues no request the network did not deliver, and passes over other APIs and datagram sends", () => {
    const pending = new PendingRequests<Api>(["JoinGroup"]);
    pending.accept(send(1, "c", "s", "JoinGroupRequest", 1, []), 0);
    pending.accept(send(2, "c", "s", "JoinGroupRequest", undefined), 1);
    expect(pending.accept(send(3, "c", "s", "HeartbeatRequest", 1), 2)).toBeUndefined();
    expect([...pending.unanswered("JoinGroup")]).toEqual([]);
    expect(pending.accept(send(4, "s", "c", "JoinGroupResponse", undefined), 3)).toBeUndefined();
    expect(pending.accept(send(5, "s", "c", "JoinGroupResponse", -1), 4)?.request).toBeNull();
  });

  it("lists the unanswered requests of an API, of one client or of all", () => {
    const pending = new PendingRequests<Api>(["JoinGroup", "SyncGroup"]);
    const a = send(1, "a", "s", "JoinGroupRequest", 1);
    const b = send(2, "b", "s", "JoinGroupRequest", 1);
    pending.accept(a, 0);
    pending.accept(b, 1);
    pending.accept(send(3, "b", "s", "SyncGroupRequest", 1), 2);
    expect([...pending.unanswered("JoinGroup")].map((p) => p.send)).toEqual([a, b]);
    expect([...pending.unanswered("JoinGroup", "b")].map((p) => p.send)).toEqual([b]);
    expect([...pending.unanswered("JoinGroup", "nobody")]).toEqual([]);
  });

  it("forgets the requests a server held when it goes down, and only those", () => {
    const pending = new PendingRequests<Api>(["JoinGroup"]);
    pending.accept(send(1, "c", "s1", "JoinGroupRequest", 1), 0);
    const kept = send(2, "c", "s2", "JoinGroupRequest", 2);
    pending.accept(kept, 1);
    pending.serverDown("s1");
    expect([...pending.unanswered("JoinGroup")].map((p) => p.send)).toEqual([kept]);
    // The restarted server's answer on the old connection answers nothing.
    expect(pending.accept(send(3, "s1", "c", "JoinGroupResponse", -1), 2)?.request).toBeNull();
  });
});
