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
import { tempDbPath } from "../../helpers/daemon/daemon.js";

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
    const poison = {
      toString: () => {
        throw new Error("unserializable market id");
      },
    } as unknown as bigint;
    s.recordRange(31337, MARKET, 5, []);
    expect(() =>
      s.recordRange(31337, MARKET, 9, [
        { marketId: 1n, blockNumber: 6, txHash: null },
        { marketId: poison, blockNumber: 7, txHash: null },
      ]),
    ).toThrow();
    expect(s.getCursor(31337, MARKET)).toBe(5);
    expect(s.listJobs()).toHaveLength(0);
    s.close();
  });

  it("moves jobs through the states transactionally; running jobs go back to requested on reopen", () => {
    const path = tempDbPath();
    const s = new Store(path);
    s.recordRange(31337, MARKET, 1, [
      { marketId: 1n, blockNumber: 1, txHash: null },
      { marketId: 2n, blockNumber: 1, txHash: null },
    ]);
    const [a, b] = s.dueJobs("run", 10, new Set());
    expect(s.claimRun(a.id)).toMatchObject({ state: "running", attempts: 1 });
    expect(s.claimRun(a.id)).toBeUndefined(); // already running
    // The bundle is stored with the verdict before anything is sent; the transaction is linked after.
    s.finish(a.id, {
      state: "proposing",
      lastOutcome: "yes",
      verdict: "yes",
      bundleHash: "0x11",
      bundle: { attempt: 1, hash: "0x11", json: "{}" },
    });
    expect(s.bundles(a.id)).toMatchObject([{ hash: "0x11", txHash: null }]);
    expect(s.dueJobs("chain", 10, new Set()).map((j) => j.id)).toEqual([a.id]);
    s.linkTx(a.id, "0xabc");
    expect(s.bundles(a.id)).toMatchObject([{ hash: "0x11", txHash: "0xabc" }]);
    expect(s.bundleByHash("0x11")).toBe("{}");
    s.finish(a.id, { state: "finalized", lastOutcome: "finalized", finalStatus: "resolved", feedback: "pending" });
    expect(s.getJobById(a.id)).toMatchObject({ state: "finalized", txHash: "0xabc", finishedAt: null });
    expect(s.dueJobs("chain", 10, new Set()).map((j) => j.id)).toEqual([a.id]); // feedback still to publish
    s.finish(a.id, { state: "finalized", lastOutcome: "feedback-published", feedback: "done" });
    expect(s.dueJobs("chain", 10, new Set())).toEqual([]);
    expect(s.getJobById(a.id)!.finishedAt).not.toBeNull();
    s.claimRun(b.id);
    s.close(); // "crash" mid-run

    const r = new Store(path);
    expect(r.recoverRunning()).toBe(1);
    expect(r.getJobById(b.id)).toMatchObject({ state: "requested", attempts: 1, lastOutcome: "interrupted" });
    expect(r.getJobById(a.id)!.state).toBe("finalized");
    expect(r.dueJobs("run", 10, new Set()).map((j) => j.id)).toEqual([b.id]);
    expect(r.countByState()).toMatchObject({ finalized: 1, requested: 1, running: 0 });
    r.close();
  });

  it("manual requests: create, re-queue a failed job with a fresh budget, leave settled jobs alone", () => {
    const s = new Store(tempDbPath());
    expect(s.manualRequest(key(5n)).action).toBe("created");
    const job = s.getJob(key(5n))!;
    expect(job.source).toBe("manual");
    s.claimRun(job.id);
    s.finish(job.id, { state: "failed", lastOutcome: "propose-error", lastError: "boom" });
    expect(s.manualRequest(key(5n))).toMatchObject({ action: "requeued", job: { state: "requested", attempts: 0 } });
    s.claimRun(job.id);
    s.finish(job.id, { state: "proposed", lastOutcome: "proposed" });
    expect(s.manualRequest(key(5n))).toMatchObject({ action: "unchanged", job: { state: "proposed" } });
    s.close();
  });

  it("a ResolutionRequested event revives a failed job with a fresh budget (issue 13.3)", () => {
    const s = new Store(tempDbPath());
    s.manualRequest(key(6n));
    const job = s.getJob(key(6n))!;
    s.claimRun(job.id);
    s.finish(job.id, { state: "failed", lastOutcome: "propose-error", lastError: "boom" });
    expect(s.recordRange(31337, MARKET, 3, [{ marketId: 6n, blockNumber: 3, txHash: "0x06" }])).toBe(1);
    expect(s.getJobById(job.id)).toMatchObject({
      state: "requested",
      attempts: 0,
      requestedBlock: 3,
      finishedAt: null,
    });
    // A job that waits because the chain said Open (backoff, attempt not counted) is due at once on the event.
    s.manualRequest(key(7n));
    const open = s.getJob(key(7n))!;
    s.claimRun(open.id);
    s.finish(open.id, {
      state: "requested",
      lastOutcome: "not-requested",
      uncountAttempt: true,
      nextAttemptAt: Date.now() + 300_000,
    });
    expect(s.dueJobs("run", 10, new Set()).map((j) => j.id)).not.toContain(open.id);
    expect(s.recordRange(31337, MARKET, 4, [{ marketId: 7n, blockNumber: 4, txHash: "0x07" }])).toBe(1);
    expect(s.dueJobs("run", 10, new Set()).map((j) => j.id)).toContain(open.id);
    expect(s.getJobById(open.id)).toMatchObject({ attempts: 0, requestedBlock: 4 });
    s.close();
  });

  it("a ProposalDisputed event turns a proposed job into a disputed one, due now; other states ignore it", () => {
    const s = new Store(tempDbPath());
    s.manualRequest(key(8n));
    const job = s.getJob(key(8n))!;
    expect(s.recordRange(31337, MARKET, 4, [], [{ marketId: 8n, disputer: "0xAB", claimed: "no" }])).toBe(0);
    s.finish(job.id, { state: "proposed", lastOutcome: "proposed", nextAttemptAt: Date.now() + 60_000 });
    expect(s.recordRange(31337, MARKET, 5, [], [{ marketId: 8n, disputer: "0xAB", claimed: "no" }])).toBe(1);
    expect(s.getJobById(job.id)).toMatchObject({ state: "disputed", disputer: "0xab", claimed: "no" });
    expect(s.dueJobs("chain", 10, new Set()).map((j) => j.id)).toEqual([job.id]);
    s.close();
  });

  it("an aborted run abandoned at shutdown gives its attempt back (issue 13.6)", () => {
    const s = new Store(tempDbPath());
    s.manualRequest(key(9n));
    const job = s.getJob(key(9n))!;
    s.claimRun(job.id);
    s.abandonRun(job.id, "aborted by shutdown");
    expect(s.getJobById(job.id)).toMatchObject({ state: "requested", attempts: 0, lastOutcome: "aborted" });
    s.close();
  });
});

