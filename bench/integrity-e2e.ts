/**
 * bench:integrity:e2e — the end-to-end sample of bench:integrity: the same simulated agents, answering over real
 * HTTP, resolved by the real daemon on a real chain. Hardhat's in-process chain served on loopback, the compiled
 * IdentityRegistry + ReputationRegistry + ResolutionMarket (+ a one-member CommitteeArbiter), the production daemon
 * (`startResolverDaemon`), one loopback server of the cresolver protocol whose agents answer from the simulator's
 * seeded streams (same truths, accuracies, colluders, confidences and evidence as bench/sim/simulate.ts). Markets
 * are created, joined, requested, proposed and finalized one after another (10-minute window, chain clock moved
 * past it), so each decision reads the on-chain track record of the markets before it.
 *
 *   npm run bench:integrity:e2e [-- --scenario 7-agents --seed 1 --markets 16 --out integrity-e2e.json]
 *
 * Compares every market's on-chain result (Resolved = its outcome, Invalid = unresolved) with the in-process
 * decision of the same streams (simulate()) and writes bench/results/integrity-e2e.json.
 */
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { network } from "hardhat";
import {
  createPublicClient,
  createTestClient,
  createWalletClient,
  http,
  parseAbi,
  parseEther,
  parseEventLogs,
  type Abi,
  type Address,
  type Hex,
} from "viem";
import { privateKeyToAccount, type LocalAccount } from "viem/accounts";
import { hardhat } from "viem/chains";
import { startResolverDaemon } from "../daemon/host.js";
import { createLogger } from "../daemon/index.js";
import { marketGovernanceAbi, resolutionMarketAbi as marketAbi } from "../workflow/chain/abis.js";
import { localDevKey } from "../workflow/chain/dev-accounts.js";
import { DEFAULT_THRESHOLD_BPS } from "../workflow/core/vote.js";
import { buildRegistrationFile, encodeRegistrationDataUri } from "../workflow/registration/index.js";
import { createRng } from "./sim/prng.js";
import { scenarios, type Scenario } from "./sim/scenarios.js";
import { simulate, type Call } from "./sim/simulate.js";
import { evidenceFor } from "./sim/text.js";

const args = process.argv.slice(2);
const opt = (name: string, fallback: string): string =>
  args.includes(`--${name}`) ? args[args.indexOf(`--${name}`) + 1] : fallback;
const SCENARIO = opt("scenario", "7-agents");
const SEED = Number(opt("seed", "1"));
const MARKETS = Number(opt("markets", "16"));
/** Output file, relative to bench/results (another name keeps the committed sample). */
const OUT = opt("out", "integrity-e2e.json");
const WINDOW = 600; // MIN_DISPUTE_WINDOW
const POOL = parseEther("1");
const STAKE = parseEther("0.01");
const identityAbi = parseAbi([
  "function register(string agentURI) returns (uint256 agentId)",
  "event Registered(uint256 indexed agentId, string agentURI, address indexed owner)",
]);
const here = dirname(fileURLToPath(import.meta.url));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

interface Answer {
  determination: boolean;
  confidence: number;
  evidence: string;
  sources: string[];
}

/**
 * The simulator's answer streams (bench/sim/simulate.ts draws them in this order: truth stream, then per agent
 * accuracy draw, confidence, evidence). Kept in step by hand; the market-by-market agreement checks it.
 */
function streams(s: Scenario, seed: number, markets: number): { truth: boolean; answers: Map<bigint, Answer> }[] {
  const rng = createRng(seed);
  const truthRng = rng.fork("truth");
  const agentRng = new Map(s.agents.map((a) => [a.id, rng.fork(`agent-${a.id}`)]));
  const out: { truth: boolean; answers: Map<bigint, Answer> }[] = [];
  for (let i = 0; i < markets; i++) {
    const truth = truthRng.chance(0.5);
    const answers = new Map<bigint, Answer>();
    for (const a of s.agents.filter((x) => x.joinAt <= i)) {
      const r = agentRng.get(a.id)!;
      const right = a.kind === "honest" ? r.chance(a.accuracy) : false;
      const determination = right ? truth : !truth;
      const confidence = a.kind === "honest" ? Math.min(0.99, Math.max(0.5, a.accuracy + 0.05 * r.normal())) : 0.95;
      answers.set(a.id, { determination, confidence, ...evidenceFor(a.style, determination, i, r) });
    }
    out.push({ truth, answers });
  }
  return out;
}

