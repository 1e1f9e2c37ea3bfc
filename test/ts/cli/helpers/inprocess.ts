/**
 * The CLI in-process (`run(argv, io)`) over a loopback RPC bridge to a fresh Hardhat in-process chain, with the
 * contracts deployed by `cresolver deploy` itself. `cresolver(args)` runs one command with --json (unless
 * `json: false`); `refuses(args, pattern)` expects a one-line error and an empty stdout.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { network } from "hardhat";
import { expect } from "vitest";
import type { Address, Hex } from "viem";
import { run } from "../../../../cli/program.js";
import { referenceTime } from "../../../../cli/shared/config.js";
import type { ResolvePipeline } from "../../../../cli/shared/resolve-pipeline.js";
import { connectProvider, type ChainContext } from "../../../../workflow/chain/clients.js";
import { hardhatKey } from "./keys.js";
import { startRpcBridge, type RpcBridge } from "./rpc-bridge.js";

export type Provider = { request(args: { method: string; params?: unknown[] }): Promise<unknown> };

export interface Out {
  code: number;
  stdout: string;
  stderr: string;
  json?: Record<string, unknown>;
}

export interface CliOptions {
  key?: Hex;
  env?: Record<string, string>;
  pipeline?: ResolvePipeline;
  /** false: text output (no --json). */
  json?: boolean;
}

export interface CliHarness {
  provider: Provider;
  bridge: RpcBridge;
  dir: string;
  /** Key 0: deployer, owner and resolver. */
  owner: ChainContext;
  market: Address;
  identity: Address;
  cresolver(args: string[], options?: CliOptions): Promise<Out>;
  refuses(args: string[], pattern: RegExp, options?: CliOptions & { code?: number }): Promise<void>;
  now(): Promise<bigint>;
  /** Mines one block `seconds` after the CLI's "now" (max(wall clock, latest block time)): deadlines it counts pass. */
  increaseTime(seconds: number): Promise<void>;
  close(): Promise<void>;
}

export async function createCliHarness(deployArgs: string[] = []): Promise<CliHarness> {
  const provider = (await network.create()).provider as unknown as Provider;
  const bridge = await startRpcBridge(provider);
  const dir = mkdtempSync(join(tmpdir(), "cresolver-cli-"));
  const owner = await connectProvider({ provider, privateKey: hardhatKey(0) });

  const cresolver = async (args: string[], options: CliOptions = {}): Promise<Out> => {
    let stdout = "";
    let stderr = "";
    const env: Record<string, string> = {
      RPC_URL: bridge.url,
      ...(options.key ? { PRIVATE_KEY: options.key } : {}),
      ...options.env,
    };
    const code = await run(
      [...(options.json === false ? [] : ["--json"]), ...args],
      { stdout: (s) => (stdout += s), stderr: (s) => (stderr += s), env, cwd: dir },
      options.pipeline ? { resolvePipeline: options.pipeline } : {},
    );
    return {
      code,
      stdout,
      stderr,
      ...(code === 0 && stdout && options.json !== false
        ? { json: JSON.parse(stdout) as Record<string, unknown> }
        : {}),
    };
  };
  const refuses = async (
    args: string[],
    pattern: RegExp,
    options: CliOptions & { code?: number } = {},
  ): Promise<void> => {
    const r = await cresolver(args, options);
    expect({ args: args.join(" "), code: r.code, stdout: r.stdout }).toEqual({
      args: args.join(" "),
      code: options.code ?? 2,
      stdout: "",
    });
    const lines = r.stderr.trimEnd().split("\n");
    expect(lines, r.stderr).toHaveLength(1);
    expect(lines[0]).toMatch(/^error: /);
    expect(lines[0]).toMatch(pattern);
  };
  const deployed = await cresolver(["deploy", ...deployArgs], { key: hardhatKey(0) });
  if (deployed.code !== 0) throw new Error(`deploy failed: ${deployed.stderr}`);
  const contracts = deployed.json!.contracts as Record<string, { address: Address }>;
  return {
    provider,
    bridge,
    dir,
    owner,
    market: contracts.ResolutionMarket.address,
    identity: contracts.IdentityRegistry.address,
    cresolver,
    refuses,
    now: async () => (await owner.publicClient.getBlock({ blockTag: "latest" })).timestamp,
    increaseTime: async (seconds) => {
      // `seconds` after the CLI's "now" (referenceTime: max(wall clock, latest block)), not after the chain's own
      // clock: an in-process chain's clock runs behind the wall clock by the time it took to start (its genesis time
      // is taken first; many seconds on a loaded machine), and the CLI counts relative deadlines from the wall clock,
      // so evm_increaseTime could land before a deadline it should pass ("deadline … has not been reached").
      const latest = (await owner.publicClient.getBlock({ blockTag: "latest" })).timestamp;
      const at = referenceTime(latest) + BigInt(seconds);
      await provider.request({ method: "evm_setNextBlockTimestamp", params: [`0x${at.toString(16)}`] });
      await provider.request({ method: "evm_mine", params: [] });
    },
    close: async () => {
      await bridge.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
