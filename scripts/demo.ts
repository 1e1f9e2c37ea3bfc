/**
 * `npm run demo`: the whole lifecycle on a local chain, offline, with no key or API account.
 *
 * A Hardhat chain runs in this process (served over JSON-RPC on 127.0.0.1), the contracts are
 * deployed, five reference agents (one per worker protocol) start on 127.0.0.1 and register as
 * ERC-8004 agents with data: URIs, two markets are created (10-minute dispute window) and joined, time moves
 * past their deadlines, resolution is requested, and the resolver daemon — reacting to the ResolutionRequested
 * events, not called directly — proposes a bonded verdict for both. Time moves past the dispute window, the
 * markets are finalized, and it prints each worker's answer, confidence, correctness against the final outcome
 * and reward, read back from the chain.
 *
 * `npm run demo:explore` (CRESOLVER_DEMO_EXPLORE=1) does the same, then keeps the chain and the daemon up and serves
 * the explorer of the demo's markets (the daemon's /explorer) until Ctrl-C.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { network } from "hardhat";
import { formatEther, parseEther } from "viem";
import { startResolverDaemon, type ResolverDaemonHandle } from "../daemon/host.js";
import { type BoundAgentCredentials, credentialStoreOver, endpointOrigin } from "../workflow/adapters/credentials.js";
import { createMarket, joinMarket, registerAgent, requestResolution } from "../workflow/chain/actions.js";
import { finalize, getSeatResults, type SeatResult } from "../workflow/chain/lifecycle.js";
import { readMarketStatus } from "../workflow/chain/snapshot.js";
import { connect, withKey, type ChainContext } from "../workflow/chain/clients.js";
import { localDevKey as devKey } from "../workflow/chain/dev-accounts.js";
import { deployAll } from "../workflow/chain/deploy.js";
import { buildRegistrationFile, encodeRegistrationDataUri } from "../workflow/registration/index.js";
import { formatReport, marketReport } from "./demo/summary.js";
import { startPanel, type PanelMember } from "./demo/panel.js";

const MARKETS = [
  // Offline agents answer deterministically from the question text: on the first the skeptic dissents.
  { question: "Will global average CO2 concentration at Mauna Loa exceed 430 ppm in May 2026?", reward: "1" },
  { question: "Will a commercial fusion power plant deliver electricity to a grid in 2026?", reward: "0.5" },
];
const STAKE = parseEther("0.05");
/** The shortest dispute window the market allows (10 minutes): the demo moves chain time past it. */
const DISPUTE_WINDOW = 600;
const OUT_DIR = resolve("demo-output");
/** Keep chain + daemon up after the run and serve the explorer until SIGINT/SIGTERM. */
const EXPLORE = process.env.CRESOLVER_DEMO_EXPLORE === "1";

const started = performance.now();
const step = (message: string) =>
  console.log(`[${((performance.now() - started) / 1000).toFixed(1).padStart(5)}s] ${message}`);

