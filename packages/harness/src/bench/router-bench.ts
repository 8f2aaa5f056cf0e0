import { DEFAULT_NETWORK, type FaultPlan } from "../router/fault-plan.js";
import { Router } from "../router/router.js";
import type { BenchRow, BenchSuite } from "./bench-suite.js";
import { medianMs, round } from "./bench-suite.js";

const N = 1_000_000;
const ACTORS = Array.from({ length: 100 }, (_, i) => `member-${i}`);

function nsPerMessage(plan: FaultPlan): number {
  const router = new Router(plan, 1);
  const ms = medianMs(5, 2, () => {
    for (let i = 0; i < N; i++) router.route(i * 10, ACTORS[i % 100] as string, "coordinator", "ConsumerGroupHeartbeatRequest", 94);
  });
  return (ms * 1e6) / N;
}

export const routerBench: BenchSuite = {
  name: "router",
  description: "router forwarding cost per message (decision only, 100 senders)",
  async run(): Promise<BenchRow[]> {
    // Datagram mode: the plan duplicates messages, which connections never do.
    const network = { ...DEFAULT_NETWORK, mode: "datagram" } as const;
    const bare = nsPerMessage({ network, messageFaults: [], partitions: [] });
    const faulty = nsPerMessage({
      network,
      messageFaults: [
        { name: "loss", drop: { probability: 0.01 } },
        { name: "jitter", types: ["*Heartbeat*"], delay: { dist: "exponential", meanMs: 2 }, duplicate: { probability: 0.01 } },
        {
          name: "bursts",
          from: ["member-1*"],
          drop: { gilbertElliott: { pGoodToBad: 0.01, pBadToGood: 0.2, lossInGood: 0, lossInBad: 0.5 } },
        },
      ],
      partitions: [{ name: "split", a: ["member-5*"], b: ["coordinator"], direction: "two-way", startMs: 0, endMs: 1e9 }],
    });
    return [
      { suite: this.name, case: "no faults", value: round(bare), unit: "ns/msg", note: `${N} messages` },
      {
        suite: this.name,
        case: "3 faults + 1 partition",
        value: round(faulty),
        unit: "ns/msg",
        note: `${round(faulty / bare)}x the bare cost`,
      },
    ];
  },
};
