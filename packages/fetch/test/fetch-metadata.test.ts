import { describe, expect, it } from "vitest";
import {
  FINAL_EPOCH,
  INITIAL_EPOCH,
  INITIAL_METADATA,
  INT32_MAX,
  INVALID_SESSION_ID,
  isFull,
  LEGACY_METADATA,
  newIncremental,
  nextCloseExisting,
  nextCloseExistingAttemptNew,
  nextEpoch,
  nextIncremental,
} from "../src/index.js";

describe("FetchMetadata", () => {
  it("has Kafka's constants", () => {
    expect([INVALID_SESSION_ID, INITIAL_EPOCH, FINAL_EPOCH]).toEqual([0, 0, -1]);
    expect(INITIAL_METADATA).toEqual({ sessionId: 0, epoch: 0 });
    expect(LEGACY_METADATA).toEqual({ sessionId: 0, epoch: -1 });
  });

  it("advances epochs: negative stays FINAL, Integer.MAX_VALUE wraps to 1, else +1", () => {
    expect(nextEpoch(-1)).toBe(FINAL_EPOCH);
    expect(nextEpoch(-42)).toBe(FINAL_EPOCH);
    expect(nextEpoch(0)).toBe(1);
    expect(nextEpoch(41)).toBe(42);
    expect(nextEpoch(INT32_MAX - 1)).toBe(INT32_MAX);
    expect(nextEpoch(INT32_MAX)).toBe(1);
  });

  it("calls epochs 0 and -1 full, and moves the metadata as the handler needs", () => {
    expect(isFull({ sessionId: 5, epoch: 0 })).toBe(true);
    expect(isFull({ sessionId: 5, epoch: -1 })).toBe(true);
    expect(isFull({ sessionId: 5, epoch: 1 })).toBe(false);
    expect(newIncremental(9)).toEqual({ sessionId: 9, epoch: 1 });
    expect(nextIncremental({ sessionId: 9, epoch: INT32_MAX })).toEqual({ sessionId: 9, epoch: 1 });
    expect(nextCloseExisting({ sessionId: 9, epoch: 4 })).toEqual({ sessionId: 9, epoch: FINAL_EPOCH });
    expect(nextCloseExistingAttemptNew({ sessionId: 9, epoch: 4 })).toEqual({ sessionId: 9, epoch: INITIAL_EPOCH });
  });
});