/** Waits until the daemon's job of every market is in one of `states` (or failed). */
async function waitForJobs(
  daemon: ResolverDaemonHandle,
  ids: bigint[],
  states: string[],
  timeoutMs: number,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const done = new Set<bigint>();
  while (done.size < ids.length) {
    for (const id of ids) {
      if (done.has(id)) continue;
      const res = await fetch(`${daemon.url}/markets/${id}`);
      if (res.status !== 200) continue;
      const { job } = (await res.json()) as { job: { state: string } };
      if ([...states, "failed"].includes(job.state)) {
        done.add(id);
        step(`market ${id}: daemon job ${job.state}`);
      }
    }
    if (Date.now() > deadline) throw new Error(`markets not ${states.join("/")} within ${timeoutMs / 1000} s`);
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function main(): Promise<void> {
  const cleanup: (() => Promise<unknown>)[] = [];
  const workDir = mkdtempSync(join(tmpdir(), "cresolver-demo-"));
  cleanup.push(async () => rmSync(workDir, { recursive: true, force: true }));
  try {
    step("Starting a local Hardhat chain on 127.0.0.1");
    const server = await network.createServer("default", "127.0.0.1", 0);
    const { address, port } = await server.listen();
    cleanup.push(() => server.close());
    const rpcUrl = `http://${address}:${port}`;
    const deployer = await connect({ rpcUrl, privateKey: devKey(0) });
    const creator = withKey(deployer, devKey(1));

    step("Deploying IdentityRegistry, ReputationRegistry, ResolutionMarket, BettingMarket");
    const deployment = await deployAll(deployer, { network: "demo", ownRegistries: true });
    const market = deployment.contracts.ResolutionMarket.address;
    const identity = deployment.contracts.IdentityRegistry.address;
    const reputation = deployment.contracts.ReputationRegistry.address;

    // Credentials are learned per agent id as agents register; the daemon reads them at call time.
    const secrets = new Map<bigint, BoundAgentCredentials>();
    const credentials = credentialStoreOver(secrets);

    step("Starting the resolver daemon (watches ResolutionRequested; SQLite state, HTTP API)");
    const daemon = await startResolverDaemon({
      ctx: deployer,
      markets: [market],
      identityRegistry: identity,
      dbPath: join(workDir, "daemon.sqlite"),
      apiPort: 0,
      confirmations: 0,
      pollIntervalMs: 200,
      handleSignals: false,
      credentials,
      http: { allowLoopback: true }, // the demo's agents live on 127.0.0.1
      logLevel: "silent",
      ...(deployment.contracts.BettingMarket ? { explorerBetting: deployment.contracts.BettingMarket.address } : {}),
    });
    cleanup.push(() => daemon.close());
    step(`  daemon API ${daemon.url} (JWKS ${daemon.jwksUrl})`);

    step("Starting five reference agents, one per protocol, on 127.0.0.1");
    const panel: PanelMember[] = await startPanel(daemon.jwksUrl);
    for (const m of panel) cleanup.push(() => m.close());

    step("Registering them as ERC-8004 agents (registration file as a data: URI)");
    const names = new Map<bigint, { name: string; protocol: string }>();
    const workers: { ctx: ChainContext; agentId: bigint }[] = [];
    for (const [i, m] of panel.entries()) {
      const ctx = withKey(deployer, devKey(2 + i));
      const file = buildRegistrationFile({
        name: m.name,
        description: `cresolver reference agent (${m.persona})`,
        endpoint: m.endpoint,
        protocol: m.protocol,
      });
      const { agentId } = await registerAgent(ctx, identity, encodeRegistrationDataUri(file));
      const origin = endpointOrigin(m.endpoint);
      if (origin === undefined) throw new Error(`demo agent ${m.name} has no http(s) endpoint`);
      secrets.set(agentId, { ...m.credentials, origin }); // bound to the endpoint it registered
      names.set(agentId, { name: m.name, protocol: m.protocol });
      workers.push({ ctx, agentId });
      step(`  agent #${agentId} ${m.name} → ${m.endpoint}`);
    }

    const block = await deployer.publicClient.getBlock();
    const deadline = block.timestamp + 3_600n;
    const ids: bigint[] = [];
    for (const m of MARKETS) {
      const { marketId } = await createMarket(creator, market, m.question, deadline, parseEther(m.reward), {
        disputeWindow: DISPUTE_WINDOW,
      });
      ids.push(marketId);
      step(`Market ${marketId} created with a ${m.reward} ETH reward pool: "${m.question}"`);
      for (const w of workers) await joinMarket(w.ctx, market, marketId, w.agentId, STAKE);
      step(`  ${workers.length} workers joined with ${formatEther(STAKE)} ETH stake each`);
    }

    step("Moving chain time past the deadline and requesting resolution");
    await deployer.publicClient.request({ method: "evm_increaseTime", params: [3_601] } as never);
    await deployer.publicClient.request({ method: "evm_mine", params: [] } as never);
    for (const id of ids) await requestResolution(creator, market, id);

    step("The daemon picks up the events: asks, challenges, scores, decides and proposes (bonded)");
    await waitForJobs(daemon, ids, ["proposed", "finalized"], 45_000);

    step(`Nobody disputes: moving chain time past the ${DISPUTE_WINDOW / 60}-minute dispute window and finalizing`);
    await deployer.publicClient.request({ method: "evm_increaseTime", params: [DISPUTE_WINDOW + 1] } as never);
    await deployer.publicClient.request({ method: "evm_mine", params: [] } as never);
    const seats = new Map<bigint, SeatResult[]>();
    for (const id of ids) {
      // Anyone may finalize; the daemon does too, so whoever is first wins and the other reads the result.
      const status = await readMarketStatus(creator, market, id);
      if (status.statusName === "Proposed") {
        const r = await finalize(creator, market, id).catch(() => undefined);
        if (r)
          step(
            `  market ${id} finalized: ${r.status}${r.status === "Resolved" ? ` → ${r.outcome ? "YES" : "NO"}` : ""}`,
          );
      }
      seats.set(id, await getSeatResults(creator, market, id));
    }

    mkdirSync(OUT_DIR, { recursive: true });
    console.log(
      "\nThe agents ran offline: their answers are derived deterministically from the question text, so this",
    );
    console.log(
      "shows the mechanics (quorum, challenges, scoring, verdict, proposal, finalization), not real-world truth.\n",
    );
    for (const id of ids) {
      const res = await fetch(`${daemon.url}/markets/${id}`);
      const body = (await res.json()) as { bundle: { json: string; document: never } | null };
      const file = join(OUT_DIR, `market-${id}.bundle.json`);
      if (body.bundle) writeFileSync(file, body.bundle.json);
      const report = await marketReport(
        deployer,
        { market, reputation },
        id,
        names,
        {
          url: `${daemon.url}/markets/${id} (while the demo runs)`,
          file,
          document: body.bundle ? body.bundle.document : { workers: [] },
        },
        seats.get(id) ?? [],
      );
      console.log(formatReport(report));
      console.log("");
    }
    step(`Done. Bundles are in ${OUT_DIR}; keccak256 of each file equals the market's on-chain bundleHash.`);
    if (EXPLORE) {
      console.log(
        `\nExplorer of the demo's markets: ${daemon.url}/explorer  (Ctrl-C to stop the chain and the daemon)`,
      );
      await new Promise<void>((done) => {
        process.once("SIGINT", () => done());
        process.once("SIGTERM", () => done());
      });
    } else {
      console.log("\nTo browse these markets in the explorer (the chain lives in this process): npm run demo:explore");
    }
  } finally {
    for (const fn of cleanup.reverse()) await fn().catch(() => undefined);
  }
}

main().then(
  () => process.exit(0),
  (error: unknown) => {
    console.error(`demo failed: ${error instanceof Error ? error.message : String(error)}`);
    process.exit(1);
  },
);
