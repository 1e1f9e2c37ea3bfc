/**
 * UMA from the CLI on a real chain with UMA's own contracts (@uma/contracts-node: Finder, Store, whitelists, OOv3,
 * the mock DVM): `cresolver deploy --uma` deploys the UmaArbiter and makes it the default arbiter; `market dispute`
 * approves the UMA bond (or refuses in one line without the balance); the watcher's dispute goes through UMA too,
 * and OOv3's settlement rules the market. Also: on a non-local chain `deploy` refuses the deployer as sole arbiter.
 */
import { join } from "node:path";
import { writeFileSync } from "node:fs";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { erc20Abi, getAddress, type Address } from "viem";
import { registerAgent } from "../../../workflow/chain/actions.js";
import { withKey } from "../../../workflow/chain/clients.js";
import { deployAll, deployerArbiterRefusal } from "../../../workflow/chain/deploy.js";
import { arbiterBondOf } from "../../../workflow/chain/dispute-bond.js";
import { deploymentAllowsArbiter } from "../../../workflow/settle/guard.js";
import {
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
const FINAL_FEE = 50n * E18; // OOv3's minimum bond: 2 × the final fee
let h: CliHarness;
let uma: UmaStack;
let umaArbiter: Address;
let umaMarket: Address;
let umaIdentity: Address;
const RESOLVER = hardhatKey(0);
const WATCHER = 12;
const agents = new Map<number, bigint>();
let n = 0;

const cli = (args: string[], key = RESOLVER, json = true) =>
  h.cresolver(["--deployment", "uma.json", ...args], { key, json });

async function ok(args: string[], key = RESOLVER): Promise<Record<string, unknown>> {
  const r = await cli(args, key);
  expect(r.code, r.stderr).toBe(0);
  return r.json ?? {};
}

async function agentOf(i: number): Promise<bigint> {
  let id = agents.get(i);
  if (id === undefined) {
    id = (await registerAgent(withKey(h.owner, hardhatKey(i)), umaIdentity, `data:,u${i}`)).agentId;
    agents.set(i, id);
  }
  return id;
}

const balance = (who: Address) =>
  h.owner.publicClient.readContract({ address: uma.currency, abi: erc20Abi, functionName: "balanceOf", args: [who] });
const addressOf = (k: number) => withKey(h.owner, hardhatKey(k)).account?.address ?? "0x";

/** A market on the UMA deployment with three seats, its resolution requested and a wrong NO proposed. */
async function wrongProposal(): Promise<bigint> {
  const id = BigInt(
    (
      await ok([
        "market",
        "create",
        "--question",
        `Will UMA case ${n} hold?`,
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
    await ok(["market", "join", String(id), "--agent-id", String(await agentOf(k)), "--stake", "0.01"], hardhatKey(k));
  await h.increaseTime(900); // past the deadline with room for a slow machine (it is set from the wall clock);
  await ok(["market", "request-resolution", String(id)]);
  const plan = `uma-plan-${n++}.json`;
  const reports = [5500, 6000, 6000].map((c, i) => ({
    answer: i === 0 ? "no" : "yes",
    confidenceBps: c,
    resQuality: 70,
    srcQuality: 60,
    analysisDepth: 50,
  }));
  writeFileSync(
    join(h.dir, plan),
    JSON.stringify({ verdict: "no", reports, bundleHash: `0x${"5a".repeat(32)}`, bundleURI: "ipfs://bafy-u" }),
  );
  await ok(["resolve", String(id), "--plan", plan]);
  return id;
}

beforeAll(async () => {
  h = await createCliHarness();
  uma = await deployUmaStack(h.owner, { finalFee: FINAL_FEE });
  const d = await h.cresolver(
    [
      "deploy",
      "--uma",
      uma.optimisticOracle,
      "--uma-currency",
      uma.currency,
      "--uma-liveness",
      "600",
      "--network-name",
      "uma",
      "--out",
      "uma.json",
    ],
    { key: RESOLVER },
  );
  expect(d.code, d.stderr).toBe(0);
  const contracts = d.json!.contracts as Record<string, { address: Address }>;
  umaArbiter = getAddress(contracts.UmaArbiter!.address);
  umaMarket = getAddress(contracts.ResolutionMarket!.address);
  umaIdentity = getAddress(contracts.IdentityRegistry!.address);
  expect(getAddress(d.json!.arbiter as Address)).toBe(umaArbiter);
  expect(contracts.CommitteeArbiter).toBeUndefined();
}, 600_000);
afterAll(async () => h?.close());

describe("UMA through the CLI", () => {
  it("deploy --uma: the UmaArbiter is the default arbiter; its bond is UMA's minimum", async () => {
    const s = await ok(["market", "settings"]);
    expect(JSON.stringify(s)).toContain(umaArbiter);
    expect(await arbiterBondOf(h.owner, umaArbiter)).toEqual({
      currency: getAddress(uma.currency),
      amount: 2n * FINAL_FEE,
    });
  });

  it("market dispute without UMA's bond in the wallet: one line, nothing sent", async () => {
    const id = await wrongProposal();
    await h.refuses(
      ["--deployment", "uma.json", "market", "dispute", String(id), "--claim", "yes"],
      /pulls a dispute bond of 100000000000000000000 of token 0x[0-9a-fA-F]{40}; 0x[0-9a-fA-F]{40} holds 0/,
      { key: hardhatKey(13) },
    );
    expect((await ok(["market", "show", String(id)])).status).toBe("Proposed");
    // With the balance, the CLI approves exactly the bond, then disputes; OOv3 settles the uncontested claim: YES.
    await mintCurrency(h.owner, uma, addressOf(13), 2n * FINAL_FEE);
    const r = await cli(["market", "dispute", String(id), "--claim", "yes"], hardhatKey(13));
    expect(r.code, r.stderr).toBe(0);
    expect(r.json).toMatchObject({ arbiterBond: { amount: (2n * FINAL_FEE).toString() } });
    expect(r.json!.arbiterBond).toHaveProperty("approveTxHash", expect.stringMatching(/^0x[0-9a-f]{64}$/));
    expect(await balance(addressOf(13))).toBe(0n);
    const assertion = await assertionIdOf(h.owner, umaArbiter, umaMarket, id);
    expect(assertion).toBeDefined();
    await h.increaseTime(601);
    await settleAssertion(h.owner, uma, assertion ?? "0x");
    expect(await ok(["market", "show", String(id)])).toMatchObject({ status: "Resolved", outcome: "YES" });
    expect(await balance(addressOf(13))).toBe(2n * FINAL_FEE); // UMA's bond back to the truthful asserter
  });

  it("the watcher disputes through UMA (approval included) and the ruling settles the market", async () => {
    const id = await wrongProposal();
    await mintCurrency(h.owner, uma, addressOf(WATCHER), 2n * FINAL_FEE);
    const r = await cli(["watch", "--dispute"], hardhatKey(WATCHER));
    expect(r.code, r.stderr).toBe(0);
    const [m] = r.json!.markets as { marketId: string; reasons: string[]; action: Record<string, unknown> }[];
    expect(m).toMatchObject({
      marketId: String(id),
      action: { kind: "disputed", claim: "yes", arbiterBond: String(2n * FINAL_FEE) },
    });
    expect(m?.reasons).toContain("against-seats");
    const assertion = await assertionIdOf(h.owner, umaArbiter, umaMarket, id);
    await h.increaseTime(601);
    await settleAssertion(h.owner, uma, assertion ?? "0x");
    expect(await ok(["market", "show", String(id)])).toMatchObject({ status: "Resolved", outcome: "YES" });
  });

  it("owner arbiter allow / remove: another UmaArbiter joins the allow-list after the timelock and leaves it at once", async () => {
    const second = (await deployUmaArbiter(h.owner, uma, { liveness: 600, markets: [umaMarket] })).address;
    expect(await deploymentAllowsArbiter(h.owner, umaMarket, second)).toBe(false);
    const allowed = await ok(["owner", "arbiter", "allow", second]);
    const now = (await h.owner.publicClient.getBlock()).timestamp;
    expect(BigInt(allowed.activeFrom as string)).toBeGreaterThan(now); // the bootstrap closed with the first market
    expect(await deploymentAllowsArbiter(h.owner, umaMarket, second)).toBe(false);
    await h.increaseTime(2 * 24 * 3600 + 1);
    expect(await deploymentAllowsArbiter(h.owner, umaMarket, second)).toBe(true);
    await ok(["owner", "arbiter", "remove", second]);
    expect(await deploymentAllowsArbiter(h.owner, umaMarket, second)).toBe(false);
    await h.refuses(
      ["--deployment", "uma.json", "owner", "arbiter", "allow", second],
      /MarketGovernance\.queueArbiter.*OwnableUnauthorizedAccount/,
      {
        key: hardhatKey(13),
        code: 1,
      },
    );
  });

  it("on a non-local chain, deploy refuses the deployer as the only arbiter unless told", async () => {
    const me = addressOf(0);
    expect(deployerArbiterRefusal(11155111, me, {})).toMatch(/would be the only arbiter of every dispute/);
    expect(deployerArbiterRefusal(11155111, me, { committee: { members: [me] } })).toMatch(/only arbiter/);
    expect(deployerArbiterRefusal(11155111, me, { allowDeployerArbiter: true })).toBeUndefined();
    expect(deployerArbiterRefusal(11155111, me, { committee: { members: [me, addressOf(1)] } })).toBeUndefined();
    expect(deployerArbiterRefusal(11155111, me, { arbiter: umaArbiter })).toBeUndefined();
    expect(deployerArbiterRefusal(31337, me, {})).toBeUndefined();
    const before = await h.owner.publicClient.getTransactionCount({ address: me });
    await expect(deployAll({ ...h.owner, chainId: 11155111 }, { network: "sepolia" })).rejects.toThrow(
      /deployer 0x[0-9a-fA-F]{40} would be the only arbiter .*--allow-deployer-arbiter/,
    );
    expect(await h.owner.publicClient.getTransactionCount({ address: me })).toBe(before);
  });
});
