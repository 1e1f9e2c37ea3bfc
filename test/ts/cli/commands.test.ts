/**
 * The CLI in-process (`run(argv, io)`) over a loopback RPC bridge to Hardhat's in-process chain:
 * --help everywhere, bad input for every command (one line, non-zero, nothing sent), the deployment
 * file rules, and the `resolve` seam with injected pipelines. The subprocess path is covered by
 * e2e.test.ts; this file keeps the many small cases fast.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { network } from "hardhat";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { formatEther, keccak256, parseEther, toBytes, type Address, type Hex } from "viem";
import { createReferenceAgent } from "../../../agents/reference/server.js";
import { buildRegistrationFile, encodeRegistrationDataUri } from "../../../workflow/registration/index.js";
import { privateKeyToAccount } from "viem/accounts";
import { createMarket, joinMarket, registerAgent, requestResolution } from "../../../workflow/chain/actions.js";
import { withKey, type ChainContext } from "../../../workflow/chain/clients.js";
import { readMarketState } from "../../../workflow/chain/snapshot.js";
import { buildProgram, run } from "../../../cli/program.js";
import type { ResolvePipeline } from "../../../cli/shared/resolve-pipeline.js";
import { hardhatKey } from "./helpers/keys.js";
import { createCliHarness, type CliHarness } from "./helpers/inprocess.js";
import { startRpcBridge } from "./helpers/rpc-bridge.js";

type Provider = { request(args: { method: string; params?: unknown[] }): Promise<unknown> };

let h: CliHarness;
let provider: Provider;
let dir: string;
let owner: ChainContext;
let market: Address;
let identity: Address;
const cresolver: CliHarness["cresolver"] = (args, options) => h.cresolver(args, options);
const refuses: CliHarness["refuses"] = (args, pattern, options) => h.refuses(args, pattern, options);
const now = () => h.now();

async function frozenMarket(): Promise<bigint> {
  const { marketId } = await createMarket(owner, market, "Frozen?", (await now()) + 100n, parseEther("1"));
  const worker = withKey(owner, hardhatKey(1));
  const { agentId } = await registerAgent(worker, identity, "data:,x");
  await joinMarket(worker, market, marketId, agentId, parseEther("0.01"));
  await provider.request({ method: "evm_increaseTime", params: [101] });
  await provider.request({ method: "evm_mine", params: [] });
  await requestResolution(owner, market, marketId);
  return marketId;
}

beforeAll(async () => {
  h = await createCliHarness();
  ({ provider, dir, owner, market, identity } = h);
});

afterAll(async () => h?.close());

describe("help", () => {
  it("every command has --help (exit 0, usage on stdout)", async () => {
    const program = await buildProgram({ stdout: () => undefined, stderr: () => undefined, env: {}, cwd: dir });
    const paths: string[][] = [[]];
    const walk = (cmd: typeof program, prefix: string[]) => {
      for (const sub of cmd.commands) {
        paths.push([...prefix, sub.name()]);
        walk(sub, [...prefix, sub.name()]);
      }
    };
    walk(program, []);
    expect(paths.map((p) => p.join(" "))).toEqual(
      expect.arrayContaining([
        "deploy",
        "agent register",
        "agent set-wallet",
        "agent serve",
        "market create",
        "market join",
        "market request-resolution",
        "market show",
        "market dispute",
        "market vote",
        "market finalize",
        "market cancel",
        "market publish-feedback",
        "market retry-feedback",
        "market settings",
        "market withdraw",
        "bet place",
        "bet claim",
        "bet position",
        "resolve",
        "market list",
        "agent list",
        "agent show",
        "owed",
        "owner resolver queue",
        "owner resolver remove",
        "owner defaults",
        "owner arbiter queue",
        "owner arbiter apply",
        "owner cre show",
        "owner cre queue",
        "owner cre apply",
        "owner cre cancel",
      ]),
    );
    for (const path of paths) {
      let stdout = "";
      const code = await run([...path, "--help"], {
        stdout: (s) => (stdout += s),
        stderr: () => undefined,
        env: {},
        cwd: dir,
      });
      expect(code, path.join(" ")).toBe(0);
      expect(stdout).toMatch(/^Usage: cresolver/);
    }
  });
});

describe("bad input is refused before anything is sent", () => {
  it("every command, one line naming the problem, and no transaction from the key", async () => {
    const key = hardhatKey(2);
    const address = privateKeyToAccount(key).address;
    const nonce = await owner.publicClient.getTransactionCount({ address });
    const { marketId: open } = await createMarket(owner, market, "Open?", (await now()) + 3600n, parseEther("0.1"));
    const o = { key };
    // global configuration
    await refuses(["market", "status", "1"], /--rpc-url \/ RPC_URL must be an http\(s\) URL/, {
      env: { RPC_URL: "ftp://x" },
    });
    await refuses(["market", "withdraw"], /--private-key \/ PRIVATE_KEY must be 32 bytes of hex/, {
      key: "0x12" as Hex,
    });
    await refuses(["market", "withdraw"], /PRIVATE_KEY is not a valid secp256k1 private key/, {
      key: `0x${"00".repeat(32)}`,
    });
    await refuses(["market", "withdraw"], /sends a transaction: pass --private-key or set PRIVATE_KEY/);
    await refuses(["--market", "0x123", "market", "status", "1"], /--market is not an address/);
    await refuses(["--deployment", "nope.json", "market", "status", "1"], /deployment file .*nope.json not found/);
    writeFileSync(
      join(dir, "bad.json"),
      JSON.stringify({ network: "x", chainId: 31337, deployer: "0x1", contracts: {} }),
    );
    await refuses(
      ["--deployment", "bad.json", "market", "status", "1"],
      /deployment file .*bad.json is invalid: deployer: must be an address/,
    );
    writeFileSync(
      join(dir, "other.json"),
      JSON.stringify({
        network: "x",
        chainId: 5,
        deployer: market,
        contracts: {
          IdentityRegistry: { address: market },
          ReputationRegistry: { address: market },
          ResolutionMarket: { address: market },
        },
      }),
    );
    await refuses(
      ["--deployment", "other.json", "market", "status", "1"],
      /is for chain 5, but the RPC endpoint is on chain 31337/,
    );
    await refuses(["frobnicate"], /unknown command 'frobnicate'/);
    await refuses(["market", "status"], /missing required argument 'marketId'/);
    await refuses(["market", "status", "1", "--bogus"], /unknown option '--bogus'/);
    // deploy
    await refuses(["deploy", "--resolver", "0xnope"], /--resolver is not an address/, o);
    await refuses(["deploy", "--reputation", market], /give both --identity and --reputation/, o);
    await refuses(
      ["--identity", identity, "deploy", "--reputation", market, "--own-registries"],
      /--own-registries conflicts/,
      o,
    );
    await refuses(["deploy", "--network-name", "../etc"], /--network-name must be letters/, o);
    await refuses(
      ["--identity", identity, "deploy", "--reputation", "0x000000000000000000000000000000000000bEEF"],
      /no contract at the reputation registry address/,
      o,
    );
    // agent register
    await refuses(["agent", "register", "--endpoint", "https://a.example"], /--name is required/, o);
    await refuses(["agent", "register", "--name", "A"], /--endpoint is required/, o);
    await refuses(
      ["agent", "register", "--name", "A", "--endpoint", "ftp://a.example"],
      /--endpoint has scheme ftp: \(want http or https\)/,
      o,
    );
    await refuses(
      ["agent", "register", "--name", "A", "--endpoint", "https://user:pw@a.example"],
      /--endpoint contains credentials/,
      o,
    );
    await refuses(
      ["agent", "register", "--name", "A", "--endpoint", "https://a.example", "--protocol", "Bad Proto"],
      /option '--protocol <name>' argument 'Bad Proto' is invalid/,
      o,
    );
    // A typo is refused at registration (issue 13 item 15), naming the protocols the resolver speaks.
    await refuses(
      ["agent", "register", "--name", "A", "--endpoint", "https://a.example", "--protocol", "cresolvr"],
      /argument 'cresolvr' is invalid. Allowed choices are .*cresolver.*factagora/,
      o,
    );
    await refuses(
      ["agent", "register", "--uri", "http://a.example/agent.json"],
      /--uri must be an https:\/\/, ipfs:\/\/ or data: URI/,
      o,
    );
    await refuses(["agent", "register", "--uri", "ipfs://bafy", "--name", "A"], /either --uri or --name/, o);
    // agent set-wallet
    await refuses(["agent", "set-wallet", "abc"], /agentId must be a non-negative integer/, o);
    await refuses(["agent", "set-wallet", "0"], /give the new wallet's key with --wallet-key or AGENT_WALLET_KEY/, o);
    await refuses(
      ["agent", "set-wallet", "0", "--wallet-key", "zz"],
      /--wallet-key \/ AGENT_WALLET_KEY must be 32 bytes of hex/,
      o,
    );
    await refuses(["agent", "set-wallet", "4242", "--wallet-key", hardhatKey(9)], /unknown agent 4242/, o);
    // agent serve
    await refuses(["agent", "serve", "--port", "70000"], /--port must be an integer in 0..65535/);
    await refuses(["agent", "serve", "--persona", "pirate"], /option '--persona <name>' argument 'pirate' is invalid/);
    await refuses(["agent", "serve", "--mode", "llm"], /--mode llm needs CRESOLVER_AGENT_MODEL/);
    // market create
    await refuses(
      ["market", "create", "--question", " ", "--deadline", "+1h", "--reward", "1"],
      /--question is empty/,
      o,
    );
    await refuses(
      ["market", "create", "--question", "x".repeat(1025), "--deadline", "+1h", "--reward", "1"],
      /--question is 1025 bytes, the market accepts at most 1024/,
      o,
    );
    await refuses(
      ["market", "create", "--question", "Q?", "--deadline", "tomorrow", "--reward", "1"],
      /--deadline must be Unix seconds, an ISO date .* or \+<n>s\|m\|h\|d/,
      o,
    );
    await refuses(
      ["market", "create", "--question", "Q?", "--deadline", "1000", "--reward", "1"],
      /--deadline 1970-01-01T00:16:40.000Z is not in the future \(now 20[2-9]\d-/,
      o,
    );
    // +0m: not in the future, and never a 1970 "chain time" (issue 13 item 15).
    const zero = await cresolver(["market", "create", "--question", "Q?", "--deadline", "+0m", "--reward", "1"], o);
    expect(zero.code).toBe(2);
    expect(zero.stderr).toMatch(/--deadline \+0m is not in the future/);
    expect(zero.stderr).not.toMatch(/1970/);
    // settings
    await refuses(
      ["market", "create", "--question", "Q?", "--deadline", "+1h", "--reward", "1", "--admission", "vip"],
      /argument 'vip' is invalid/,
      o,
    );
    await refuses(
      ["market", "create", "--question", "Q?", "--deadline", "+1h", "--reward", "1", "--admission", "track-record"],
      /needs --min-settled and\/or --min-correctness/,
      o,
    );
    await refuses(
      ["market", "create", "--question", "Q?", "--deadline", "+1h", "--reward", "1", "--min-settled", "3"],
      /need --admission track-record/,
      o,
    );
    await refuses(
      [
        "market",
        "create",
        "--question",
        "Q?",
        "--deadline",
        "+1h",
        "--reward",
        "1",
        "--admission",
        "track-record",
        "--min-correctness",
        "101",
      ],
      /--min-correctness must be an integer from 0 to 100/,
      o,
    );
    await refuses(
      ["market", "create", "--question", "Q?", "--deadline", "+1h", "--reward", "1", "--admission", "allow-list"],
      /needs --allow/,
      o,
    );
    await refuses(
      [
        "market",
        "create",
        "--question",
        "Q?",
        "--deadline",
        "+1h",
        "--reward",
        "1",
        "--admission",
        "allow-list",
        "--allow",
        "1,1",
      ],
      /lists an agent id twice/,
      o,
    );
    await refuses(
      ["market", "create", "--question", "Q?", "--deadline", "+1h", "--reward", "1", "--allow", "1"],
      /--allow needs --admission allow-list/,
      o,
    );
    await refuses(
      ["market", "create", "--question", "Q?", "--deadline", "+1h", "--reward", "1", "--dispute-window", "5m"],
      /--dispute-window must be from 10m to 30d/,
      o,
    );
    await refuses(
      ["market", "create", "--question", "Q?", "--deadline", "+1h", "--reward", "1", "--max-workers", "101"],
      /--max-workers must be an integer from 1 to 100/,
      o,
    );
    await refuses(
      [
        "market",
        "create",
        "--question",
        "Q?",
        "--deadline",
        "+1h",
        "--reward",
        "1",
        "--arbiter",
        "0x000000000000000000000000000000000000bEEF",
      ],
      /--arbiter 0x000000000000000000000000000000000000bEEF is not a contract/,
      o,
    );
    await refuses(
      ["market", "create", "--question", "Q?", "--deadline", "+400d", "--reward", "1"],
      /more than 365 days ahead/,
      o,
    );
    await refuses(
      ["market", "create", "--question", "Q?", "--deadline", "+1h", "--reward", "0"],
      /--reward must be more than 0/,
      o,
    );
    await refuses(
      ["market", "create", "--question", "Q?", "--deadline", "+1h", "--reward", "1e18"],
      /--reward must be an amount in ETH/,
      o,
    );
    await refuses(
      ["market", "create", "--question", "Rich?", "--deadline", "+1h", "--reward", "1000000"],
      /insufficient funds, 0x[0-9a-fA-F]{40} holds [0-9.]+ ETH and this needs 1000000 ETH plus gas/,
      o,
    );
    await refuses(
      [
        "--market",
        "0x000000000000000000000000000000000000bEEF",
        "market",
        "create",
        "--question",
        "Q?",
        "--deadline",
        "+1h",
        "--reward",
        "1",
      ],
      /no contract at market address/,
      o,
    );
    // market join
    await refuses(
      ["market", "join", "x1", "--agent-id", "0", "--stake", "0.01"],
      /marketId must be a non-negative integer/,
      o,
    );
    await refuses(
      ["market", "join", "1", "--agent-id", "-1", "--stake", "0.01"],
      /--agent-id must be a non-negative integer/,
      o,
    );
    await refuses(["market", "join", "777", "--agent-id", "0", "--stake", "0.01"], /unknown market 777/, o);
    // ETH in, ETH out (issue 13 item 15).
    const minStake = (await cresolver(["market", "show", String(open)])).json!.minStake as string;
    const below = formatEther(BigInt(minStake) - 1n);
    await refuses(
      ["market", "join", String(open), "--agent-id", "0", "--stake", below],
      new RegExp(
        `insufficient stake: ${below.replace(".", "\\.")} ETH is below market ${open}'s minimum stake ${formatEther(BigInt(minStake)).replace(".", "\\.")} ETH`,
      ),
      o,
    );
    await refuses(["market", "join", String(open), "--agent-id", "4242", "--stake", "0.01"], /unknown agent 4242/, o);
    const { agentId: someoneElses } = await registerAgent(owner, identity, "data:,owned-by-0");
    await refuses(
      ["market", "join", String(open), "--agent-id", String(someoneElses), "--stake", "0.01"],
      new RegExp(`does not control agent ${someoneElses}`),
      o,
    );
    // market request-resolution / status / withdraw
    await refuses(["market", "request-resolution", String(open)], /has not been reached/, o);
    await refuses(["market", "request-resolution", "0"], /unknown market 0/, o);
    await refuses(["market", "status", "99999999999999999999"], /unknown market 99999999999999999999/);
    await refuses(["market", "dispute", String(open), "--claim", "maybe"], /argument 'maybe' is invalid/, o);
    await refuses(["market", "dispute", String(open)], /required option '--claim <verdict>' not specified/, o);
    await refuses(["market", "dispute", String(open), "--claim", "no"], /is Open, not Proposed/, o);
    await refuses(["market", "finalize", String(open)], /is Open, not Proposed/, o);
    await refuses(["market", "vote", String(open), "--verdict", "no"], /is Open, not Disputed/, o);
    await refuses(["market", "cancel", String(open)], /is Open, not ResolutionRequested/, o);
    await refuses(
      ["market", "publish-feedback", String(open)],
      /is Open: its feedback is written when it is finalized/,
      o,
    );
    await refuses(
      ["market", "publish-feedback", String(open), "--max", "0"],
      /--max must be an integer from 1 to 100/,
      o,
    );
    await refuses(["market", "retry-feedback", String(open), "--seat", "x"], /--seat must be an integer/, o);
    await refuses(["market", "withdraw"], /nothing to withdraw/, o);
    // resolve
    await refuses(["resolve", String(open), "--plan", "missing.json"], /--plan .*missing.json: file not found/, o);
    writeFileSync(
      join(dir, "short.json"),
      JSON.stringify({ verdict: "maybe", reports: [], bundleHash: `0x${"11".repeat(32)}` }),
    );
    await refuses(["resolve", String(open), "--plan", "short.json"], /--plan .*short.json is invalid: verdict/, o);
    writeFileSync(
      join(dir, "badhash.json"),
      JSON.stringify({
        verdict: "yes",
        reports: [{ answer: "yes", confidenceBps: 9000, resQuality: 1, srcQuality: 2, analysisDepth: 3 }],
        bundleHash: "0x11",
      }),
    );
    await refuses(["resolve", String(open), "--plan", "badhash.json"], /bundleHash: must be 0x \+ 64 hex digits/, o);
    await refuses(["resolve", String(open)], /is Open, not ResolutionRequested/, o);
    expect(await owner.publicClient.getTransactionCount({ address })).toBe(nonce);
  });

  it("a revert the checks could not foresee is reported decoded (exit 1); a proposal the contract would refuse is refused first (exit 2)", async () => {
    await refuses(
      [
        "market",
        "create",
        "--question",
        "Tiny stake?",
        "--deadline",
        "+1h",
        "--reward",
        "1",
        "--min-stake",
        "0.000000000000000001",
      ],
      /ResolutionMarket.createMarketWith reverted: MinStakeOutOfRange\(value=1\)/,
      { key: hardhatKey(0), code: 1 },
    );
    const marketId = await frozenMarket();
    writeFileSync(
      join(dir, "two-reports.json"),
      JSON.stringify({
        verdict: "yes",
        reports: [0, 1].map(() => ({
          answer: "yes",
          confidenceBps: 9000,
          resQuality: 1,
          srcQuality: 2,
          analysisDepth: 3,
        })),
        bundleHash: `0x${"11".repeat(32)}`,
      }),
    );
    await refuses(
      ["resolve", String(marketId), "--plan", "two-reports.json"],
      /proposal failed after 1 attempt\(s\): market \d+: 2 reports for 1 seats/,
      { key: hardhatKey(0) },
    );
    await refuses(["resolve", String(marketId), "--plan", "two-reports.json"], /is not a resolver active for market/, {
      key: hardhatKey(4),
    });
  });

  it("never prints the key, even when it is the bad value", async () => {
    const secret = `0x${"ab".repeat(31)}zz`;
    const r = await cresolver(["market", "withdraw"], { key: secret as Hex });
    expect(r.code).toBe(2);
    expect(r.stderr).not.toContain("abab");
  });
});

describe("resolve seam", () => {
  it("runs the workflow against real reference agents of three protocols and writes its decision; needs --allow-loopback and the credentials file", async () => {
    const panel = [
      { protocol: "cresolver", path: "", auth: {} },
      { protocol: "factagora", path: "/webhook", auth: { bearerToken: "factagora-test-token-123" } },
      { protocol: "ai-olympics", path: "/webhook", auth: { hmacSecret: "olympics-test-secret-456" } },
    ] as const;
    const agents = await Promise.all(
      panel.map(async (p) => {
        const agent = createReferenceAgent({ protocol: p.protocol, persona: "analyst", auth: p.auth });
        return {
          agent,
          endpoint: `${(await agent.start({ host: "127.0.0.1", port: 0 })).replace(/\/$/, "")}${p.path}`,
        };
      }),
    );
    try {
      const { marketId } = await createMarket(
        owner,
        market,
        "Will the reference panel resolve this market?",
        (await now()) + 100n,
        parseEther("1"),
      );
      const secrets: Record<string, unknown> = {};
      for (const [i, a] of agents.entries()) {
        const worker = withKey(owner, hardhatKey(10 + i));
        const uri = encodeRegistrationDataUri(
          buildRegistrationFile({ name: `panel ${i}`, endpoint: a.endpoint, protocol: panel[i]!.protocol }),
        );
        const { agentId } = await registerAgent(worker, identity, uri);
        secrets[agentId.toString()] = { origin: new URL(a.endpoint).origin, ...panel[i]!.auth };
        await joinMarket(worker, market, marketId, agentId, parseEther("0.01"));
      }
      await provider.request({ method: "evm_increaseTime", params: [101] });
      await provider.request({ method: "evm_mine", params: [] });
      await requestResolution(owner, market, marketId);

      // Without --allow-loopback the destination guard refuses every agent: no quorum, the verdict would be Invalid.
      const dry = await cresolver(["resolve", String(marketId), "--dry-run"], { key: hardhatKey(0) });
      expect(dry.code, dry.stderr).toBe(0);
      expect(dry.json).toMatchObject({
        status: "dry-run",
        verdict: "invalid",
        invalidReason: "no-quorum",
        outcome: { kind: "no-quorum", answered: 0 },
      });

      // Without credentials the Factagora and AI Olympics agents are not asked: quorum 1 of 3 fails.
      const noCreds = await cresolver(["resolve", String(marketId), "--dry-run", "--allow-loopback"], {
        key: hardhatKey(0),
      });
      expect(noCreds.json).toMatchObject({ verdict: "invalid", quorum: { n: 3, answered: 1 } });
      expect((noCreds.json!.workers as { failure: string | null }[]).map((w) => w.failure)).toEqual([
        null,
        "auth",
        "auth",
      ]);

      // A fixable cause is not proposed as Invalid (a refund nobody can undo) without --allow-invalid (issue 13 item 4);
      // the text output names each failed worker and why. Nothing is sent.
      const nonce = await owner.publicClient.getTransactionCount({ address: owner.account!.address });
      const refused = await cresolver(["resolve", String(marketId), "--allow-loopback"], {
        key: hardhatKey(0),
        json: false,
      });
      expect(refused.code).toBe(1);
      expect(refused.stdout).toBe("");
      const lines = refused.stderr.trimEnd().split("\n");
      expect(lines.at(-1)).toMatch(
        /^error: market \d+: not proposing INVALID \(no-quorum\) while workers failed: agent \d+ \(auth\), agent \d+ \(auth\); fix them .* or pass --allow-invalid$/,
      );
      expect(lines.filter((l) => /seat [12] agent \d+: FAILED \(auth: /.test(l))).toHaveLength(2);
      expect(await owner.publicClient.getTransactionCount({ address: owner.account!.address })).toBe(nonce);
      expect((await readMarketState(owner, market, marketId)).statusName).toBe("ResolutionRequested");

      writeFileSync(join(dir, "creds.json"), JSON.stringify(secrets), { mode: 0o600 });
      const r = await cresolver(
        [
          "resolve",
          String(marketId),
          "--allow-loopback",
          "--credentials-file",
          "creds.json",
          "--bundle-out",
          "bundle.json",
          "--bundle-uri",
          "https://bundles.example/x.json",
        ],
        { key: hardhatKey(0) },
      );
      expect(r.code, r.stderr).toBe(0);
      expect(r.json).toMatchObject({ status: "proposed", quorum: { n: 3, answered: 3 }, failedWorkers: [] });
      expect(["yes", "no"]).toContain(r.json!.verdict);
      expect(r.stdout).not.toContain("factagora-test-token-123");
      expect(r.stdout).not.toContain("olympics-test-secret-456");
      const state = await readMarketState(owner, market, marketId);
      expect(state.statusName).toBe("Proposed");
      expect(state.proposal).toMatchObject({ verdict: r.json!.verdict, bundleURI: "https://bundles.example/x.json" });
      // The bundle file holds the exact bytes whose keccak256 was proposed, and no secret.
      const bundle = readFileSync(join(dir, "bundle.json"), "utf8");
      expect(keccak256(toBytes(bundle))).toBe(state.proposal!.bundleHash);
      expect(bundle).not.toContain("factagora-test-token-123");
      expect(bundle).not.toContain("olympics-test-secret-456");
    } finally {
      await Promise.all(agents.map((a) => a.agent.close()));
    }
  });

  it("proposes what an injected pipeline decides (then already-settled); an Invalid verdict without failed workers is proposed", async () => {
    const a = await frozenMarket();
    const seen: bigint[] = [];
    const options: unknown[] = [];
    const pipeline: ResolvePipeline = async ({ marketId, options: o }) => {
      seen.push(marketId);
      options.push(o);
      return {
        verdict: "no",
        reports: [{ answer: "no", confidenceBps: 8000, resQuality: 10, srcQuality: 20, analysisDepth: 30 }],
        bundleHash: `0x${"22".repeat(32)}`,
        failedWorkers: [],
        bundleURI: "https://bundles.example/a.json",
        bundle: { version: 1, marketId },
        summary: { answered: 1 },
      };
    };
    const first = await cresolver(["resolve", String(a), "--allow-loopback", "--bundle-out", "bundle.json"], {
      key: hardhatKey(0),
      pipeline,
    });
    expect(first.json).toMatchObject({
      status: "proposed",
      verdict: "no",
      answered: 1,
      bundleHash: `0x${"22".repeat(32)}`,
    });
    expect(options[0]).toEqual({ allowLoopback: true, allowPrivate: false, evaluator: "rubric" });
    expect(JSON.parse(readFileSync(join(dir, "bundle.json"), "utf8"))).toEqual({ version: 1, marketId: String(a) });
    const second = await cresolver(["resolve", String(a)], { key: hardhatKey(0), pipeline });
    expect(second.json).toMatchObject({ status: "already-settled", marketStatus: "Proposed" });
    expect(seen).toEqual([a]);

    const b = await frozenMarket();
    const tie: ResolvePipeline = async () => ({
      verdict: "invalid",
      invalidReason: "below-threshold",
      reports: [{ answer: "yes", confidenceBps: 5000, resQuality: 1, srcQuality: 1, analysisDepth: 1 }],
      bundleHash: `0x${"33".repeat(32)}`,
      failedWorkers: [],
    });
    const dry = await cresolver(["resolve", String(b), "--dry-run"], { pipeline: tie });
    expect(dry.json).toMatchObject({ status: "dry-run", verdict: "invalid", invalidReason: "below-threshold" });
    const proposed = await cresolver(["resolve", String(b)], { key: hardhatKey(0), pipeline: tie });
    expect(proposed.json).toMatchObject({ status: "proposed", verdict: "invalid" });
    expect((await readMarketState(owner, market, b)).proposal?.verdict).toBe("invalid");

    // With failed workers only --allow-invalid proposes it.
    const c = await frozenMarket();
    const down: ResolvePipeline = async () => ({
      verdict: "invalid",
      invalidReason: "no-quorum",
      reports: [{ answer: "failed", confidenceBps: 0, resQuality: 0, srcQuality: 0, analysisDepth: 0 }],
      bundleHash: `0x${"44".repeat(32)}`,
      failedWorkers: [
        {
          seat: 0,
          agentId: 1n,
          address: privateKeyToAccount(hardhatKey(1)).address,
          kind: "timeout",
          message: "no reply within 30000 ms",
        },
      ],
    });
    await refuses(
      ["resolve", String(c)],
      /not proposing INVALID \(no-quorum\) while workers failed: agent \d+ \(timeout\)/,
      { key: hardhatKey(0), pipeline: down, code: 1 },
    );
    const allowed = await cresolver(["resolve", String(c), "--allow-invalid"], { key: hardhatKey(0), pipeline: down });
    expect(allowed.json).toMatchObject({
      status: "proposed",
      verdict: "invalid",
      failedWorkers: [{ seat: 0, kind: "timeout" }],
    });
  });
});

describe("deploy on a chain with Sepolia's chain id", () => {
  it("names the file sepolia, uses the canonical registries found there, and never overwrites it silently", async () => {
    const sepolia = (await network.create({ override: { chainId: 11155111 } } as never))
      .provider as unknown as Provider;
    const sepoliaBridge = await startRpcBridge(sepolia);
    try {
      const { CANONICAL_REGISTRIES } = await import("../../../workflow/chain/deploy.js");
      // Detection only needs code at the addresses; the full flow through real registries there is in e2e.test.ts.
      for (const a of Object.values(CANONICAL_REGISTRIES.testnet))
        await sepolia.request({ method: "hardhat_setCode", params: [a, "0x00"] });
      const env = { RPC_URL: sepoliaBridge.url };
      // The deployer as sole arbiter is refused on a public chain id unless asked for (watch-uma.test.ts tests the refusal).
      const first = await cresolver(["deploy", "--allow-deployer-arbiter"], { key: hardhatKey(0), env });
      expect(first.code, first.stderr).toBe(0);
      // The printed path is absolute (issue 13 item 15), never relative to wherever the command ran.
      expect(first.json).toMatchObject({
        network: "sepolia",
        chainId: 11155111,
        registries: "canonical",
        file: join(dir, "deployments/sepolia.json"),
      });
      expect(first.json!.contracts).toMatchObject({
        IdentityRegistry: { address: CANONICAL_REGISTRIES.testnet.identityRegistry, source: "existing" },
      });
      await refuses(
        ["deploy", "--allow-deployer-arbiter"],
        new RegExp(
          `${join(dir, "deployments/sepolia.json").replace(/[.]/g, "\\.")} already exists for chain 11155111: pass --force`,
        ),
        { key: hardhatKey(0), env },
      );
      const forced = await cresolver(["deploy", "--force", "--own-registries", "--allow-deployer-arbiter"], {
        key: hardhatKey(0),
        env,
      });
      expect(forced.json).toMatchObject({ network: "sepolia", registries: "own" });
      // The file now names our registries, and commands pick it for this chain by default.
      const status = await cresolver(["market", "status", "1"], { env });
      expect(status.stderr).toMatch(/unknown market 1: no such market at 0x[0-9a-fA-F]{40}/);
    } finally {
      await sepoliaBridge.close();
    }
  });
});