/** One loopback server for the panel: POST /a/<simAgentId>/a2a/{resolve,challenge}; answers by on-chain market id. */
function startAgents(
  answerFor: (agent: bigint, marketId: bigint) => Answer | undefined,
): Promise<{ server: Server; base: string }> {
  const server = createServer((req, res) => {
    let body = "";
    req.on("data", (c: Buffer) => (body += c.toString("utf8")));
    req.on("end", () => {
      const m = /^\/a\/(\d+)\/a2a\/(resolve|challenge)$/.exec(req.url ?? "");
      let parsed: { market_id?: number | string; challenges?: unknown[] } = {};
      try {
        parsed = JSON.parse(body || "{}");
      } catch {
        /* answered 400 below */
      }
      const answer =
        m && parsed.market_id !== undefined ? answerFor(BigInt(m[1]), BigInt(parsed.market_id)) : undefined;
      if (!m || req.method !== "POST" || !answer) return void res.writeHead(m ? 400 : 404).end();
      const reply =
        m[2] === "resolve"
          ? answer
          : {
              responses: (parsed.challenges ?? []).map(
                () => `I stand by ${answer.determination ? "YES" : "NO"}: ${answer.evidence.slice(0, 200)}`,
              ),
            };
      res.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify(reply));
    });
  });
  return new Promise((resolve) =>
    server.listen(0, "127.0.0.1", () =>
      resolve({ server, base: `http://127.0.0.1:${(server.address() as { port: number }).port}` }),
    ),
  );
}

function artifact(path: string): { abi: Abi; bytecode: Hex } {
  return JSON.parse(readFileSync(join(here, "..", "artifacts", "contracts", path), "utf8")) as {
    abi: Abi;
    bytecode: Hex;
  };
}

