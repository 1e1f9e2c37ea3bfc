/**
 * What every command gets: validated global options, output helpers, and lazily the chain context
 * and the contract addresses (from --market/--identity or the deployment file). Loading it loads no viem: the
 * viem clients are imported when a command first asks for the chain, so light commands (`market list`) stay light.
 */
import { resolve } from "node:path";
import type { Address, Hex } from "viem";
import type { ChainContext } from "../../workflow/chain/clients.js";
import { ENV } from "./env.js";
import { CliError } from "./errors.js";
import {
  loadDeploymentFile,
  networkNameFor,
  parseAddress,
  parsePrivateKey,
  parseRpcUrl,
  type DeploymentFile,
} from "./inputs.js";
import { JsonRpcClient } from "./json-rpc.js";
import { TxJournal } from "./tx-journal.js";

export interface Io {
  stdout: (text: string) => void;
  stderr: (text: string) => void;
  env: Record<string, string | undefined>;
  cwd: string;
  /**
   * Ctrl-C (main.ts aborts it on SIGINT): long-running commands (agent serve) stop gracefully; any other command is
   * interrupted at once, saying which transactions were confirmed, sent or not sent (exit 130).
   */
  signal?: AbortSignal;
}

export interface GlobalOptions {
  rpcUrl?: string;
  privateKey?: string;
  deployment?: string;
  market?: string;
  identity?: string;
  json?: boolean;
  rpcTimeout?: string;
}

/** Seconds one RPC request may take, retries included, unless --rpc-timeout / CRESOLVER_RPC_TIMEOUT say otherwise. */
export const DEFAULT_RPC_TIMEOUT_S = 30;

/** `--rpc-timeout` (or its variable) in ms: whole seconds, 1 to 3600. */
export function parseRpcTimeout(value: string | undefined, what = "--rpc-timeout"): number {
  if (value === undefined || value === "") return DEFAULT_RPC_TIMEOUT_S * 1_000;
  if (!/^[0-9]{1,4}$/.test(value) || Number(value) < 1 || Number(value) > 3_600)
    throw new CliError(`${what} must be whole seconds from 1 to 3600, got "${value.slice(0, 20)}"`);
  return Number(value) * 1_000;
}

/** JSON with bigints as decimal strings. */
export function toJson(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === "bigint" ? v.toString() : v));
}

export class Runtime {
  readonly json: boolean;
  private chainPromise?: Promise<ChainContext>;
  private rpcClient?: JsonRpcClient;
  private deploymentCache?: { path: string; file: DeploymentFile } | null;

  constructor(
    readonly io: Io,
    readonly globals: GlobalOptions,
    /** Every transaction the chain context sends is recorded here (the Ctrl-C report). */
    readonly journal: TxJournal = new TxJournal(),
  ) {
    this.json = globals.json === true;
  }

  /** Validated on first use, so commands that need no chain (agent serve) ignore a bad RPC_URL. */
  get rpcUrl(): string {
    return parseRpcUrl(this.globals.rpcUrl ?? this.io.env[ENV.rpcUrl]);
  }

  /** How long one RPC request may take, retries included (--rpc-timeout, CRESOLVER_RPC_TIMEOUT; default 30 s). */
  get rpcTimeoutMs(): number {
    return this.globals.rpcTimeout !== undefined
      ? parseRpcTimeout(this.globals.rpcTimeout)
      : parseRpcTimeout(this.io.env[ENV.rpcTimeout], ENV.rpcTimeout);
  }

  get privateKey(): Hex | undefined {
    return parsePrivateKey(this.globals.privateKey ?? this.io.env[ENV.privateKey]);
  }

  /** Progress and notes for humans: stderr, and only without --json. */
  note(message: string): void {
    if (!this.json) this.io.stderr(`${message}\n`);
  }

  /** The command's result: one JSON object with --json, else the text. */
  emit(result: Record<string, unknown>, text: string): void {
    this.io.stdout(this.json ? `${toJson(result)}\n` : `${text}\n`);
  }

  requireKey(): Hex {
    const key = this.privateKey;
    if (!key) throw new CliError(`this command sends a transaction: pass --private-key or set ${ENV.privateKey}`);
    return key;
  }

