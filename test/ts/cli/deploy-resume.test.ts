/**
 * A deployment that stops midway resumes: `deployAll` with the file journal fails after ResolutionMarket (a failure
 * injected through `afterStep`, on a real in-process chain), then `cresolver deploy` continues from `<out>.partial`,
 * reusing the three contracts already on-chain and deploying only the rest.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Address } from "viem";
import { connect } from "../../../workflow/chain/clients.js";
import { deployAll } from "../../../workflow/chain/deploy.js";
import { fileDeployJournal } from "../../../workflow/chain/deploy-journal.js";
import { readGovernance, readMarket } from "../../../workflow/chain/lifecycle.js";
import { cli, startInProcessChain } from "./helpers/inprocess-cli.js";
import { hardhatKey } from "./helpers/keys.js";
import type { HardhatNode } from "./helpers/processes.js";

let node: HardhatNode;
let dir: string;

beforeAll(async () => {
  node = await startInProcessChain();
  dir = mkdtempSync(join(tmpdir(), "cresolver-resume-"));
});
afterAll(async () => {
  await node?.stop();
  rmSync(dir, { recursive: true, force: true });
});

describe("deploy resumes after a failure", () => {
  it("keeps the contracts deployed before the failure and deploys only the rest", async () => {
    const ctx = await connect({ rpcUrl: node.url, privateKey: hardhatKey(0) });
    const out = join(dir, "deployments", "localhost.json");
    const journal = fileDeployJournal(`${out}.partial`, ctx.chainId, ctx.account!.address);
    const steps: string[] = [];
    await expect(
      deployAll(ctx, {
        network: "localhost",
        ownRegistries: true,
        journal,
        afterStep: (step) => {
          steps.push(step);
          if (step === "ResolutionMarket") throw new Error("injected: connection lost after ResolutionMarket");
        },
      }),
    ).rejects.toThrow(/injected/);
    expect(steps).toEqual(["IdentityRegistry", "ReputationRegistry", "ResolutionMarket"]);
    const partial = JSON.parse(readFileSync(`${out}.partial`, "utf8")) as {
      contracts: Record<string, { contract: { address: Address } }>;
    };
    expect(Object.keys(partial.contracts)).toEqual(["IdentityRegistry", "ReputationRegistry", "ResolutionMarket"]);
    const nonceBefore = await ctx.publicClient.getTransactionCount({ address: ctx.account!.address });

    const r = await cli(["deploy", "--own-registries", "--out", out], {
      cwd: dir,
      env: { RPC_URL: node.url, PRIVATE_KEY: hardhatKey(0) },
    });
    expect(r.code, r.stderr).toBe(0);
    const json = r.json as { resumed: string[]; contracts: Record<string, { address: Address }>; arbiter: Address };
    expect(json.resumed).toEqual(["IdentityRegistry", "ReputationRegistry", "ResolutionMarket"]);
    for (const name of json.resumed)
      expect(json.contracts[name]!.address).toBe(partial.contracts[name]!.contract.address);
    // Only the rest was sent: BettingMarket, CommitteeArbiter, queueResolver, queueDefaultArbiter.
    expect(await ctx.publicClient.getTransactionCount({ address: ctx.account!.address })).toBe(nonceBefore + 4);
    const market = json.contracts.ResolutionMarket!.address;
    expect(await readMarket(ctx, market, "identityRegistry", [])).toBe(json.contracts.IdentityRegistry!.address);
    expect(await readGovernance(ctx, market, "resolverActiveFrom", [ctx.account!.address])).toBeGreaterThan(0n);
    expect(existsSync(`${out}.partial`)).toBe(false);
    expect(JSON.parse(readFileSync(out, "utf8"))).toMatchObject({ arbiter: json.arbiter });
  });

  it("refuses a journal of another deployer instead of mixing it in", async () => {
    const out = join(dir, "other.json");
    writeFileSync(
      `${out}.partial`,
      JSON.stringify({ chainId: 31337, deployer: "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", contracts: {} }),
    );
    const r = await cli(["deploy", "--out", out], { cwd: dir, env: { RPC_URL: node.url, PRIVATE_KEY: hardhatKey(0) } });
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(
      /^error: .*other\.json\.partial records a deployment on chain 31337 by 0x7099.*delete it or choose --out\n$/,
    );
  });
});