async function main(): Promise<void> {
  const t0 = performance.now();
  const scenario = scenarios().find((s) => s.name === SCENARIO);
  if (!scenario) throw new Error(`unknown scenario ${SCENARIO}`);
  if (scenario.disputeRate) throw new Error("the e2e sample has no disputer: pick a scenario without disputes");
  if (scenario.agents.some((a) => a.style === "terse"))
    throw new Error("terse answers have no source, which the cresolver protocol refuses");

  // In-process decisions of the same streams (the reference).
  const sim = await simulate(scenario, SEED, MARKETS);
  const plan = streams(scenario, SEED, MARKETS);

  // Chain + contracts.
  const server = await network.createServer("default", "127.0.0.1", 0);
  const { address, port } = await server.listen();
  const rpcUrl = `http://${address}:${port}`;
  const transport = http(rpcUrl, { retryCount: 0 });
  const publicClient = createPublicClient({ chain: hardhat, transport, pollingInterval: 20 });
  const testClient = createTestClient({ chain: hardhat, mode: "hardhat", transport });
  const chain = { ...hardhat, id: await publicClient.getChainId() };
  const accounts = (await publicClient.request({ method: "eth_accounts" } as never)) as Address[];
  const owner = accounts[0];
  /** From an unlocked node account (owner) or a local key (agent owners: more agents than node accounts). */
  const send = async (
    from: Address | LocalAccount,
    to: Address,
    abi: Abi,
    functionName: string,
    a: readonly unknown[],
    value?: bigint,
  ) => {
    const hash = await createWalletClient({ chain, transport, account: from }).writeContract({
      address: to,
      abi,
      functionName,
      args: a,
      value,
      account: from,
      chain,
    } as never);
    const r = await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 });
    if (r.status !== "success") throw new Error(`${functionName} reverted`);
    return r;
  };
  const deploy = async (path: string, a: readonly unknown[]): Promise<Address> => {
    const { abi, bytecode } = artifact(path);
    const hash = await createWalletClient({ chain, transport, account: owner }).deployContract({
      abi,
      bytecode,
      args: a,
      account: owner,
      chain,
    } as never);
    return (await publicClient.waitForTransactionReceipt({ hash, pollingInterval: 20 })).contractAddress!;
  };
  const identity = await deploy("erc8004/IdentityRegistry.sol/IdentityRegistry.json", []);
  const reputation = await deploy("erc8004/ReputationRegistry.sol/ReputationRegistry.json", [identity]);
  const market = await deploy("market/ResolutionMarket.sol/ResolutionMarket.json", [identity, reputation, owner]);
  const arbiter = await deploy("arbiter/CommitteeArbiter.sol/CommitteeArbiter.json", [[owner], 1n, [market]]);
  const resolverKey = localDevKey(19);
  const governance = await publicClient.readContract({ address: market, abi: marketAbi, functionName: "governance" });
  await send(owner, governance, marketGovernanceAbi as Abi, "queueResolver", [accounts[19]]);
  await send(owner, governance, marketGovernanceAbi as Abi, "queueDefaultArbiter", [arbiter]);
  await send(owner, governance, marketGovernanceAbi as Abi, "setDefaults", [
    parseEther("0.001"),
    Math.max(12, scenario.agents.length),
    3 * 86_400,
    WINDOW,
    parseEther("0.01"),
  ]);

  // Agents: one HTTP server, one ERC-8004 identity per simulated agent (each owned by its own funded key).
  const marketIndex = new Map<bigint, number>();
  const agents = await startAgents((agent, marketId) => {
    const i = marketIndex.get(marketId);
    return i === undefined ? undefined : plan[i].answers.get(agent);
  });
  const onChain = new Map<bigint, { agentId: bigint; owner: LocalAccount }>();
  for (const [k, a] of scenario.agents.entries()) {
    const from = privateKeyToAccount(localDevKey(100 + k));
    await testClient.setBalance({ address: from.address, value: parseEther("100") });
    const uri = encodeRegistrationDataUri(
      buildRegistrationFile({
        name: `integrity agent ${a.id}`,
        endpoint: `${agents.base}/a/${a.id}`,
        protocol: "cresolver",
      }),
    );
    const r = await send(from, identity, identityAbi, "register", [uri]);
    onChain.set(a.id, {
      agentId: parseEventLogs({ abi: identityAbi, logs: r.logs, eventName: "Registered" })[0].args.agentId,
      owner: from,
    });
  }

  const startBlock = Number(await publicClient.getBlockNumber());
  const daemon = await startResolverDaemon({
    rpcUrl,
    privateKey: resolverKey,
    markets: [{ address: market, startBlock }],
    dbPath: join(mkdtempSync(join(tmpdir(), "cresolver-integrity-e2e-")), "daemon.sqlite"),
    apiHost: "127.0.0.1",
    apiPort: 0,
    confirmations: 0,
    pollIntervalMs: 50,
    watchIntervalMs: 50,
    maxAttempts: 2,
    backoffMs: 20,
    maxBackoffMs: 100,
    shutdownGraceMs: 2_000,
    http: { allowLoopback: true },
    resolveTimeoutMs: 10_000,
    challengeTimeoutMs: 10_000,
    logger: createLogger({
      level: process.env.DAEMON_TEST_LOG ?? "silent",
      pretty: false,
      destination: process.stderr,
    }),
  });
  const view = async (id: bigint) =>
    (await (await fetch(`${daemon.url}/markets/${id}`)).json()) as {
      job?: { state: string; verdict?: string; feedback?: string };
      bundle?: { document?: { decision?: { posterior?: number } } };
    };
  const job = async (id: bigint) => (await view(id)).job;
  const waitJob = async (
    id: bigint,
    done: (j: NonNullable<Awaited<ReturnType<typeof job>>>) => boolean,
    what: string,
  ) => {
    const deadline = Date.now() + 120_000;
    for (;;) {
      const j = await job(id);
      if (j?.state === "failed") throw new Error(`market ${id}: job failed`);
      if (j && done(j)) return j;
      if (Date.now() > deadline) throw new Error(`market ${id}: timed out waiting for ${what} (${JSON.stringify(j)})`);
      await sleep(25);
    }
  };

  const rows: {
    market: number;
    marketId: string;
    truth: boolean;
    inProcess: Call;
    e2e: Call;
    verdict: string;
    agree: boolean;
    posterior: { e2e: number | null; inProcess: number };
  }[] = [];
  try {
    for (let i = 0; i < MARKETS; i++) {
      const block = await publicClient.getBlock();
      const created = await send(
        owner,
        market,
        marketAbi as Abi,
        "createMarket",
        [`Will indicator #${i + 1} be above its threshold on 31 December 2026?`, block.timestamp + 3_600n],
        POOL,
      );
      const id = (
        parseEventLogs({ abi: marketAbi, logs: created.logs, eventName: "MarketCreated" })[0].args as {
          marketId: bigint;
        }
      ).marketId;
      marketIndex.set(id, i);
      for (const a of scenario.agents.filter((x) => x.joinAt <= i)) {
        const w = onChain.get(a.id)!;
        await send(w.owner, market, marketAbi as Abi, "joinMarket", [id, w.agentId], STAKE);
      }
      await testClient.increaseTime({ seconds: 3_601 });
      await testClient.mine({ blocks: 1 });
      await send(owner, market, marketAbi as Abi, "requestResolution", [id]);
      const proposed = await waitJob(id, (j) => j.state === "proposed", "the proposal");
      await testClient.increaseTime({ seconds: WINDOW + 60 });
      await testClient.mine({ blocks: 1 });
      await waitJob(
        id,
        (j) => j.state === "finalized" && (j.feedback === "done" || j.feedback === undefined || j.feedback === null),
        "the finalization",
      );
      const m = (await publicClient.readContract({
        address: market,
        abi: marketAbi,
        functionName: "getMarket",
        args: [id],
      })) as { status: number; outcome: boolean };
      const truth = plan[i].truth;
      const e2e: Call =
        m.status === 4
          ? "unresolved"
          : m.status === 3
            ? m.outcome === truth
              ? "correct"
              : "wrong"
            : (() => {
                throw new Error(`market ${id}: status ${m.status} after finalization`);
              })();
      if (sim.markets[i].truth !== truth)
        throw new Error(`market ${i}: the streams drifted from the simulator's (truth differs)`);
      const inProcess = sim.markets[i].after;
      // The posterior of the bundle the daemon proposed with (its hash is on chain) vs the in-process one.
      const posterior = (await view(id)).bundle?.document?.decision?.posterior ?? null;
      rows.push({
        market: i + 1,
        marketId: id.toString(),
        truth,
        inProcess,
        e2e,
        verdict: proposed.verdict ?? "?",
        agree: inProcess === e2e,
        posterior: { e2e: posterior, inProcess: sim.markets[i].posterior },
      });
      console.log(
        `market ${String(i + 1).padStart(2)} (#${id}) truth ${truth ? "yes" : "no "}  proposed ${String(proposed.verdict).padEnd(7)} → e2e ${e2e.padEnd(10)} in-process ${inProcess.padEnd(10)} ${inProcess === e2e ? "" : "DIFFERS"}`,
      );
    }
  } finally {
    await daemon.close();
    await new Promise((r) => agents.server.close(r));
    await server.close();
  }

  const count = (k: "inProcess" | "e2e", c: Call) => rows.filter((r) => r[k] === c).length;
  const pct = (n: number) => Math.round((n / rows.length) * 1000) / 10;
  const figures = (k: "inProcess" | "e2e") => ({
    correct: count(k, "correct"),
    wrong: count(k, "wrong"),
    unresolved: count(k, "unresolved"),
  });
  const agreement = pct(rows.filter((r) => r.agree).length);
  const diffs = rows.map((r) =>
    r.posterior.e2e === null ? Infinity : Math.abs(r.posterior.e2e - r.posterior.inProcess),
  );
  const posteriorMaxAbsDiff = Math.max(...diffs);
  const doc = {
    bench: "integrity-e2e",
    scenario: scenario.name,
    description: scenario.description,
    seed: SEED,
    markets: MARKETS,
    decision: {
      thresholdBps: DEFAULT_THRESHOLD_BPS,
      note: "daemon defaults (the in-process run uses the same defaults)",
    },
    disputeWindowSeconds: WINDOW,
    note: "counts of markets; e2e = on-chain final status (Resolved vs the simulated truth, Invalid = unresolved) after the production daemon proposed and finalized; inProcess = bench/sim/simulate.ts on the same seeded streams",
    e2e: figures("e2e"),
    inProcess: figures("inProcess"),
    agreementPercent: agreement,
    /** Largest |posterior(e2e bundle) − posterior(in-process)| over the markets (null: a bundle without a posterior). */
    posteriorMaxAbsDiff: Number.isFinite(posteriorMaxAbsDiff) ? posteriorMaxAbsDiff : null,
    seconds: Math.round((performance.now() - t0) / 100) / 10,
    perMarket: rows,
  };
  mkdirSync(join(here, "results"), { recursive: true });
  const outPath = resolve(here, "results", OUT); // an absolute --out is taken as is
  writeFileSync(outPath, `${JSON.stringify(doc, null, 2)}\n`);
  console.log(`\n${scenario.name}, seed ${SEED}, ${MARKETS} markets end to end`);
  console.log(`  e2e        ${doc.e2e.correct} correct / ${doc.e2e.wrong} wrong / ${doc.e2e.unresolved} unresolved`);
  console.log(
    `  in-process ${doc.inProcess.correct} correct / ${doc.inProcess.wrong} wrong / ${doc.inProcess.unresolved} unresolved`,
  );
  console.log(`  agreement  ${agreement} % of markets; largest posterior difference ${doc.posteriorMaxAbsDiff}`);
  console.log(`\n${doc.seconds} s; wrote ${outPath}`);
}

await main();
process.exit(0);
