/**
 * Real-chain parity with history (issue 22): on Hardhat's in-process chain served over HTTP (the real
 * IdentityRegistry, ReputationRegistry and ResolutionMarket), 30 markets are finalized by a 7-agent panel with two
 * colluders (signed seats, the `MarketRecorded` hash chain), then a new market of the same panel is requested, its
 * reference agents on loopback signing their answers. Three resolvers decide it:
 *
 * - `cresolver resolve --dry-run` (the CLI in-process; the record from the chain's logs),
 * - `cresolver daemon --don-mode` (the CLI in-process; its index's record, its own relayed answers), which proposes,
 * - the CRE handler on the SDK's test runtime, configured with the daemon's `/answers` and `/track-record`, its two
 *   Multicall3 reads answered with the chain's own `eth_call` results at the request block.
 *
 * All three give the same verdict and posterior over the same 30-market history; the daemon and the DON run the same
 * stages (relay, no challenge round at 5 HTTP calls) and give the same bundle hash — the one the daemon proposed.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, expect } from "vitest";
import { getAddress, keccak256, toHex, type Abi, type Address, type Hex } from "viem";
import { privateKeyToAccount } from "viem/accounts";
import type { AnswerEngine, Finding } from "../../../agents/kit/answer-engine.js";
import { colludedHistory } from "../../../cre/test/history.js";
import { run as runCli } from "../../../cli/program.js";
import { identityRegistryAbi, resolutionMarketAbi } from "../../../workflow/chain/abis.js";
import { connect, type ChainContext } from "../../../workflow/chain/clients.js";
import { finalize } from "../../../workflow/chain/lifecycle.js";
import { answerTypedData } from "../../../workflow/core/answer-signature.js";
import type { WorkerReport } from "../../../workflow/core/types.js";
import { getMarketConfig } from "../../../workflow/chain/market-reads.js";
import { sendContractTx } from "../../../workflow/chain/writer.js";
import { encodeReport, VERDICT_CODE } from "../../../workflow/settle/reports.js";
import { startAgent, stopAll } from "../../helpers/agents.js";
import { getJson, waitFor } from "../../helpers/daemon/chain.js";
import { hardhatKey, startPanelChain, type PanelChain, type PanelWorker } from "../../helpers/daemon/panel.js";

const CRE = "../../../cre/test/";
const REPO = fileURLToPath(new URL("../../../", import.meta.url));
type SdkTest = (title: string, fn: () => Promise<void>) => void;
const { test: sdkTest } = (await import(/* @vite-ignore */ "@chainlink/cre-sdk/test")) as unknown as { test: SdkTest };
type Lookup = (target: Hex, data: Hex) => { success: boolean; returnData: Hex };
type Agent = (path: string, body: unknown) => { status: number; headers: Record<string, string>; body: string };
interface Mocks {
  installMocks(source: Lookup, agents: Map<string, Agent>): { chainReads: number; http: { url: string }[] };
  CHAIN_SELECTOR_NAME: string;
}
interface Summary {
  status: string;
  reason?: string;
  verdict: string;
  bundleHash: Hex;
  bundle: string;
  httpCalls: number;
  chainReads: number;
}
interface Run {
  requestLog(market: { market: Address; marketId: bigint }): unknown;
  runHandler(config: Record<string, unknown>, log: unknown): Promise<{ summary: Summary }>;
}
interface BundleDecision {
  decision: { verdict: string; posterior: number };
  estimates: { history: { markets: number }; agents: unknown[] };
  workers: { signature?: { status: string; signer?: string } }[];
}

const HISTORY = 30;
/** Agents 6 and 7 (owners 6, 7) always answered against the outcome, with high confidence. */
const ANSWERS = [true, true, true, true, true, false, false];
const QUESTION = "Will the 2026 official inflation figure exceed 3%?";

