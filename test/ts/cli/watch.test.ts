/**
 * `cresolver watch` in-process against a real chain (deployed by `cresolver deploy`, its CommitteeArbiter the
 * default arbiter): farm-then-strike. Five agents answer the truth together for a few markets; then the resolver
 * proposes the two farmers' answer against the three others. The watcher recomputes the vote from public data,
 * reports the dispute (dry run), sends it with --dispute, the committee overturns, and the ruling enters the record
 * as known truth: the farmers' estimates fall below the honest agents' (they would not have without the ruling).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { registerAgent } from "../../../workflow/chain/actions.js";
import { withKey } from "../../../workflow/chain/clients.js";
import { createChainPorts } from "../../../workflow/chain/ports.js";
import type { MarketSnapshot } from "../../../workflow/core/types.js";
import { estimateAccuracy } from "../../../workflow/core/accuracy.js";
import { watchHistory } from "../../../workflow/watch/review.js";
import type { WatchResult } from "../../../workflow/watch/run.js";
import { startWatchLoop } from "../../../daemon/watch.js";
import { createCliHarness, type CliHarness } from "./helpers/inprocess.js";
import { hardhatKey } from "./helpers/keys.js";

let h: CliHarness;
let server: Server;
let badBundleUrl: string;
const RESOLVER = hardhatKey(0);
const FARMERS = [1, 2];
const HONEST = [3, 4, 5];
const PANEL = [...FARMERS, ...HONEST];
const ids = new Map<number, bigint>();
let plans = 0;

async function agentOf(i: number): Promise<bigint> {
  let id = ids.get(i);
  if (id === undefined) {
    id = (await registerAgent(withKey(h.owner, hardhatKey(i)), h.identity, `data:,w${i}`)).agentId;
    ids.set(i, id);
  }
  return id;
}

async function ok(args: string[], key = RESOLVER): Promise<Record<string, unknown>> {
  const r = await h.cresolver(args, { key });
  expect(r.code, r.stderr).toBe(0);
  return r.json ?? {};
}

/** A market with the panel seated and its resolution requested. */
async function requested(): Promise<bigint> {
  const created = await ok([
    "market",
    "create",
    "--question",
    `Will event ${plans} happen?`,
    "--deadline",
    "+10m",
    "--reward",
    "0.1",
    "--dispute-window",
    "10m",
  ]);
  const id = BigInt(created.marketId as string);
  for (const k of PANEL)
    await ok(["market", "join", String(id), "--agent-id", String(await agentOf(k)), "--stake", "0.01"], hardhatKey(k));
  await h.increaseTime(900); // past the deadline with room for a slow machine (it is set from the wall clock);
  await ok(["market", "request-resolution", String(id)]);
  return id;
}

async function propose(
  id: bigint,
  verdict: string,
  answers: [string, number][],
  bundleURI = "ipfs://bafy-b",
): Promise<void> {
  const name = `plan-${plans++}.json`;
  const reports = answers.map(([answer, confidenceBps]) => ({
    answer,
    confidenceBps,
    resQuality: 70,
    srcQuality: 60,
    analysisDepth: 50,
  }));
  writeFileSync(join(h.dir, name), JSON.stringify({ verdict, reports, bundleHash: `0x${"5a".repeat(32)}`, bundleURI }));
  await ok(["resolve", String(id), "--plan", name]);
}

