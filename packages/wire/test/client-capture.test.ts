import { writeFileSync } from "node:fs";
import { join } from "node:path";
import * as platformatic from "@platformatic/kafka";
import { expect, test } from "vitest";
import { API_BY_KEY, API_LIST, type ApiName, decodeRequest, readRecordBatches, restrictApiVersions } from "../src/index.js";
import { kafkajsSession } from "./support/kafkajs-session.js";
import { kcatSession } from "./support/kcat.js";
import { platformaticSession } from "./support/platformatic-session.js";
import { ToyBroker } from "./support/toy-broker.js";

/**
 * Captures the request bytes real clients send, at every version they
 * speak, into fixtures/<client>/requests.json: librdkafka 2.0.2 (Debian's
 * kcat 1.7.1), KafkaJS 2.2.4 and @platformatic/kafka 1.35.0. It runs only
 * with KCSIM_WIRE_CAPTURE=1: the fixtures are captured once and committed.
 * Each round caps every API's maximum version at a level (0..maxLevel,
 * twice, never below the API's minimum nor the sweep's floor for the API)
 * so the client negotiates down to it, then runs the client's session
 * (support/kcat.ts, support/kafkajs-session.ts, support/platformatic-session.ts)
 * against the toy broker. A frame that does not decode (a client's own
 * mistake) is kept apart, under "rejected", with the error.
 */
interface CaptureClient {
  readonly session: (bootstrap: string) => Promise<unknown>;
  readonly client: string;
  /** The highest level a round caps at: 11 for the old clients (every version they send), 13 for the newest (Metadata v12, Fetch v13). */
  readonly maxLevel: number;
  /** One sweep of levels per entry: per API, the lowest version a round advertises (below what a client implements, it gives up). */
  readonly sweeps: readonly Partial<Record<ApiName, number>>[];
}

/**
 * @platformatic/kafka implements only modern versions and exports each as `<api>V<n>` (e.g. `metadataV9`);
 * it picks the highest it implements up to the broker's maximum (dist/clients/base/base.js kGetApi).
 */
function platformaticFloors(): Partial<Record<ApiName, number>> {
  const floors: Partial<Record<ApiName, number>> = {};
  for (const api of API_LIST) {
    const prefix = `${api.name[0]!.toLowerCase()}${api.name.slice(1)}V`;
    const versions = Object.keys(platformatic)
      .filter((key) => key.startsWith(prefix) && /^\d+$/.test(key.slice(prefix.length)))
      .map((key) => Number(key.slice(prefix.length)));
    if (versions.length > 0) floors[api.name] = Math.min(...versions);
  }
  return floors;
}

const CLIENTS: Record<string, CaptureClient> = {
  librdkafka: {
    session: (bootstrap) => kcatSession(bootstrap),
    client: "kcat 1.7.1 / librdkafka 2.0.2 (Debian bookworm)",
    maxLevel: 11,
    sweeps: [{}],
  },
  "kafkajs-live": { session: (bootstrap) => kafkajsSession(bootstrap), client: "KafkaJS 2.2.4 (npm)", maxLevel: 11, sweeps: [{}] },
  // Its producer speaks Metadata v9, but its KIP-848 consumer maps assigned topic ids to names through Metadata v10+
  // topic ids (at v9 it waits, and the session gives up after 5 s): a second sweep keeps Metadata at v10 or above, so
  // the consumer runs at every level (OffsetFetch and OffsetCommit v8 among them).
  platformatic: {
    session: (bootstrap) => platformaticSession(bootstrap, { consumeTimeoutMs: 5_000 }),
    client: "@platformatic/kafka 1.35.0 (npm)",
    maxLevel: 13,
    sweeps: [platformaticFloors(), { ...platformaticFloors(), Metadata: 10 }],
  },
};

for (const [name, { session, client, maxLevel, sweeps }] of Object.entries(CLIENTS)) {
  test.skipIf(process.env.KCSIM_WIRE_CAPTURE !== "1")(
    `capture ${name} request frames at every version`,
    async () => {
      const frames = new Map<string, string>();
      const rejected = new Map<string, { frame: string; error: string }>();
      // Two passes per sweep: what a client sends at a low level depends on timing (a
      // consumer that finds no data commits nothing), so one pass can miss a frame.
      const rounds = sweeps.flatMap((floors) =>
        Array.from({ length: 2 * (maxLevel + 1) }, (_, i) => ({ floors, level: i % (maxLevel + 1) })),
      );
      for (const { floors, level } of rounds) {
        const table = restrictApiVersions(
          API_LIST.map((api) => {
            const lowest = Math.min(api.maxVersion, Math.max(api.minVersion, floors[api.name] ?? 0));
            return { apiKey: api.key, minVersion: api.minVersion, maxVersion: Math.max(lowest, Math.min(api.maxVersion, level)) };
          }),
        );
        const broker = await new ToyBroker({ apiVersions: table }).start();
        try {
          await Promise.race([session(broker.bootstrap), new Promise((resolve) => setTimeout(resolve, 60_000))]);
        } catch {
          // a client that gives up at some level still leaves its frames
        } finally {
          await broker.stop();
        }
        for (const captured of broker.frames) {
          const api = API_BY_KEY.get(captured.apiKey);
          const key = `${api?.name ?? captured.apiKey} v${captured.apiVersion}${variantOf(captured.payload)}`;
          const hex = Buffer.from(captured.payload).toString("hex");
          const error = decodeError(captured.payload);
          if (error === undefined) {
            if (!frames.has(key)) frames.set(key, hex);
          } else if (!rejected.has(key)) rejected.set(key, { frame: hex, error });
        }
      }
      const sorted = <T>(entries: Map<string, T>) =>
        Object.fromEntries([...entries].sort(([a], [b]) => a.localeCompare(b, "en", { numeric: true })));
      const out = {
        source: `request frame payloads (header + body, no size prefix) sent by ${client} to test/support/toy-broker.ts, captured by test/client-capture.test.ts with KCSIM_WIRE_CAPTURE=1`,
        frames: sorted(frames),
        ...(rejected.size > 0 ? { rejected: sorted(rejected) } : {}),
      };
      writeFileSync(join(import.meta.dirname, "fixtures", name, "requests.json"), `${JSON.stringify(out, null, 1)}\n`);
      expect(frames.size).toBeGreaterThan(0);
    },
    600_000,
  );
}

/** Why a captured frame does not decode, or undefined if it does. */
function decodeError(payload: Uint8Array): string | undefined {
  try {
    decodeRequest(payload);
    return undefined;
  } catch (error) {
    return error instanceof Error ? error.message : String(error);
  }
}

/** Produce frames are kept once per compression codec too (" gzip"), so a compressed batch is captured. */
function variantOf(payload: Uint8Array): string {
  try {
    const request = decodeRequest(payload);
    if (request.api !== "Produce" || !("body" in request)) return "";
    const records = request.body.topicData[0]?.partitionData[0]?.records;
    const compression = records ? readRecordBatches(records)[0]?.batch.compression : undefined;
    return compression === undefined || compression === "none" ? "" : ` ${compression}`;
  } catch {
    return "";
  }
}
