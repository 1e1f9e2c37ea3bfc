/**
 * A daemon in its own process, for crash and signal tests: `node --import tsx child.ts` with CHILD_CONFIG
 * (JSON) in the environment. Prints READY/STARTED/EVALUATED/WRITTEN lines on stdout; logs go to stderr.
 * mode "hang-before-write": the first proposal hangs right before it is sent;
 * mode "hang-after-send": the first proposal hangs once sent, before its receipt (the transaction is pending);
 * mode "hang-after-write": the first proposal hangs after its receipt, before the daemon records it;
 * mode "slow": runs wait (abortably) for a minute before doing anything.
 */
import { createPublicClient, createWalletClient, http, type Address, type PublicClient } from "viem";
import { hardhat } from "viem/chains";
import { createLogger, startDaemon } from "../../../../daemon/index.js";
import { createChainJob } from "../../../helpers/daemon/job.js";

interface ChildConfig {
  rpcUrl: string;
  chainId: number;
  market: Address;
  resolver: Address;
  dbPath: string;
  startBlock: number;
  mode: "hang-before-write" | "hang-after-send" | "hang-after-write" | "slow";
  shutdownGraceMs?: number;
}

const cfg = JSON.parse(process.env.CHILD_CONFIG ?? "{}") as ChildConfig;
const say = (line: string) => process.stdout.write(`${line}\n`);
const forever = () => new Promise<never>(() => {});

const transport = http(cfg.rpcUrl, { retryCount: 0, timeout: 5_000 });
const chain = { ...hardhat, id: cfg.chainId };
const publicClient = createPublicClient({ chain, transport, pollingInterval: 50 }) as PublicClient;
const wallet = createWalletClient({ chain, transport, account: cfg.resolver });
const job = createChainJob({
  publicClient,
  wallet,
  market: cfg.market,
  beforeWrite: async (id) => {
    say(`EVALUATED ${id}`);
    if (cfg.mode === "hang-before-write") await forever();
  },
  afterSend: async (id, txHash) => {
    say(`SENT ${id} ${txHash}`);
    if (cfg.mode === "hang-after-send") await forever();
  },
  afterWrite: async (id, txHash) => {
    say(`WRITTEN ${id} ${txHash}`);
    if (cfg.mode === "hang-after-write") await forever();
  },
});

const handle = await startDaemon(
  {
    markets: [cfg.market],
    confirmations: 0,
    pollIntervalMs: 50,
    startBlock: cfg.startBlock,
    dbPath: cfg.dbPath,
    maxAttempts: 3,
    backoffMs: 20,
    apiPort: 0,
    handleSignals: true,
    shutdownGraceMs: cfg.shutdownGraceMs ?? 200,
  },
  {
    publicClient,
    seams: {
      ...job,
      run: async (marketId, attempt, signal) => {
        say(`STARTED ${marketId} ${attempt}`);
        if (cfg.mode === "slow") {
          await new Promise((resolve, reject) => {
            const t = setTimeout(resolve, 60_000);
            signal.addEventListener(
              "abort",
              () => {
                clearTimeout(t);
                reject(signal.reason);
              },
              { once: true },
            );
          });
        }
        return job.run(marketId, attempt, signal);
      },
    },
    logger: createLogger({ level: "info", pretty: false, destination: process.stderr }),
  },
);
say(`READY ${handle.url}`);