/** An engine that always answers `determination` at `confidence` (the stand-in for an agent's LLM). */
function fixed(determination: boolean, confidence: number, tag: string): AnswerEngine {
  return {
    mode: "offline",
    persona: "analyst",
    async investigate(): Promise<Finding> {
      return {
        determination,
        confidence,
        evidence: `Agent ${tag}: the statistics office published the figure on 2026-01-15; it ${determination ? "exceeds" : "does not exceed"} the threshold, confirmed by two reports.`,
        sources: [`https://stats.example.org/release/${tag}`],
        observations: [determination ? "exceeds" : "does not exceed"],
        keyTerms: ["inflation"],
      };
    },
    async defend(_q, f, challenges) {
      return challenges.map(() => `I keep ${f.determination ? "YES" : "NO"}: the release table supports it.`);
    },
  };
}

/** Deploys a compiled contract from `artifacts/` (a test fixture: not in the generated ABIs). */
async function deployArtifact(ctx: ChainContext, path: string, args: readonly unknown[]): Promise<Address> {
  const { abi, bytecode } = JSON.parse(readFileSync(join(REPO, "artifacts", path), "utf8")) as {
    abi: Abi;
    bytecode: Hex;
  };
  const { walletClient, account } = ctx;
  if (walletClient === undefined || account === undefined) throw new Error("deploying needs a key");
  const hash = await walletClient.deployContract({ abi, bytecode, args, account, chain: walletClient.chain });
  const receipt = await ctx.publicClient.waitForTransactionReceipt({ hash });
  if (receipt.contractAddress == null) throw new Error(`${path} was not deployed`);
  return receipt.contractAddress;
}

let chain: PanelChain;
let resolver: ChainContext;
let dir: string;
const workers: PanelWorker[] = [];

/** The 30 finalized markets: created and seated, requested, proposed with every seat signed by its owner, finalized. */
async function buildHistory(): Promise<void> {
  const entries = colludedHistory(HISTORY);
  const ids: bigint[] = [];
  for (const [k] of entries.entries()) ids.push(await chain.openMarket(`History market ${k}?`, workers));
  for (const id of ids) await chain.requestResolution(id);
  const { bond } = await getMarketConfig(resolver, chain.market, ids[0] ?? 0n);
  for (const [k, entry] of entries.entries()) {
    const marketId = ids[k] ?? 0n;
    const reports = await Promise.all(
      entry.seats.map(async (seat, i): Promise<WorkerReport> => {
        const answer = seat.answer === 3 ? "yes" : "no";
        const replyHash = keccak256(toHex(`history ${k} seat ${i}`));
        const signature = await privateKeyToAccount(hardhatKey(i + 1)).signTypedData(
          answerTypedData({
            chainId: resolver.chainId,
            market: chain.market,
            marketId,
            agentId: workers[i]?.agentId ?? 0n,
            answer,
            confidenceBps: seat.confidenceBps,
            replyHash,
          }),
        );
        return {
          answer,
          confidenceBps: seat.confidenceBps,
          resQuality: 50,
          srcQuality: 50,
          analysisDepth: 50,
          replyHash,
          signature,
        };
      }),
    );
    // Straight to proposeResolution (the settler's pre-checks are tested elsewhere; here they only cost time).
    await sendContractTx(resolver, {
      address: chain.market,
      abi: resolutionMarketAbi,
      functionName: "proposeResolution",
      args: [
        marketId,
        VERDICT_CODE[entry.outcome ? "yes" : "no"],
        reports.map(encodeReport),
        keccak256(toHex(`bundle ${k}`)),
        "",
      ],
      value: bond,
    });
  }
  await chain.advance(8 * 24 * 3600);
  // In market order, so the record's entries follow it (any order would do for the parity).
  for (const id of ids) await finalize(resolver, chain.market, id);
}

beforeAll(async () => {
  chain = await startPanelChain();
  resolver = await connect({ rpcUrl: chain.rpcUrl, privateKey: chain.resolverKey });
  dir = mkdtempSync(join(tmpdir(), "cresolver-history-parity-"));
  for (const [i, yes] of ANSWERS.entries()) {
    const owner = i + 1;
    const agent = await startAgent({
      protocol: "cresolver",
      engine: fixed(yes, yes ? 0.7 : 0.95, `h${i}`),
      signingKey: hardhatKey(owner),
    });
    const w = await chain.registerAgent(owner);
    await w.setEndpoint(agent.url, "cresolver");
    workers.push(w);
  }
  await buildHistory();
}, 300_000);

