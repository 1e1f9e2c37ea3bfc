/**
 * viem clients for one RPC endpoint and (optionally) one key: chain id detected, transient RPC
 * failures retried with bounded exponential backoff, never a revert.
 *
 * Retrying happens under viem, at the fetch level, so it only ever sees transport failures:
 * connection refused/reset/closed, timeouts, HTTP 429/502/503/504, and JSON-RPC rate-limit errors
 * (-32005, 429, -32007). A revert arrives as an ordinary JSON-RPC error and is passed through
 * untouched (viem's own retry is switched off: it would retry -32603, which some nodes use for reverts).
 *
 * A raw transaction whose first attempt failed ambiguously (the node may have received it) is
 * made idempotent: if a retry is answered "already known" / "nonce too low", the transaction is
 * looked up by its hash and, when the node has it, the hash is returned as if the send succeeded.
 */
import {
  BaseError,
  createPublicClient,
  createWalletClient,
  defineChain,
  custom,
  http,
  type EIP1193Provider,
  keccak256,
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
import { isRangeLimit } from "./range-limit.js";
import { NonceQueue } from "./nonce.js";
import { findCause } from "../util/cause.js";
import { backoffDelay, retry } from "../util/retry.js";
import { redactUrl } from "../util/redact.js";
import { CresolverError } from "../util/errors.js";

export interface RetryOptions {
  /** Extra attempts after the first (default 4). */
  retries?: number;
  /** First backoff in ms, doubled each retry (default 200). */
  baseDelayMs?: number;
  /** Backoff cap in ms (default 3000). */
  maxDelayMs?: number;
  /** Per-attempt timeout in ms (default 30000). */
  timeoutMs?: number;
  /**
   * Time one request may take in all, retries and pauses included (default: none). Past it the request fails with
   * a ChainError naming the endpoint and the JSON-RPC method it waited on.
   */
  deadlineMs?: number;
  /** Observer for each retry (tests, logs). Never given request bodies. */
  onRetry?: (info: { attempt: number; reason: string; delayMs: number }) => void;
}

const RETRY_STATUS = new Set([408, 429, 502, 503, 504]);
const RETRY_RPC_CODES = new Set([-32005, 429, -32007]);
const DUPLICATE_TX =
  /already known|known transaction|already imported|nonce too low|replacement transaction underpriced/i;

type FetchFn = typeof fetch;

interface JsonRpcBody {
  jsonrpc?: string;
  id?: unknown;
  method?: string;
  params?: unknown[];
}

function parseBody(init: RequestInit | undefined): JsonRpcBody | JsonRpcBody[] | undefined {
  if (typeof init?.body !== "string") return undefined;
  try {
    return JSON.parse(init.body) as JsonRpcBody | JsonRpcBody[];
  } catch {
    return undefined;
  }
}

/** A failure worth another attempt; `reason` names it without request bodies. */
class TransientRpcFailure extends CresolverError {
  constructor(readonly reason: string) {
    super(reason);
  }
}

/** A fetch that retries transient failures (see the module comment). */
export function createRetryingFetch(options: RetryOptions = {}, inner: FetchFn = fetch): FetchFn {
  const retries = options.retries ?? 4;
  const base = options.baseDelayMs ?? 200;
  const cap = options.maxDelayMs ?? 3_000;
  const timeoutMs = options.timeoutMs ?? 30_000;
  const deadlineMs = options.deadlineMs;

  return async (input, init) => {
    const body = parseBody(init);
    const single = Array.isArray(body) ? undefined : body;
    const deadline = deadlineMs !== undefined ? AbortSignal.timeout(deadlineMs) : undefined;
    const overdue = () =>
      new ChainError(
        "rpc",
        `no answer from the RPC endpoint ${redactUrl(String(input instanceof Request ? input.url : input))} to ${single?.method ?? "a batch request"} within ${Math.round((deadlineMs ?? 0) / 100) / 10} s (--rpc-timeout)`,
      );
    const rawTx =
      single?.method === "eth_sendRawTransaction" && typeof single.params?.[0] === "string"
        ? (single.params[0] as Hex)
        : undefined;
    let ambiguous = false;

    /** One attempt: a Response to hand to viem, or a TransientRpcFailure. */
    async function once(): Promise<Response> {
      let response: Response;
      try {
        const signals = [AbortSignal.timeout(timeoutMs), ...(deadline ? [deadline] : [])];
        if (init?.signal) signals.push(init.signal);
        response = await inner(input, { ...init, signal: AbortSignal.any(signals) });
      } catch (error) {
        if (init?.signal?.aborted) throw error;
        if (deadline?.aborted) throw overdue();
        const cause = (error as { cause?: { code?: unknown; message?: unknown } }).cause;
        // Refused connections never reached the node; anything else might have.
        if (cause?.code !== "ECONNREFUSED") ambiguous = true;
        throw new TransientRpcFailure(
          typeof cause?.code === "string"
            ? cause.code
            : typeof cause?.message === "string"
              ? cause.message.slice(0, 80)
              : error instanceof Error
                ? `${error.name}: ${error.message.slice(0, 80)}`
                : "network error",
        );
      }
      if (RETRY_STATUS.has(response.status)) {
        await response.body?.cancel().catch(() => undefined);
        throw new TransientRpcFailure(`HTTP ${response.status}`);
      }
      if (!response.ok) return response;
      const text = await response.text();
      let parsed: { error?: { code?: unknown; message?: unknown } } | undefined;
      try {
        parsed = JSON.parse(text) as typeof parsed;
      } catch {
        parsed = undefined;
      }
      const err = parsed && !Array.isArray(parsed) ? parsed.error : undefined;
      // A getLogs range or result cap (also sent as -32005) is answered at once: logs.ts splits the range.
      const rangeLimit = typeof err?.message === "string" && isRangeLimit(err.message);
      if (err && typeof err.code === "number" && RETRY_RPC_CODES.has(err.code) && !rangeLimit)
        throw new TransientRpcFailure(`JSON-RPC ${err.code}`);
      if (
        err &&
        rawTx !== undefined &&
        ambiguous &&
        typeof err.message === "string" &&
        DUPLICATE_TX.test(err.message)
      ) {
        // An earlier attempt may have reached the node: if it has our transaction, that attempt succeeded.
        const hash = keccak256(rawTx);
        const lookup = await inner(input, {
          ...init,
          body: JSON.stringify({
            jsonrpc: "2.0",
            id: single?.id ?? 1,
            method: "eth_getTransactionByHash",
            params: [hash],
          }),
          signal: AbortSignal.timeout(timeoutMs),
        });
        const found = (await lookup.json()) as { result?: unknown };
        if (found.result) {
          return new Response(JSON.stringify({ jsonrpc: "2.0", id: single?.id ?? 1, result: hash }), {
            status: 200,
            headers: { "content-type": "application/json" },
          });
        }
      }
      return new Response(text, { status: response.status, headers: response.headers });
    }

    try {
      return await retry(once, {
        attempts: retries + 1,
        delayMs: { baseMs: base, maxMs: cap },
        retryable: (error) => error instanceof TransientRpcFailure,
        ...(deadline ? { signal: deadline } : {}),
        onRetry: ({ attempt, error, delayMs }) =>
          options.onRetry?.({ attempt, reason: (error as TransientRpcFailure).reason, delayMs }),
      });
    } catch (error) {
      if (deadline?.aborted && !(error instanceof ChainError)) throw overdue();
      if (error instanceof TransientRpcFailure)
        throw new ChainError("rpc", `RPC request failed after ${retries + 1} attempts (${error.reason})`);
      throw error;
    }
  };
}

/** Worst-case time of one request with all its retries: viem's own timeout must not cut the retries short. */
export function retryBudgetMs(options: RetryOptions = {}): number {
  const retries = options.retries ?? 4;
  const base = options.baseDelayMs ?? 200;
  const cap = options.maxDelayMs ?? 3_000;
  let total = (options.timeoutMs ?? 30_000) * (retries + 1);
  for (let attempt = 1; attempt <= retries; attempt++) total += backoffDelay(attempt, { baseMs: base, maxMs: cap });
  return total + 1_000;
}

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
}

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
    const where = redactUrl(options.rpcUrl);
    // A deadline message names the endpoint itself.
    const head = detail.includes(where) ? "cannot reach the RPC endpoint" : `cannot reach the RPC endpoint ${where}`;
    throw new ChainError("rpc", `${head}: ${detail}`, { cause: error });
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
