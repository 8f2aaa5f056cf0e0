import { fileURLToPath } from "node:url";
import type { Observation } from "@kcsim/protocol";
import { describe, expect, it } from "vitest";
import type { HistoryEvent } from "../src/history/history-event.js";
import { runScenario } from "../src/run/run-scenario.js";
import { loadScenarioFile } from "../src/scenario/load-scenario.js";

const scenario = loadScenarioFile(fileURLToPath(new URL("../../../scenarios/classic-reset-during-revoke.json", import.meta.url)));

/** One line per observation of `actor` (or the coordinator's removals), in the shape the story below reads. */
function story(events: readonly HistoryEvent[]): string[] {
  const line = (t: number, actor: string, o: Observation & Record<string, unknown>): string | null => {
    const s = `${(t / 1e6).toFixed(1)} s ${actor}`;
    const json = (v: unknown) => JSON.stringify(v);
    switch (o.type) {
      case "member.callback":
        return o.phase === "start" ? `${s} ${o.callback} ${json(o.partitions)}` : null;
      case "member.owned":
        return `${s} owns ${json(o.owned)} at epoch ${o.memberEpoch}`;
      case "member.poll-timeout":
        return `${s} poll timeout`;
      case "gc.member-removed":
        // Member ids are the client id and a UUID: the client id names the actor.
        return `${s} removes ${String(o.memberId).replace(/-[0-9a-f]{8}-.*$/, "")} (${o.reason})`;
      default:
        return null;
    }
  };
  return events.flatMap((e) => {
    if (e.ev !== "obs" || e.t < 20_000_000 || e.t > 57_000_000) return [];
    const text = line(e.t, e.actor, e.o as Observation & Record<string, unknown>);
    return text === null ? [] : [text];
  });
}

describe("scenarios/classic-reset-during-revoke: a generation reset while onPartitionsRevoked runs (ConsumerCoordinator.onJoinComplete goes on)", () => {
  it("installs the dead generation's assignment and calls onPartitionsAssigned for partitions another member owns; no records, no commit, every checker passes", async () => {
    const { summary, result } = await runScenario(scenario, { host: "inline" });
    expect(story(result.events)).toEqual([
      "21.1 s member-2 onPartitionsAssigned {}",
      "21.1 s member-1 owns {} at epoch 2",
      // Generation 2 takes T1 0,2 from member-1 and gives it T2; the revoke callback runs 30 s.
      '21.1 s member-1 onPartitionsRevoked {"T1":[0,2]}',
      "41.1 s member-1 poll timeout",
      // 41.159 s: its timer last restarted at 21.148 s, in the pass its SyncGroup's answer began (the callback came
      // next), and the coordinator takes the leave after the OffsetCommit member-1 sent before it.
      "41.2 s coordinator-0 removes member-1 (leave)",
      '42.2 s member-2 onPartitionsAssigned {"T1":[0,2]}',
      '42.2 s member-2 owns {"T1":[0,1,2,3]} at epoch 3',
      '43.0 s member-2 onPartitionsAssigned {"T2":[0,1,2,3]}',
      '43.0 s member-2 owns {"T1":[0,1,2,3],"T2":[0,1,2,3]} at epoch 4',
      // The zombie window: member-1 is no member, and runs onPartitionsAssigned for what member-2 owns.
      '51.1 s member-1 onPartitionsAssigned {"T2":[0,1,2,3]}',
      '56.1 s member-1 owns {"T2":[0,1,2,3]} at epoch -1',
      "56.1 s member-1 owns {} at epoch -1",
      '56.1 s member-1 onPartitionsLost {"T2":[0,1,2,3]}',
    ]);
    // What the window could cost, and does not: no records handed to member-1, no commit it sends.
    const inWindow = (e: HistoryEvent) => e.t >= 41_100_000 && e.t <= 56_200_000;
    const member1 = result.events.filter(
      (e) => inWindow(e) && ((e.ev === "obs" && e.actor === "member-1") || (e.ev === "send" && e.from === "member-1")),
    );
    expect(member1.filter((e) => e.ev === "obs" && e.o.type === "member.records")).toEqual([]);
    expect(member1.filter((e) => e.ev === "send" && e.type === "OffsetCommitRequest")).toEqual([]);
    expect(Object.entries(summary.checks).filter(([, check]) => !check.ok)).toEqual([]);
  });
});
