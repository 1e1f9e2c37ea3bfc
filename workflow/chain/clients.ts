/**
 * viem clients for one RPC endpoint and (optionally) one key: chain id detected, transient RPC failures retried
 * with bounded exponential backoff under viem, at the fetch level (rpc-fetch.ts), never a revert (viem's own retry
 * is switched off: it would retry -32603, which some nodes use for reverts).
 */
import {
  BaseError,
  createPublicClient,
  createWalletClient,
  defineChain,
  custom,
  http,
  type EIP1193Provider,
  type Chain,
  type Hex,
  type PrivateKeyAccount,
  type PublicClient,
  type WalletClient,
  type Transport,
  type Account,
} from "viem";
import { privateKeyToAccount } from "viem/accounts";
import { hardhat, mainnet, sepolia } from "viem/chains";
import { ChainError } from "./errors.js";
import { NonceQueue } from "./nonce.js";
import { findCause } from "../util/cause.js";
import { createRetryingFetch, retryBudgetMs, unreachableEndpoint, type RetryOptions } from "./rpc-fetch.js";
import { redactUrl } from "../util/redact.js";

export { createRetryingFetch, retryBudgetMs, type RetryOptions };

export interface ConnectOptions {
  rpcUrl: string;
  /** 0x-prefixed 32-byte hex. Never logged. */
  privateKey?: Hex;
  retry?: RetryOptions;
  /** Receipt polling interval in ms (default 100 on local chains, 1000 elsewhere). */
  pollingIntervalMs?: number;
  /** Expected chain id: refuse to continue if the node reports another. */
  expectedChainId?: number;
}

export interface ChainContext {
  chainId: number;
  chain: Chain;
  publicClient: PublicClient<Transport, Chain>;
  /** Present when a private key was given. */
  walletClient?: WalletClient<Transport, Chain, Account>;
  account?: PrivateKeyAccount;
  /** Serialises nonces of concurrent writes from `account`. */
  nonces: NonceQueue;
  /** Told about every transaction of send.ts as it is signed, sent, confirmed or fails (the CLI's Ctrl-C report). */
  onTx?: (event: TxEvent) => void;
}

/** One step of one transaction on the send path (workflow/chain/send.ts). */
export type TxEvent =
  | { label: string; stage: "sending" }
  /** Handed to the wallet client to sign and broadcast: without an answer the node may still have it. */
  | { label: string; stage: "broadcasting" }
  | { label: string; stage: "sent"; hash: Hex }
  | { label: string; stage: "confirmed"; hash: Hex; block: bigint }
  | { label: string; stage: "failed"; hash?: Hex };

/** An RPC URL without credentials, query or path: the shared rule. */
export { redactUrl };

export const LOCAL_CHAIN_IDS = new Set([31337, 1337]);

function chainFor(chainId: number, rpcUrl: string): Chain {
  const known = [hardhat, sepolia, mainnet].find((c) => c.id === chainId);
  const rpcUrls = { default: { http: [rpcUrl] } };
  if (known) return { ...known, rpcUrls };
  return defineChain({
    id: chainId,
    name: `chain-${chainId}`,
    nativeCurrency: { name: "Ether", symbol: "ETH", decimals: 18 },
    rpcUrls,
  });
}

/** Connects to `rpcUrl`, detects the chain id, and builds the clients. */
export async function connect(options: ConnectOptions): Promise<ChainContext> {
  const fetchFn = createRetryingFetch(options.retry);
  const transport = http(options.rpcUrl, { retryCount: 0, fetchFn, timeout: retryBudgetMs(options.retry) });
  const probe = createPublicClient({ transport });
  let chainId: number;
  try {
    chainId = await probe.getChainId();
  } catch (error) {
    const inner = findCause(error, (e): e is ChainError => e instanceof ChainError);
    const detail =
      inner instanceof ChainError
        ? inner.message
        : error instanceof BaseError
          ? error.shortMessage
          : error instanceof Error
            ? (error.message.split("\n")[0] ?? "")
            : String(error);
    throw unreachableEndpoint(options.rpcUrl, detail, error);
  }
  if (options.expectedChainId !== undefined && options.expectedChainId !== chainId) {
    throw new ChainError(
      "precondition",
      `the RPC endpoint is on chain ${chainId}, the deployment file is for chain ${options.expectedChainId}`,
    );
  }
  const chain = chainFor(chainId, options.rpcUrl);
  const pollingInterval = options.pollingIntervalMs ?? (LOCAL_CHAIN_IDS.has(chainId) ? 100 : 1_000);
  return contextOver(transport, chainId, chain, pollingInterval, options.privateKey);
}

/** The clients of one context over `transport` (read-only without a key), as `connect` and `connectProvider` build it. */
function contextOver(
  transport: Transport,
  chainId: number,
  chain: Chain,
  pollingInterval: number,
  privateKey: Hex | undefined,
): ChainContext {
  const publicClient = createPublicClient({ chain, transport, pollingInterval }) as PublicClient<Transport, Chain>;
  const account = privateKey !== undefined ? privateKeyToAccount(privateKey) : undefined;
  const walletClient = account ? createWalletClient({ chain, transport, account, pollingInterval }) : undefined;
  return {
    chainId,
    chain,
    publicClient,
    ...(walletClient ? { walletClient } : {}),
    ...(account ? { account } : {}),
    nonces: new NonceQueue(),
  };
}

/** The wallet part of a context, or a precondition error naming what is missing. */
export function requireWallet(ctx: ChainContext): {
  walletClient: WalletClient<Transport, Chain, Account>;
  account: PrivateKeyAccount;
} {
  if (!ctx.walletClient || !ctx.account) {
    throw new ChainError(
      "precondition",
      "this command sends a transaction: give a key with --private-key or PRIVATE_KEY",
    );
  }
  return { walletClient: ctx.walletClient, account: ctx.account };
}

/**
 * A context over an EIP-1193 provider (e.g. Hardhat's in-process network) instead of an RPC URL.
 * No retrying: there is no transport to fail.
 */
export async function connectProvider(options: {
  provider: unknown;
  privateKey?: Hex;
  pollingIntervalMs?: number;
}): Promise<ChainContext> {
  const transport = custom(options.provider as EIP1193Provider, { retryCount: 0 });
  const chainId = await createPublicClient({ transport }).getChainId();
  const chain = chainFor(chainId, "http://in-process.invalid");
  const pollingInterval = options.pollingIntervalMs ?? 50;
  return contextOver(transport, chainId, chain, pollingInterval, options.privateKey);
}

/** The same chain and clients with another key (its own nonce queue). */
export function withKey(ctx: ChainContext, privateKey: Hex): ChainContext {
  const account = privateKeyToAccount(privateKey);
  const walletClient = createWalletClient({
    chain: ctx.chain,
    transport: custom(
      { request: (args: Parameters<ChainContext["publicClient"]["request"]>[0]) => ctx.publicClient.request(args) },
      { retryCount: 0 },
    ),
    account,
    pollingInterval: ctx.publicClient.pollingInterval,
  });
  return { ...ctx, account, walletClient, nonces: new NonceQueue() };
}
