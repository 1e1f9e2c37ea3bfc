/**
 * A 2-of-3 CommitteeArbiter through the CLI, in process against a real chain (`cresolver deploy --committee`):
 * each `market vote` says where the tally stands ("k of m votes"), a split vote rules nothing, and the vote that
 * reaches the threshold says the ruling and the market's new status.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { privateKeyToAccount } from "viem/accounts";
import { registerAgent } from "../../../workflow/chain/actions.js";
import { withKey } from "../../../workflow/chain/clients.js";
import { createCliHarness, type CliHarness } from "./helpers/inprocess.js";
import { hardhatKey } from "./helpers/keys.js";

const RESOLVER = hardhatKey(0);
const MEMBERS = [0, 3, 4].map((i) => privateKeyToAccount(hardhatKey(i)).address);
let h: CliHarness;

beforeAll(async () => {
  h = await createCliHarness(["--committee", MEMBERS.join(","), "--committee-threshold", "2"]);
}, 120_000);
afterAll(async () => h?.close());

/** A market of two agents proposed YES by the resolver, then disputed (claim NO) by key 6. */
async function disputedMarket(): Promise<bigint> {
  const created = await h.cresolver(
    ["market", "create", "--question", "Will the committee rule?", "--deadline", "+10m", "--reward", "1"],
    { key: RESOLVER },
  );
  expect(created.code, created.stderr).toBe(0);
  const id = String(created.json?.marketId);
  for (const i of [1, 2]) {
    const { agentId } = await registerAgent(withKey(h.owner, hardhatKey(i)), h.identity, `data:,c${i}`);
    const joined = await h.cresolver(["market", "join", id, "--agent-id", String(agentId), "--stake", "0.01"], {
      key: hardhatKey(i),
    });
    expect(joined.code, joined.stderr).toBe(0);
  }
  await h.increaseTime(601);
  const requested = await h.cresolver(["market", "request-resolution", id], { key: RESOLVER });
  expect(requested.code, requested.stderr).toBe(0);
  const report = { answer: "yes", confidenceBps: 8000, resQuality: 70, srcQuality: 60, analysisDepth: 50 };
  writeFileSync(
    join(h.dir, "committee-plan.json"),
    JSON.stringify({
      verdict: "yes",
      reports: [report, report],
      bundleHash: `0x${"5b".repeat(32)}`,
      bundleURI: "ipfs://bafy-committee",
    }),
  );
  const proposed = await h.cresolver(["resolve", id, "--plan", "committee-plan.json"], { key: RESOLVER });
  expect(proposed.code, proposed.stderr).toBe(0);
  const disputed = await h.cresolver(["market", "dispute", id, "--claim", "no"], { key: hardhatKey(6) });
  expect(disputed.code, disputed.stderr).toBe(0);
  return BigInt(id);
}

describe("market vote on a 2-of-3 committee", { timeout: 120_000 }, () => {
  it("says k of m after every vote; a split rules nothing; the second vote for one verdict rules", async () => {
    const id = await disputedMarket();
    const config = (await h.cresolver(["market", "show", String(id)])).json?.config as { arbiter: string } | undefined;
    const committee = config?.arbiter ?? "(no arbiter)";
    const vote = (key: number, verdict: string) =>
      h.cresolver(["market", "vote", String(id), "--verdict", verdict], { key: hardhatKey(key), json: false });

    const first = await vote(3, "no");
    expect(first).toMatchObject({ code: 0, stderr: "" });
    expect(first.stdout.split("\n")[0]).toBe(
      `voted NO: 1 of 2 votes for NO (committee ${committee}: 3 members, 2 needed); market ${id} stays Disputed until 2 members vote the same verdict`,
    );
    await h.refuses(["market", "vote", String(id), "--verdict", "no"], /already voted on market/, {
      key: hardhatKey(3),
    });
    await h.refuses(["market", "vote", String(id), "--verdict", "no"], /is not a member of the committee/, {
      key: hardhatKey(6),
    });

    // Another member disagrees: one vote each, no ruling.
    const split = await h.cresolver(["market", "vote", String(id), "--verdict", "yes"], { key: hardhatKey(0) });
    expect(split.json).toMatchObject({ status: "Disputed", votesFor: 1, threshold: "2", members: 3 });

    const ruling = await vote(4, "no");
    expect(ruling).toMatchObject({ code: 0, stderr: "" });
    expect(ruling.stdout.split("\n")[0]).toBe(
      `voted NO: 2 of 2 votes for NO (committee ${committee}: 3 members, 2 needed); the committee ruled NO: market ${id} is now Resolved`,
    );
    const shown = await h.cresolver(["market", "show", String(id)]);
    expect(shown.json).toMatchObject({ status: "Resolved", outcome: "NO" });
    const text = await h.cresolver(["market", "show", String(id)], { json: false });
    // `market show` counts the ruling's votes against the members (2 of the 3 voted NO).
    expect(text.stdout).toMatch(/summary +Proposed YES, overturned to NO by the committee \(2 of 3 votes\)/);
    expect(text.stdout).toMatch(
      /dispute +Committee 0x[0-9a-fA-F]{40}: 2 of 3 members must agree; votes YES 1, NO 2, INVALID 0/,
    );
  });
});