  chain(options: { needsKey?: boolean } = {}): Promise<ChainContext> {
    if (options.needsKey) this.requireKey();
    if (!this.chainPromise) {
      const rpcUrl = this.rpcUrl;
      const privateKey = this.privateKey;
      const deadlineMs = this.rpcTimeoutMs;
      this.chainPromise = import("../../workflow/chain/clients.js").then(async ({ connect }) => {
        const ctx = await connect({ rpcUrl, ...(privateKey ? { privateKey } : {}), retry: { deadlineMs } });
        return { ...ctx, onTx: this.journal.record };
      });
    }
    return this.chainPromise;
  }

  /** Raw JSON-RPC reads without viem (cli/shared/json-rpc.ts), under the same --rpc-timeout. */
  rpc(): JsonRpcClient {
    this.rpcClient ??= new JsonRpcClient(this.rpcUrl, this.rpcTimeoutMs);
    return this.rpcClient;
  }

  /** The connected chain's id: from the chain context when there is one, else one light eth_chainId. */
  chainId(): Promise<number> {
    return this.chainPromise !== undefined ? this.chainPromise.then((c) => c.chainId) : this.rpc().chainId();
  }

  /** The deployment file: --deployment, CRESOLVER_DEPLOYMENT, or deployments/<network>.json for the connected chain. */
  async deployment(options: { required: boolean }): Promise<DeploymentFile | undefined> {
    if (this.deploymentCache === undefined) {
      const given = this.globals.deployment ?? this.io.env[ENV.deployment];
      const chainId = await this.chainId();
      const path = resolve(this.io.cwd, given ?? `deployments/${networkNameFor(chainId)}.json`);
      if (given === undefined && !options.required) {
        try {
          this.deploymentCache = { path, file: loadDeploymentFile(path) };
        } catch {
          this.deploymentCache = null;
        }
      } else {
        this.deploymentCache = { path, file: loadDeploymentFile(path) };
      }
      if (this.deploymentCache && this.deploymentCache.file.chainId !== chainId) {
        throw new CliError(
          `deployment file ${path} is for chain ${this.deploymentCache.file.chainId}, but the RPC endpoint is on chain ${chainId}`,
        );
      }
    }
    return this.deploymentCache?.file;
  }

  async marketAddress(): Promise<Address> {
    if (this.globals.market !== undefined) return parseAddress(this.globals.market, "--market");
    const file = await this.deployment({ required: true });
    return (file as DeploymentFile).contracts.ResolutionMarket.address;
  }

  /** For commands that send a market transaction: fails fast without a key, then the market and a signing context. */
  async marketSigner(): Promise<{ market: Address; ctx: ChainContext }> {
    this.requireKey();
    const market = await this.marketAddress();
    return { market, ctx: await this.chain({ needsKey: true }) };
  }

  /** Where log scans of the market start: its deployment block from the deployment file, else 0. */
  async marketFromBlock(): Promise<bigint> {
    if (this.globals.market !== undefined) return 0n;
    const block = (await this.deployment({ required: false }))?.contracts.ResolutionMarket.blockNumber;
    return block !== undefined ? BigInt(block) : 0n;
  }

  async identityAddress(): Promise<Address> {
    if (this.globals.identity !== undefined) return parseAddress(this.globals.identity, "--identity");
    if (this.globals.market !== undefined) {
      const ctx = await this.chain();
      const market = parseAddress(this.globals.market, "--market");
      // The generated ABIs (~120 KB) load with the chain layer, not with every command.
      const { resolutionMarketAbi } = await import("../../workflow/chain/abis.js");
      return ctx.publicClient
        .readContract({ address: market, abi: resolutionMarketAbi, functionName: "identityRegistry" })
        .catch(async (e: unknown) => {
          const { toChainError } = await import("../../workflow/chain/errors.js");
          throw toChainError(e, `ResolutionMarket.identityRegistry at ${market}`);
        });
    }
    const file = await this.deployment({ required: true });
    return (file as DeploymentFile).contracts.IdentityRegistry.address;
  }
}