afterAll(async () => {
  await stopAll();
  await chain?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

sdkTest(
  "a market with 30 finalized markets behind it: `cresolver resolve`, `cresolver daemon --don-mode` and the CRE handler give the same verdict and posterior; the daemon's proposal and the DON's report carry the same bundle hash",
  async () => {
    // An 8th seat whose agent is owned by a real ERC-1271 wallet contract (SignerWallet1271, approving its signer
    // key's ECDSA signatures): its relayed answer recovers to neither wallet nor owner, so the DON asks the contract.
    const ownerKey = hardhatKey(8);
    const signerKey = privateKeyToAccount(ownerKey).address;
    const contractAgent = await startAgent({
      protocol: "cresolver",
      engine: fixed(true, 0.7, "h7"),
      signingKey: ownerKey,
    });
    const w8 = await chain.registerAgent(8);
    await w8.setEndpoint(contractAgent.url, "cresolver");
    const marketId = await chain.openMarket(QUESTION, [...workers, w8]);
    const holder = await connect({ rpcUrl: chain.rpcUrl, privateKey: ownerKey });
    const wallet1271 = await deployArtifact(
      holder,
      "test/contracts/identity/IdentityFixtures.sol/SignerWallet1271.json",
      [signerKey],
    );
    await sendContractTx(holder, {
      address: chain.identity,
      abi: identityRegistryAbi,
      functionName: "transferFrom",
      args: [signerKey, wallet1271, w8.agentId],
    });
    const requestBlock = await chain.requestResolution(marketId);
    const env = { RPC_URL: chain.rpcUrl, PRIVATE_KEY: chain.resolverKey };
    const cli = (args: string[], signal?: AbortSignal) => {
      const out = { stdout: "", stderr: "" };
      const code = runCli(["--json", "--market", chain.market, ...args], {
        stdout: (s) => (out.stdout += s),
        stderr: (s) => (out.stderr += s),
        env,
        cwd: dir,
        ...(signal !== undefined ? { signal } : {}),
      });
      return { out, code };
    };

    // 1. `cresolver resolve --dry-run`: direct asks (and challenges), the record from the chain's logs.
    const bundleOut = join(dir, "resolve-bundle.json");
    const resolved = cli(["resolve", marketId.toString(), "--dry-run", "--allow-loopback", "--bundle-out", bundleOut]);
    expect(await resolved.code, resolved.out.stderr).toBe(0);
    const viaResolve = JSON.parse(readFileSync(bundleOut, "utf8")) as BundleDecision;

    // 2. `cresolver daemon --don-mode`: proposes from its own relayed answers, in the DON's limits.
    const stop = new AbortController();
    const daemon = cli(
      [
        "daemon",
        "--don-mode",
        "--db",
        join(dir, "daemon.sqlite"),
        "--api-port",
        "0",
        "--confirmations",
        "0",
        "--poll-interval-ms",
        "50",
        "--start-block",
        "0",
        "--allow-loopback",
        "--no-publish",
      ],
      stop.signal,
    );
    let api = "";
    let proposed: Hex;
    try {
      api = await waitFor(
        () => {
          for (const line of daemon.out.stderr.split("\n"))
            if (line.includes('"daemon started"')) return (JSON.parse(line) as { api: string }).api;
          return undefined;
        },
        "the daemon to start",
        60_000,
      );
      proposed = await waitFor(
        async () => {
          const m = await chain.getMarket(marketId);
          return /^0x0+$/.test(m.bundleHash) ? undefined : m.bundleHash;
        },
        "the daemon to propose",
        120_000,
      );
    } catch (error) {
      stop.abort();
      await daemon.code;
      throw new Error(`${String(error)}\n${daemon.out.stderr.slice(-3000)}`);
    }
    const answersText = await (await fetch(`${api}/answers/${marketId}`)).text();
    const { recordCount } = await chain.publicClient.readContract({
      address: chain.market,
      abi: resolutionMarketAbi,
      functionName: "getMarket",
      args: [marketId],
    });
    const recordText = await (await fetch(`${api}/track-record?window=1&count=${recordCount}`)).text();
    const viaDaemon = await getJson<BundleDecision>(`${api}/bundles/${proposed}.json`);
    // Aborting the run is how main.ts passes on Ctrl-C: the daemon stops gracefully and exits 130.
    stop.abort();
    expect(await daemon.code, daemon.out.stderr.slice(-2000)).toBe(130);

    // 3. The CRE handler (SDK test runtime): the same documents, the chain's answers at the request block.
    const [{ installMocks, CHAIN_SELECTOR_NAME }, { requestLog, runHandler }] = await Promise.all([
      import(/* @vite-ignore */ `${CRE}mocks.js`) as Promise<Mocks>,
      import(/* @vite-ignore */ `${CRE}run.js`) as Promise<Run>,
    ]);
    const served: Agent = (path) => ({
      status: 200,
      headers: { "content-type": "application/json" },
      body: path.startsWith("/answers/") ? answersText : recordText,
    });
    const known = new Map<string, { success: boolean; returnData: Hex }>();
    const missed = new Set<string>();
    const lookup: Lookup = (target, data) => {
      const key = `${target.toLowerCase()} ${data}`;
      const hit = known.get(key);
      if (hit !== undefined) return hit;
      missed.add(key);
      return { success: false, returnData: "0x" };
    };
    const config = {
      chainSelectorName: CHAIN_SELECTOR_NAME,
      chainId: resolver.chainId,
      marketAddress: chain.market,
      receiverAddress: chain.accounts[18],
      readAt: "latest",
      trackRecord: { url: `${api}/track-record?window=1&count={count}` },
      answerRelay: { url: `${api}/answers/{marketId}` },
    };
    // The host cannot wait for an RPC inside a call: run, fetch the sub-calls it missed at the request block, rerun.
    let don: Summary | undefined;
    for (let pass = 0; pass < 5 && don === undefined; pass++) {
      installMocks(lookup, new Map([[new URL(api).host, served]]));
      const out = await runHandler(config, requestLog({ market: chain.market, marketId })).catch(() => undefined);
      if (missed.size === 0) {
        don = out?.summary;
        break;
      }
      for (const key of missed) {
        const [to, data] = key.split(" ") as [Address, Hex];
        known.set(
          key,
          await chain.publicClient.call({ to, data, blockNumber: requestBlock }).then(
            (r) => ({ success: true, returnData: r.data ?? "0x" }),
            () => ({ success: false, returnData: "0x" as Hex }),
          ),
        );
      }
      missed.clear();
    }
    if (don === undefined) throw new Error("the CRE handler did not complete");

    const viaDon = JSON.parse(don.bundle) as BundleDecision;
    expect(viaResolve.estimates.history.markets).toBe(HISTORY);
    for (const side of [viaDaemon, viaDon]) {
      expect(side.decision.verdict).toBe(viaResolve.decision.verdict);
      expect(side.decision.posterior).toBe(viaResolve.decision.posterior);
      expect(side.estimates).toEqual(viaResolve.estimates);
    }
    // Two reads, plus the one ERC-1271 read; the contract-owned seat is signed on every side, by the wallet contract.
    expect(don).toMatchObject({
      status: "proposed",
      verdict: viaResolve.decision.verdict,
      httpCalls: 2,
      chainReads: 3,
    });
    expect((JSON.parse(answersText) as { answers: unknown[] }).answers).toHaveLength(8);
    for (const side of [viaResolve, viaDaemon, viaDon])
      expect(side.workers[7]?.signature).toMatchObject({ status: "signed", signer: getAddress(wallet1271) });
    expect(don.bundleHash).toBe(proposed);
  },
);
