/**
 * Store, config, log redaction and auth on their own: a real SQLite file in a temp dir, a real pino logger
 * writing into a stream. No chain needed.
 */
import { statSync } from "node:fs";
import { Writable } from "node:stream";
import { describe, expect, it } from "vitest";
import { bearerMatches } from "../../../daemon/api.js";
import { parseDaemonConfig } from "../../../daemon/config.js";
import { createLogger, sanitizeError } from "../../../daemon/log.js";
import { createMetrics } from "../../../daemon/metrics.js";
import { SCHEMA_VERSION, Store } from "../../../daemon/store.js";
import { loadOrCreateSigningKey, jwks } from "../../../daemon/keys.js";
import { tempDbPath } from "./helpers/daemon.js";

const MARKET = "0x00000000000000000000000000000000000000aa";
const key = (marketId: bigint) => ({ chainId: 31337, market: MARKET, marketId });

describe("store", () => {
  it("creates the file 0600, runs the migrations once, and refuses a newer schema", () => {
    const path = tempDbPath();
    const s = new Store(path);
    expect(s.schemaVersion()).toBe(SCHEMA_VERSION);
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect((s.db.prepare("PRAGMA journal_mode").get() as { journal_mode: string }).journal_mode).toBe("wal");
    s.close();
    const again = new Store(path);
    expect(again.schemaVersion()).toBe(SCHEMA_VERSION);
    again.db.exec(`PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
    again.close();
    expect(() => new Store(path)).toThrow(/newer than this daemon/);
  });

  it("refuses a second daemon on the same file while the first holds it; a closed (or dead) holder frees it", () => {
    const path = tempDbPath();
    const a = new Store(path);
    expect(() => new Store(path)).toThrow(/in use by another daemon/);
    a.close();
    const b = new Store(path);
    b.close();
  });

  it("ingests an event once however often its range is recorded, and the cursor never moves back", () => {
    const s = new Store(tempDbPath());
    const ev = { marketId: 7n, blockNumber: 10, txHash: "0x01" };
    expect(s.recordRange(31337, MARKET, 12, [ev])).toBe(1);
    expect(s.recordRange(31337, MARKET, 12, [ev, ev])).toBe(0);
    expect(s.recordRange(31337, MARKET.toUpperCase().replace("0X", "0x"), 11, [ev])).toBe(0);
    expect(s.listJobs()).toHaveLength(1);
    expect(s.getCursor(31337, MARKET)).toBe(12);
    expect(s.getJob(key(7n))).toMatchObject({ state: "requested", attempts: 0, requestedBlock: 10, source: "event" });
    s.close();
  });

  it("rolls the whole range back when recording fails (no cursor advance without its jobs)", () => {
    const s = new Store(tempDbPath());
    const poison = { toString: () => { throw new Error("unserializable market id"); } } as unknown as bigint;
    s.recordRange(31337, MARKET, 5, []);
    expect(() => s.recordRange(31337, MARKET, 9, [{ marketId: 1n, blockNumber: 6, txHash: null }, { marketId: poison, blockNumber: 7, txHash: null }])).toThrow();
    expect(s.getCursor(31337, MARKET)).toBe(5);
    expect(s.listJobs()).toHaveLength(0);
    s.close();
  });

  it("moves jobs through the states transactionally; running jobs go back to requested on reopen", () => {
    const path = tempDbPath();
    const s = new Store(path);
    s.recordRange(31337, MARKET, 1, [{ marketId: 1n, blockNumber: 1, txHash: null }, { marketId: 2n, blockNumber: 1, txHash: null }]);
    const [a, b] = s.dueJobs(10, new Set());
    expect(s.claimRun(a.id)).toMatchObject({ state: "running", attempts: 1 });
    expect(s.claimRun(a.id)).toBeUndefined(); // already running
    s.finish(a.id, { state: "written", lastOutcome: "written", txHash: "0xabc", bundle: { attempt: 1, hash: "0x11", json: "{}" } });
    expect(s.getJobById(a.id)).toMatchObject({ state: "written", txHash: "0xabc" });
    expect(s.bundles(a.id)).toHaveLength(1);
    s.claimRun(b.id);
    s.close(); // "crash" mid-run

    const r = new Store(path);
    expect(r.recoverRunning()).toBe(1);
    expect(r.getJobById(b.id)).toMatchObject({ state: "requested", attempts: 1, lastOutcome: "interrupted" });
    expect(r.getJobById(a.id)!.state).toBe("written");
    expect(r.dueJobs(10, new Set()).map((j) => j.id)).toEqual([b.id]);
    expect(r.countByState()).toMatchObject({ written: 1, requested: 1, running: 0 });
    r.close();
  });

  it("manual requests: create, re-queue a failed job with a fresh budget, leave settled jobs alone", () => {
    const s = new Store(tempDbPath());
    expect(s.manualRequest(key(5n)).action).toBe("created");
    const job = s.getJob(key(5n))!;
    expect(job.source).toBe("manual");
    s.claimRun(job.id);
    s.finish(job.id, { state: "failed", lastOutcome: "invalidate-error", lastError: "boom" });
    expect(s.manualRequest(key(5n))).toMatchObject({ action: "requeued", job: { state: "requested", attempts: 0 } });
    s.claimRun(job.id);
    s.finish(job.id, { state: "written", lastOutcome: "written" });
    expect(s.manualRequest(key(5n))).toMatchObject({ action: "unchanged", job: { state: "written" } });
    s.close();
  });
});

describe("config", () => {
  it("applies defaults and normalises addresses", () => {
    const c = parseDaemonConfig({ markets: ["0x00000000000000000000000000000000000000AA"], rpcUrl: "http://127.0.0.1:8545" });
    expect(c.markets).toEqual([{ address: MARKET, startBlock: undefined }]);
    expect(c).toMatchObject({ confirmations: 2, maxBlockRange: 2_000, apiHost: "127.0.0.1", concurrency: 4, maxAttempts: 5 });
  });

  it("rejects bad input without echoing secrets", () => {
    const secret = "https://eth.example/v2/SUPERSECRETKEY";
    expect(() => parseDaemonConfig({ markets: [], rpcUrl: secret, apiToken: "short" })).toThrow(/invalid daemon config/);
    try {
      parseDaemonConfig({ markets: ["nope"], rpcUrl: "ftp://x/SUPERSECRETKEY", apiToken: "tiny-SECRET" });
    } catch (err) {
      expect(String(err)).not.toContain("SUPERSECRETKEY");
      expect(String(err)).not.toContain("tiny-SECRET");
    }
    expect(() => parseDaemonConfig({ markets: [MARKET], unknownKey: 1 })).toThrow();
    expect(() => parseDaemonConfig({ markets: [MARKET], instanceIndex: 2, instanceCount: 2 })).toThrow(/instanceIndex/);
  });
});

describe("logs and errors", () => {
  it("redacts secrets by path", () => {
    let out = "";
    const sink = new Writable({
      write(chunk, _enc, cb) {
        out += chunk.toString();
        cb();
      },
    });
    const log = createLogger({ level: "info", pretty: false, destination: sink });
    log.info(
      {
        config: { apiToken: "tok-1234567890abcdef", rpcUrl: "https://x.example/v2/KEY123" },
        req: { headers: { authorization: "Bearer abcdefgh" } },
        wallet: { privateKey: "0x" + "11".repeat(32) },
        llm: { apiKey: "sk-live-123" },
        jwk: { d: "PRIVATE-D" },
      },
      "hello",
    );
    expect(out).toContain("hello");
    for (const s of ["tok-1234567890abcdef", "KEY123", "abcdefgh", "11".repeat(32), "sk-live-123", "PRIVATE-D"]) expect(out).not.toContain(s);
  });

  it("sanitizes error messages: URLs reduced to their origin, bearer tokens, configured secrets, length cap", () => {
    const msg = sanitizeError(new Error("HTTP request failed. URL: https://user:pw@eth.example/v2/ALCHEMYKEY?x=1 Authorization: Bearer tok123 token=abc api_key: zzz"), ["tok123"]);
    expect(msg).toContain("https://eth.example");
    for (const s of ["ALCHEMYKEY", "pw@", "tok123", "abc", "zzz"]) expect(msg).not.toContain(s);
    expect(sanitizeError("x".repeat(2_000)).length).toBeLessThanOrEqual(501);
  });
});

describe("auth, metrics, keys", () => {
  it("accepts only the exact bearer token", () => {
    const token = "0123456789abcdef-token";
    expect(bearerMatches(`Bearer ${token}`, token)).toBe(true);
    expect(bearerMatches(`bearer ${token}`, token)).toBe(true);
    expect(bearerMatches(`Bearer ${token}x`, token)).toBe(false);
    expect(bearerMatches(`Bearer ${token.slice(1)}`, token)).toBe(false);
    expect(bearerMatches(token, token)).toBe(false);
    expect(bearerMatches(undefined, token)).toBe(false);
    expect(bearerMatches(`Bearer ${token}`, undefined)).toBe(false);
  });

  it("caps protocol label cardinality", async () => {
    const m = createMetrics();
    for (let i = 0; i < 100; i++) m.recordAgentCall(`proto-${i}`, 10, i % 2 === 0);
    const text = await m.registry.metrics();
    const protocols = new Set([...text.matchAll(/protocol="([^"]+)"/g)].map((x) => x[1]));
    expect(protocols.size).toBeLessThanOrEqual(33);
    expect(protocols.has("other")).toBe(true);
  });

  it("creates the signing key once and publishes only public members", async () => {
    const s = new Store(tempDbPath());
    const k1 = await loadOrCreateSigningKey(s);
    const k2 = await loadOrCreateSigningKey(s);
    expect(k2.kid).toBe(k1.kid);
    const doc = jwks(s);
    expect(doc.keys).toHaveLength(1);
    expect(doc.keys[0]).not.toHaveProperty("d");
    const jwt = await k1.signJwt({ sub: "test" });
    const { jwtVerify, createLocalJWKSet } = await import("jose");
    const verified = await jwtVerify(jwt, createLocalJWKSet(doc as never));
    expect(verified.payload.sub).toBe("test");
    s.close();
  });
});