describe("store binding (issue 13.5)", () => {
  const G1 = `0x${"01".repeat(32)}`;
  const G2 = `0x${"02".repeat(32)}`;
  const OTHER = "0x00000000000000000000000000000000000000bb";

  it("binds at first start; the same chain and deployment reopen; new market contracts are added", () => {
    const path = tempDbPath();
    const s = new Store(path);
    expect(s.bind({ chainId: 31337, genesisHash: G1, markets: [MARKET] }, false)).toEqual({
      reset: false,
      added: [MARKET],
    });
    s.close();
    const again = new Store(path);
    expect(
      again.bind(
        { chainId: 31337, genesisHash: G1.toUpperCase().replace("0X", "0x"), markets: [MARKET, OTHER] },
        false,
      ),
    ).toEqual({ reset: false, added: [OTHER] });
    again.close();
  });

  it("refuses another genesis (a restarted local chain with the same id), another chain id, or a missing market, in one line", () => {
    const path = tempDbPath();
    const s = new Store(path);
    s.bind({ chainId: 31337, genesisHash: G1, markets: [MARKET] }, false);
    s.recordRange(31337, MARKET, 10, [{ marketId: 1n, blockNumber: 9, txHash: null }]);
    const attempts: [number, string, string[], RegExp][] = [
      [31337, G2, [MARKET], /another chain with chain id 31337/],
      [1, G1, [MARKET], /chain id 31337, the RPC is on chain id 1/],
      [31337, G1, [OTHER], /market contract 0x0+aa, which is not configured/],
    ];
    for (const [chainId, genesisHash, markets, re] of attempts) {
      let message = "";
      try {
        s.bind({ chainId, genesisHash, markets }, false);
      } catch (err) {
        message = (err as Error).message;
      }
      expect(message).toMatch(re);
      expect(message).toMatch(/resetStore \/ --reset-db/);
      expect(message).not.toContain("\n");
    }
    expect(s.listJobs()).toHaveLength(1); // refused: nothing touched
    s.close();
  });

  it("resets on request: jobs, bundles and cursors go, the signing key stays", async () => {
    const s = new Store(tempDbPath());
    s.bind({ chainId: 31337, genesisHash: G1, markets: [MARKET] }, false);
    const k = await loadOrCreateSigningKey(s);
    s.recordRange(31337, MARKET, 10, [{ marketId: 1n, blockNumber: 9, txHash: null }]);
    expect(s.bind({ chainId: 31337, genesisHash: G2, markets: [MARKET] }, true)).toEqual({
      reset: true,
      added: [MARKET],
    });
    expect(s.listJobs()).toHaveLength(0);
    expect(s.getCursor(31337, MARKET)).toBeUndefined();
    expect((await loadOrCreateSigningKey(s)).kid).toBe(k.kid);
    expect(() => s.bind({ chainId: 31337, genesisHash: G1, markets: [MARKET] }, false)).toThrow(/cannot be used/);
    s.close();
  });

  it("migrates a round-1 database: its jobs are kept aside as v1_* tables, the key stays", async () => {
    const path = tempDbPath();
    const { DatabaseSync } = await import("../../../daemon/sqlite.js");
    const s = new Store(path);
    const k = await loadOrCreateSigningKey(s);
    s.close();
    // Wind the file back to a v1 database with a v1 job.
    const db = new DatabaseSync(path);
    db.exec(`DROP TABLE bundles; DROP TABLE jobs; DROP TABLE cursor; DROP TABLE meta; DROP TABLE markets;
      ALTER TABLE v1_bundles RENAME TO bundles; ALTER TABLE v1_jobs RENAME TO jobs; ALTER TABLE v1_cursor RENAME TO cursor;
      DROP INDEX IF EXISTS bundles_hash; CREATE INDEX jobs_due ON jobs (state, next_attempt_at);
      INSERT INTO jobs (chain_id, market, market_id, state, source, created_at, updated_at, next_attempt_at) VALUES (31337, '${MARKET}', '1', 'written', 'event', 1, 1, 1);
      PRAGMA user_version = 1;`);
    db.close();
    const m = new Store(path);
    expect(m.schemaVersion()).toBe(SCHEMA_VERSION);
    expect(m.listJobs()).toHaveLength(0);
    expect((m.db.prepare("SELECT state FROM v1_jobs").all() as { state: string }[]).map((r) => r.state)).toEqual([
      "written",
    ]);
    expect((await loadOrCreateSigningKey(m)).kid).toBe(k.kid);
    m.close();
  });
});

