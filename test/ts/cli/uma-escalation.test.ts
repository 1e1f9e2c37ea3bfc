/**
 * Escalation to an UmaArbiter fallback from the CLI, in-process, on a local chain with UMA's own contracts
 * (@uma/contracts-node). The deployment's committee is the market's arbiter and stays silent; an UmaArbiter is the
 * fallback. `market dispute` approves the fallback's UMA bond too; `market expire` hands the dispute over after 30
 * days, tells how to fund a claim awaiting its bond, funds it with `--fund` (approval included) or, after the
 * funding window, rules it abandoned (the proposal stands).
 */
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { erc20Abi, getAddress, type Address } from "viem";
import { marketGovernanceAbi } from "../../../workflow/chain/abis.js";
import { registerAgent } from "../../../workflow/chain/actions.js";
import { withKey } from "../../../workflow/chain/clients.js";
import { readMarket } from "../../../workflow/chain/market-reads.js";
import { sendContractTx } from "../../../workflow/chain/writer.js";
import {
  approveCurrency,
  assertionIdOf,
  deployUmaArbiter,
  deployUmaStack,
  mintCurrency,
  settleAssertion,
  type UmaStack,
} from "../../../workflow/chain/uma.js";
import { createCliHarness, type CliHarness } from "./helpers/inprocess.js";
import { hardhatKey } from "./helpers/keys.js";

const E18 = 10n ** 18n;
const FINAL_FEE = 50n * E18;
const UMA_BOND = 2n * FINAL_FEE; // OOv3's minimum bond
const DAY = 24 * 3600;
let h: CliHarness;
let uma: UmaStack;
let fallback: Address;
const agents = new Map<number, bigint>();
let n = 0;

const cli = (args: string[], key: number) => h.cresolver(args, { key: hardhatKey(key) });

async function ok(args: string[], key = 0): Promise<Record<string, unknown>> {
  const r = await cli(args, key);
  expect(r.code, r.stderr).toBe(0);
  return r.json ?? {};
}

const refuses = (args: string[], pattern: RegExp, key: number, code = 2) =>
  h.refuses(args, pattern, { key: hardhatKey(key), code });

const addressOf = (k: number): Address => withKey(h.owner, hardhatKey(k)).account?.address ?? "0x";
const balance = (who: Address) =>
  h.owner.publicClient.readContract({ address: uma.currency, abi: erc20Abi, functionName: "balanceOf", args: [who] });

async function agentOf(i: number): Promise<bigint> {
  let id = agents.get(i);
  if (id === undefined) {
    id = (await registerAgent(withKey(h.owner, hardhatKey(i)), h.identity, `data:,e${i}`)).agentId;
    agents.set(i, id);
  }
  return id;
}

/** A market with three seats, its resolution requested and a wrong NO proposed by the resolver (key 0). */
async function wrongProposal(): Promise<bigint> {
  const id = BigInt(
    (
      await ok([
        "market",
        "create",
        "--question",
        `Will escalation case ${n} hold?`,
        "--deadline",
        "+10m",
        "--reward",
        "0.1",
        "--dispute-window",
        "10m",
      ])
    ).marketId as string,
  );
  for (const k of [1, 2, 3])
    await ok(["market", "join", String(id), "--agent-id", String(await agentOf(k)), "--stake", "0.01"], k);
  await h.increaseTime(900);
  await ok(["market", "request-resolution", String(id)]);
  const plan = `escalation-plan-${n++}.json`;
  const reports = [5500, 6000, 6000].map((c, i) => ({
    answer: i === 0 ? "no" : "yes",
    confidenceBps: c,
    resQuality: 70,
    srcQuality: 60,
    analysisDepth: 50,
  }));
  writeFileSync(
    join(h.dir, plan),
    JSON.stringify({ verdict: "no", reports, bundleHash: `0x${"5b".repeat(32)}`, bundleURI: "ipfs://bafy-e" }),
  );
  await ok(["resolve", String(id), "--plan", plan]);
  return id;
}

beforeAll(async () => {
  h = await createCliHarness();
  uma = await deployUmaStack(h.owner, { finalFee: FINAL_FEE });
  fallback = getAddress((await deployUmaArbiter(h.owner, uma, { liveness: 600, markets: [h.market] })).address);
  const governance = await readMarket(h.owner, h.market, "governance", []);
  // Before the first market the owner's changes apply at once (bootstrap).
  await sendContractTx(h.owner, {
    address: governance,
    abi: marketGovernanceAbi,
    functionName: "queueFallbackArbiter",
    args: [fallback],
  });
  const active = await h.owner.publicClient.readContract({
    address: governance,
    abi: marketGovernanceAbi,
    functionName: "fallbackArbiter",
  });
  expect(getAddress(active)).toBe(fallback);
}, 600_000);
afterAll(async () => h?.close());