beforeAll(async () => {
  h = await createCliHarness();
  server = createServer((_req, res) => res.end("{ not a bundle"));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  badBundleUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/bundle.json`;
  // The farm: everyone answers the truth (YES) together; each proposal finalizes undisputed.
  for (let m = 0; m < 4; m++) {
    const id = await requested();
    await propose(
      id,
      "yes",
      PANEL.map((k) => ["yes", FARMERS.includes(k) ? 9500 : 8000]),
    );
    await h.increaseTime(601);
    await ok(["market", "finalize", String(id)], hardhatKey(9));
  }
}, 600_000);
afterAll(async () => {
  server?.close();
  await h?.close();
});

describe("cresolver watch: farm, then strike", () => {
  let strike: bigint;

  it("reports nothing to dispute when no proposal is open", async () => {
    const r = await h.cresolver(["watch"], { json: false });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout.trim()).toBe("no proposal in its dispute window");
  });

  it("dry run: the strike (the farmers' NO against three YES) is reported, not disputed; a bad bundle does not stop it", async () => {
    strike = await requested();
    await propose(
      strike,
      "no",
      [
        ["no", 9900],
        ["no", 9900],
        ["yes", 6000],
        ["yes", 6000],
        ["yes", 6000],
      ],
      badBundleUrl,
    );
    const r = await h.cresolver(["watch", "--allow-loopback"], { key: hardhatKey(12), json: false });
    expect(r.code, r.stderr).toBe(0);
    const line = r.stdout.trim();
    expect(line.split("\n")).toHaveLength(1);
    expect(line).toMatch(
      new RegExp(`^market ${strike}: proposal NO, recomputed YES over 4 market\\(s\\), 3/5 seats against`),
    );
    expect(line).toMatch(/bundle unreadable: /);
    expect(line).toMatch(/WOULD DISPUTE claiming YES \(differs, against-seats\); pass --dispute to send it$/);
    const shown = await ok(["market", "show", String(strike)]);
    expect(shown.status).toBe("Proposed");
  });

  it("daemon --watch's loop: one log line per open proposal each pass, nothing sent without --watch-dispute", async () => {
    const lines: string[] = [];
    const logger = { info: (_o: object, m: string) => lines.push(m), warn: (_o: object, m: string) => lines.push(m) };
    let firstPass: (results: WatchResult[]) => void = () => undefined;
    const passed = new Promise<WatchResult[]>((r) => (firstPass = r));
    const loop = startWatchLoop({
      ctx: withKey(h.owner, hardhatKey(12)),
      market: h.market,
      intervalMs: 3_600_000,
      logger,
      pass: { dispute: false },
      onPass: (results) => firstPass(results),
    });
    const [result] = await passed;
    await loop.stop();
    expect(loop.passes).toBe(1);
    expect(result && "action" in result ? result.action : undefined).toEqual({ kind: "would-dispute", claim: "yes" });
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(new RegExp(`^market ${strike}: .*WOULD DISPUTE claiming YES`));
    expect((await ok(["market", "show", String(strike)])).status).toBe("Proposed");
  });

  it("refuses to dispute the key's own proposal", async () => {
    const r = await h.cresolver(["watch", String(strike), "--dispute"], { key: RESOLVER, json: false });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/not disputing: it is this key's own proposal/);
  });

  it("--dispute sends it with the watcher's bond; the committee overturns; the ruling is known truth in the record", async () => {
    const r = await h.cresolver(["watch", "--dispute", "--no-bundles"], { key: hardhatKey(12) });
    expect(r.code, r.stderr).toBe(0);
    const [m] = r.json!.markets as { marketId: string; action: { kind: string; claim: string } }[];
    expect(m).toMatchObject({ marketId: String(strike), action: { kind: "disputed", claim: "yes" } });
    const disputed = await ok(["market", "show", String(strike)]);
    expect(disputed.status).toBe("Disputed");
    // Nothing left to watch: a disputed proposal is the arbiter's.
    expect((await h.cresolver(["watch"], { json: false })).stdout.trim()).toBe("no proposal in its dispute window");

    await ok(["market", "vote", String(strike), "--verdict", "yes"]);
    const ruled = await ok(["market", "show", String(strike)]);
    expect(ruled).toMatchObject({ status: "Resolved", outcome: "YES" });

    // The next market's record: the strike is a trusted ruling (the deployment's default arbiter ruled).
    const agentIds = await Promise.all(PANEL.map(agentOf));
    const next = await requested();
    const history = await watchHistory(h.owner, h.market, next, agentIds);
    expect(history).toHaveLength(5);
    const last = history.at(-1);
    expect(last).toMatchObject({ final: true, disputed: true, trustedRuling: true });
    // The resolver's own record (the pipeline's chain port) marks the same ruling as truth.
    const resolverView = await createChainPorts({ ctx: h.owner, marketAddress: h.market }).trackRecord.history({
      marketId: next,
      workers: agentIds.map((agentId) => ({ agentId })),
    } as unknown as MarketSnapshot);
    expect(resolverView.at(-1)).toMatchObject({ final: true, disputed: true, trustedRuling: true });
    const after = estimateAccuracy(history, agentIds).agents;
    const acc = (est: typeof after, i: number) => est.find((a) => a.agentId === agentIds[i])?.accuracy ?? Number.NaN;
    for (const f of [0, 1]) for (const o of [2, 3, 4]) expect(acc(after, f)).toBeLessThan(acc(after, o));
    // Without the ruling (the strike finalized undisputed as NO) the farmers would have stood above the others.
    const unruled = history.map((x, i) =>
      i === history.length - 1 ? { ...x, final: false, disputed: false, trustedRuling: false } : x,
    );
    const before = estimateAccuracy(unruled, agentIds).agents;
    for (const f of [0, 1]) for (const o of [2, 3, 4]) expect(acc(before, f)).toBeGreaterThan(acc(before, o));
  });

  it("refuses bad options with one line", async () => {
    await h.refuses(["watch", "--against-share", "1.5"], /--against-share must be a number in \(0, 1\]/);
    await h.refuses(["watch", "--against-share", "0"], /--against-share must be a number in \(0, 1\]/);
    await h.refuses(["watch", "--dispute"], /pass --private-key/);
  });
});