describe("bundle CID", () => {
  it("computes the CIDv1 ipfs add --cid-version 1 gives (one chunk: raw, sha2-256, base32)", async () => {
    const { ipfsCid } = await import("../../../daemon/cid.js");
    // The well-known CIDs of "hello world" and of the empty file (ipfs add --cid-version 1).
    expect(await ipfsCid("hello world")).toBe("bafkreifzjut3te2nhyekklss27nh3k72ysco7y32koao5eei66wof36n5e");
    expect(await ipfsCid("")).toBe("bafkreihdwdcefgh4dqkjv67uzcmw7ojee6xedzdetojuzjevtenxquvyku");
    expect(await ipfsCid(new TextEncoder().encode("hello world"))).toBe(await ipfsCid("hello world"));
  });
});

describe("config", () => {
  it("applies defaults and normalises addresses", () => {
    const c = parseDaemonConfig({
      markets: ["0x00000000000000000000000000000000000000AA"],
      rpcUrl: "http://127.0.0.1:8545",
    });
    expect(c.markets).toEqual([{ address: MARKET, startBlock: undefined }]);
    expect(c).toMatchObject({
      confirmations: 2,
      maxBlockRange: 2_000,
      apiHost: "127.0.0.1",
      concurrency: 4,
      maxAttempts: 5,
    });
  });

  it("rejects bad input without echoing secrets", () => {
    const secret = "https://eth.example/v2/SUPERSECRETKEY";
    expect(() => parseDaemonConfig({ markets: [], rpcUrl: secret, apiToken: "short" })).toThrow(
      /invalid daemon config/,
    );
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
        wallet: { privateKey: `0x${"11".repeat(32)}` },
        llm: { apiKey: "sk-live-123" },
        jwk: { d: "PRIVATE-D" },
      },
      "hello",
    );
    expect(out).toContain("hello");
    for (const s of ["tok-1234567890abcdef", "KEY123", "abcdefgh", "11".repeat(32), "sk-live-123", "PRIVATE-D"])
      expect(out).not.toContain(s);
  });

  it("sanitizes error messages: URLs reduced to their origin, bearer tokens, configured secrets, length cap", () => {
    const msg = sanitizeError(
      new Error(
        "HTTP request failed. URL: https://user:pw@eth.example/v2/ALCHEMYKEY?x=1 Authorization: Bearer tok123 token=abc api_key: zzz",
      ),
      ["tok123"],
    );
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
