/**
 * The typed store (daemon/sql.ts, store-rows.ts): rows are parsed, not cast, so a row of the wrong shape fails
 * with one line naming its query; transactions roll back whole; the stored proposal is checked before it is sent.
 * A real SQLite file in a temp dir.
 */
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { payloadReports, StoredProposalError, storedProposal } from "../../../daemon/proposals.js";
import { inTransaction, StoredRowError, selectAll, selectOne } from "../../../daemon/sql.js";
import { type JobRow, Store } from "../../../daemon/store.js";
import { tempDbPath } from "../../helpers/daemon/daemon.js";

const MARKET = "0x00000000000000000000000000000000000000aa";
const HASH = `0x${"ab".repeat(32)}` as const;
const TX = `0x${"cd".repeat(32)}` as const;
const key = (marketId: bigint) => ({ chainId: 31337, market: MARKET, marketId });
const report = { answer: "yes", confidenceBps: 8000, resQuality: 70, srcQuality: 60, analysisDepth: 50 } as const;

/** A store with one job in `proposing`, holding `fields` as its stored proposal. */
function proposing(fields: Partial<Pick<JobRow, "verdict" | "bundleHash" | "txHash" | "payload">>): JobRow {
  const store = new Store(tempDbPath());
  const { job } = store.manualRequest(key(1n));
  store.claimRun(job.id);
  const done = store.finish(job.id, {
    state: "proposing",
    lastOutcome: "yes",
    verdict: "yes",
    bundleHash: HASH,
    bundleUri: "https://example.org/b.json",
    payload: JSON.stringify({ reports: [report] }),
    ...fields,
  });
  store.close();
  return done;
}

describe("typed store", () => {
  it("reads jobs back with their types (bigint market id, nulls kept)", () => {
    const store = new Store(tempDbPath());
    store.recordRange(31337, MARKET, 10, [{ marketId: 2n ** 70n, blockNumber: 9, txHash: null }]);
    const [job] = store.listJobs();
    expect(job?.marketId).toBe(2n ** 70n);
    expect(job?.requestedTx).toBeNull();
    expect(job?.state).toBe("requested");
    expect(store.countByState()).toMatchObject({ requested: 1, failed: 0 });
    store.close();
  });

  it("refuses a row of the wrong shape with one line naming the query, instead of casting it", () => {
    const store = new Store(tempDbPath());
    store.manualRequest(key(1n));
    store.db.prepare("UPDATE jobs SET attempts = 'many'").run();
    expect(() => store.listJobs()).toThrow(StoredRowError);
    expect(() => store.listJobs()).toThrow(/attempts: .*in: SELECT \* FROM jobs ORDER BY id$/);
    store.db.prepare("UPDATE jobs SET attempts = 0, market_id = '-1'").run();
    expect(() => store.getJobById(1)).toThrow(/market_id/);
    store.close();
  });

  it("rolls a transaction back whole when it throws, and commits when it returns", () => {
    const store = new Store(tempDbPath());
    const put = (k: string) => store.db.prepare("INSERT INTO meta (key, value) VALUES (?, 'v')").run(k);
    const keys = () => selectAll(store.db, z.object({ key: z.string() }), "SELECT key FROM meta ORDER BY key");
    expect(() =>
      inTransaction(store.db, () => {
        put("a");
        put("b");
        throw new Error("boom");
      }),
    ).toThrow("boom");
    expect(keys()).toEqual([]);
    const done = inTransaction(store.db, () => {
      put("a");
      put("b");
      return "done";
    });
    expect(done).toBe("done");
    expect(keys()).toEqual([{ key: "a" }, { key: "b" }]);
    expect(
      selectOne(store.db, z.object({ key: z.string() }), "SELECT key FROM meta WHERE key = ?", "c"),
    ).toBeUndefined();
    store.close();
  });
});

describe("stored proposal, checked before it is sent", () => {
  it("gives the send's input: verdict, bundle, URI, payload, and the transaction sent before a restart", () => {
    expect(storedProposal(proposing({}))).toEqual({
      verdict: "yes",
      payload: { reports: [report] },
      bundleHash: HASH,
      bundleURI: "https://example.org/b.json",
    });
    expect(storedProposal(proposing({ txHash: TX })).sentTx).toBe(TX);
  });

  it("refuses a malformed verdict, bundle hash, sent transaction or payload text", () => {
    expect(() => storedProposal(proposing({ verdict: "maybe" }))).toThrow(/verdict/);
    expect(() => storedProposal(proposing({ bundleHash: "0x1234" }))).toThrow(/bundleHash: must be 0x \+ 64 hex/);
    expect(() => storedProposal(proposing({ bundleHash: null }))).toThrow(StoredProposalError);
    expect(() => storedProposal(proposing({ txHash: "0xnot-a-hash" }))).toThrow(/txHash/);
    expect(() => storedProposal(proposing({ payload: "{not json" }))).toThrow(/payload is not JSON/);
  });

  it("accepts the daemon's payload and no payload; refuses reports out of the market's ranges", () => {
    expect(payloadReports({ reports: [report] })).toEqual([report]);
    expect(payloadReports(null)).toBeUndefined();
    // An edited row must not put a confidence above 100 % or a score above 100 on chain.
    expect(() => payloadReports({ reports: [{ ...report, confidenceBps: 20_000 }] })).toThrow(/confidenceBps/);
    expect(() => payloadReports({ reports: [{ ...report, resQuality: 101 }] })).toThrow(StoredProposalError);
    expect(() => payloadReports({ reports: [{ ...report, answer: "maybe" }] })).toThrow(/answer/);
    expect(() => payloadReports({ reports: [{ ...report, replyHash: "0x12" }] })).toThrow(/replyHash/);
    expect(() => payloadReports("reports")).toThrow(StoredProposalError);
  });
});