describe("escalation to an UmaArbiter fallback through the CLI", () => {
  it("dispute approves the fallback's bond; after a revoked approval, expire escalates, another key funds with --fund and the ruling settles", async () => {
    const id = await wrongProposal();
    await mintCurrency(h.owner, uma, addressOf(13), UMA_BOND);
    const d = await ok(["market", "dispute", String(id), "--claim", "yes"], 13);
    expect(d.fallbackBond).toMatchObject({
      arbiter: fallback,
      amount: UMA_BOND.toString(),
      balance: UMA_BOND.toString(),
      approveTxHash: expect.stringMatching(/^0x[0-9a-f]{64}$/),
    });
    const allowance = () =>
      h.owner.publicClient.readContract({
        address: uma.currency,
        abi: erc20Abi,
        functionName: "allowance",
        args: [addressOf(13), fallback],
      });
    expect(await allowance()).toBe(UMA_BOND);
    // The dodge: the disputer revokes the approval so the hand-off cannot pull UMA's bond.
    await approveCurrency(withKey(h.owner, hardhatKey(13)), uma, fallback, 0n);
    expect(await allowance()).toBe(0n);

    await refuses(["market", "expire", String(id)], /the arbiter has until \d{4}-.* to rule/, 14);
    await h.increaseTime(30 * DAY);
    const e = await ok(["market", "expire", String(id)], 14);
    expect(e).toMatchObject({
      step: "escalated",
      status: "Disputed",
      fallback,
      claim: { status: "awaiting-bond", disputer: addressOf(13), umaBond: UMA_BOND.toString() },
    });
    await refuses(
      ["market", "expire", String(id)],
      /awaits the claim's UMA bond .* until \d{4}-.*`cresolver market expire \d+ --fund`/,
      14,
    );
    // Without the tokens --fund refuses in one line, nothing sent.
    await refuses(["market", "expire", String(id), "--fund"], /pulls a dispute bond of 100000000000000000000/, 14);
    await mintCurrency(h.owner, uma, addressOf(14), UMA_BOND);
    const f = await ok(["market", "expire", String(id), "--fund"], 14);
    expect(f).toMatchObject({ step: "funded", arbiter: fallback, umaBond: { amount: UMA_BOND.toString() } });
    expect(await balance(addressOf(14))).toBe(0n);
    const assertion = await assertionIdOf(h.owner, fallback, h.market, id);
    expect(assertion).toBe(f.assertionId);
    await h.increaseTime(601);
    await settleAssertion(h.owner, uma, assertion ?? "0x");
    expect(await ok(["market", "show", String(id)])).toMatchObject({ status: "Resolved", outcome: "YES" });
    expect(await balance(addressOf(14))).toBe(UMA_BOND); // UMA's bond back to the funder, the claim was true
  });

  it("nobody funds the escalated claim: after its window expire rules it abandoned and the proposal stands", async () => {
    const id = await wrongProposal();
    // A disputer without UMA's tokens: the dispute goes out, the fallback's bond is reported short.
    const d = await cli(["market", "dispute", String(id), "--claim", "yes"], 15);
    expect(d.code, d.stderr).toBe(0);
    expect(d.json?.fallbackBond).toMatchObject({ arbiter: fallback, balance: "0" });
    await h.increaseTime(30 * DAY);
    expect(await ok(["market", "expire", String(id)], 16)).toMatchObject({
      step: "escalated",
      claim: { status: "awaiting-bond" },
    });
    await h.increaseTime(7 * DAY);
    await refuses(["market", "expire", String(id), "--fund"], /funding window ended at \d{4}-/, 16);
    const r = await ok(["market", "expire", String(id)], 16);
    expect(r).toMatchObject({ step: "abandoned", arbiter: fallback, status: "Resolved" });
    expect(await ok(["market", "show", String(id)])).toMatchObject({ status: "Resolved", outcome: "NO" });
  });

  it("dispute prints how to fund the fallback's bond when the key holds too little", async () => {
    const id = await wrongProposal();
    const r = await h.cresolver(["market", "dispute", String(id), "--claim", "yes"], {
      key: hardhatKey(17),
      json: false,
    });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(
      /fallback UmaArbiter 0x[0-9a-fA-F]{40} pulls 100000000000000000000 of token 0x[0-9a-fA-F]{40} from you \(approved\); you hold 0: .*`cresolver market expire \d+ --fund`/,
    );
  });
});
