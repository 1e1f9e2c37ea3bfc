/** Starts daemons for tests against the test chain, each with a real SQLite file in a temp dir. */
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createPublicClient, http, type Address, type PublicClient } from "viem";
import { hardhat } from "viem/chains";
import {
  createLogger,
  startDaemon,
  type DaemonConfigInput,
  type DaemonHandle,
  type MarketSeams,
} from "../../../daemon/index.js";
import type { TestChain } from "./chain.js";
import { createChainJob, type ChainJobOptions } from "./job.js";

export const API_TOKEN = "test-token-0123456789abcdef";

export function tempDbPath(name = "daemon"): string {
  return join(mkdtempSync(join(tmpdir(), "cresolver-daemon-")), `${name}.sqlite`);
}

export function rpcClient(rpcUrl: string): PublicClient {
  return createPublicClient({
    chain: hardhat,
    transport: http(rpcUrl, { retryCount: 0, timeout: 5_000 }),
    pollingInterval: 50,
  }) as PublicClient;
}

export interface TestDaemon {
  handle: DaemonHandle;
  job: ReturnType<typeof createChainJob>;
  dbPath: string;
}

export async function startTestDaemon(
  chain: TestChain,
  opts: {
    dbPath?: string;
    rpcUrl?: string;
    resolver?: Address;
    config?: Partial<DaemonConfigInput>;
    hooks?: Pick<ChainJobOptions, "beforeWrite" | "afterSend" | "afterWrite">;
    /** Replaces seams of the chain job (benchmarks of the daemon alone, test doubles of one step). */
    override?: Partial<MarketSeams>;
  } = {},
): Promise<TestDaemon> {
  const dbPath = opts.dbPath ?? tempDbPath();
  const rpcUrl = opts.rpcUrl ?? chain.rpcUrl;
  const publicClient = rpcClient(rpcUrl);
  const wallet = chain.wallet(opts.resolver ?? chain.resolvers[0]);
  // The job talks to the same RPC endpoint as the daemon (through the proxy when there is one).
  const { createWalletClient } = await import("viem");
  const jobWallet = createWalletClient({
    chain: wallet.chain,
    account: wallet.account!,
    transport: http(rpcUrl, { retryCount: 0, timeout: 5_000 }),
  });
  const job = createChainJob({ publicClient, wallet: jobWallet, market: chain.market, ...opts.hooks });
  const handle = await startDaemon(
    {
      markets: [chain.market],
      confirmations: 0,
      pollIntervalMs: 50,
      maxBlockRange: 2_000,
      dbPath,
      concurrency: 4,
      maxAttempts: 3,
      backoffMs: 20,
      maxBackoffMs: 200,
      apiHost: "127.0.0.1",
      apiPort: 0,
      apiToken: API_TOKEN,
      handleSignals: false,
      shutdownGraceMs: 2_000,
      watchIntervalMs: 50,
      ...opts.config,
    },
    {
      publicClient,
      seams: { ...job, ...opts.override },
      logger: createLogger({
        level: process.env.DAEMON_TEST_LOG ?? "silent",
        pretty: false,
        destination: process.stderr,
      }),
    },
  );
  return { handle, job, dbPath };
}
