import { describe, expect, it } from "vitest";
import { abortableSleep, backoffDelay, retry, type RetryInfo } from "../../../workflow/util/retry.js";

/** A pause that returns at once but records what was asked: no wall clock in these tests. */
function recordingSleep() {
  const pauses: number[] = [];
  return { pauses, sleep: async (ms: number) => void pauses.push(ms) };
}

describe("backoffDelay", () => {
  it.each([
    [1, { baseMs: 200 }, 200],
    [2, { baseMs: 200 }, 400],
    [3, { baseMs: 200 }, 800],
    [5, { baseMs: 200, maxMs: 3_000 }, 3_000],
    [3, { baseMs: 100, factor: 3 }, 900],
    [0, { baseMs: 100 }, 100],
    [1_000, { baseMs: 1, maxMs: 50 }, 50],
  ])("attempt %i under %j waits %i ms", (attempt, curve, expected) => {
    expect(backoffDelay(attempt, curve)).toBe(expected);
  });
});

describe("retry", () => {
  it("returns the first success and passes 1-based attempt numbers", async () => {
    const seen: number[] = [];
    const { pauses, sleep } = recordingSleep();
    const value = await retry(
      async (attempt) => {
        seen.push(attempt);
        if (attempt < 3) throw new Error(`fail ${attempt}`);
        return "ok";
      },
      { attempts: 5, delayMs: { baseMs: 10 }, sleep },
    );
    expect(value).toBe("ok");
    expect(seen).toEqual([1, 2, 3]);
    expect(pauses).toEqual([10, 20]);
  });

  it("rethrows the last failure unchanged once attempts are used up", async () => {
    const { pauses, sleep } = recordingSleep();
    const infos: RetryInfo[] = [];
    const errors = [new Error("a"), new Error("b"), new Error("c")];
    const failing = retry(
      async (attempt) => {
        throw errors[attempt - 1];
      },
      { attempts: 3, delayMs: (attempt) => attempt * 7, sleep, onRetry: (info) => infos.push(info) },
    );
    await expect(failing).rejects.toBe(errors[2]);
    expect(pauses).toEqual([7, 14]);
    expect(infos.map((i) => [i.attempt, (i.error as Error).message, i.delayMs])).toEqual([
      [1, "a", 7],
      [2, "b", 14],
    ]);
  });

  it("stops at a failure the predicate says is not retryable", async () => {
    let calls = 0;
    const permanent = new Error("permanent");
    const failing = retry(
      async (attempt) => {
        calls++;
        throw attempt === 1 ? new Error("transient") : permanent;
      },
      { attempts: 10, retryable: (error) => (error as Error).message === "transient", sleep: recordingSleep().sleep },
    );
    await expect(failing).rejects.toBe(permanent);
    expect(calls).toBe(2);
  });

  it("attempts: 1 means a single call", async () => {
    let calls = 0;
    await expect(
      retry(
        async () => {
          calls++;
          throw new Error("x");
        },
        { attempts: 1 },
      ),
    ).rejects.toThrow("x");
    expect(calls).toBe(1);
  });

  it("an aborted signal starts no attempt and cuts a pause short", async () => {
    const before = new AbortController();
    before.abort(new Error("shutting down"));
    let calls = 0;
    await expect(retry(async () => void calls++, { attempts: 3, signal: before.signal })).rejects.toThrow(
      "shutting down",
    );
    expect(calls).toBe(0);

    // The pause is an hour long; the abort during the first attempt ends the whole retry without waiting for it.
    const during = new AbortController();
    const started = retry(
      async () => {
        queueMicrotask(() => during.abort());
        throw new Error("first");
      },
      { attempts: 3, delayMs: () => 3_600_000, signal: during.signal, retryable: () => true },
    );
    await expect(started).rejects.toThrow();
  });

  it("abortableSleep rejects with an AbortError when the signal has no Error reason", async () => {
    const controller = new AbortController();
    const pause = abortableSleep(3_600_000, controller.signal);
    controller.abort("bye");
    await expect(pause).rejects.toMatchObject({ name: "AbortError" });
  });
});
