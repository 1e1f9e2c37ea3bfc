/**
 * The one transaction send path: estimate → gas limit (head room, never above EIP-7825's 2^24 nor the caller's
 * cap) → nonce-serialised send → receipt, every failure a ChainError naming what was attempted, with its revert
 * decoded and, where the caller knows one, explained in words. Contract calls (writer.ts), deployments (deploy.ts)
 * and UMA's stack (uma.ts) all send through here.
 */
import { getAddress, type Address, type Hex, type TransactionReceipt } from "viem";
import { requireWallet, type ChainContext } from "./clients.js";
import { ChainError, toChainError } from "./errors.js";
import { cappedGas, PROTOCOL_TX_GAS_CAP, withHeadroom } from "./gas.js";

/**
 * Plain words for a known revert, by custom error name: given the decoded arguments, the sentence that replaces the
 * bare revert in the error message (e.g. "the dispute window is open until …: finalize after it").
 */
export type RevertExplanations = Readonly<Record<string, (args: Readonly<Record<string, unknown>>) => string>>;

export interface RawSend {
  /** Contract to call; absent for a contract creation. */
  to?: Address;
  data: Hex;
  value?: bigint;
  /** Explicit gas limit, or a function of the estimate. Default: the estimate + 20 %, at most 2^24 (EIP-7825). */
  gas?: bigint | ((estimate: bigint) => bigint);
  /** What is attempted, for errors, e.g. "ResolutionMarket.finalize" or "deploy Finder". */
  label: string;
  /** Reverts this caller can say in words (matched by custom error name). */
  explain?: RevertExplanations;
  /** Called with the hash as soon as the node accepted the transaction, before waiting for its receipt. */
  onSent?: (hash: Hex) => void;
}

export interface SentTx {
  hash: Hex;
  receipt: TransactionReceipt;
}

/** `error` as a ChainError labelled `label`, with a known revert turned into the caller's words. */
export function explainedError(error: unknown, label: string, explain: RevertExplanations = {}): ChainError {
  const e = toChainError(error, label);
  const words = e.errorName === undefined ? undefined : explain[e.errorName];
  if (e.kind !== "revert" || words === undefined || e.errorName === undefined) return e;
  const args = e.args ?? {};
  return new ChainError("precondition", `${label}: ${words(args)}`, { errorName: e.errorName, args, cause: e });
}

/** The gas limit for `send`: explicit, the caller's function of the estimate, or the estimate + 20 % under 2^24. */
async function gasLimit(ctx: ChainContext, from: Address, send: RawSend): Promise<bigint> {
  if (typeof send.gas === "bigint") return cappedGas(send.label, send.gas, send.gas, PROTOCOL_TX_GAS_CAP);
  const estimate = await ctx.publicClient.estimateGas({
    account: from,
    data: send.data,
    ...(send.to !== undefined ? { to: send.to } : {}),
    ...(send.value !== undefined ? { value: send.value } : {}),
  });
  const want = send.gas ? send.gas(estimate) : withHeadroom(estimate);
  return cappedGas(send.label, estimate, want, PROTOCOL_TX_GAS_CAP);
}

/** Sends one transaction from the context's wallet and waits for a successful receipt (see the file comment). */
export async function sendTx(ctx: ChainContext, send: RawSend): Promise<SentTx> {
  const { walletClient, account } = requireWallet(ctx);
  const { label } = send;
  let hash: Hex;
  ctx.onTx?.({ label, stage: "sending" });
  try {
    const gas = await gasLimit(ctx, account.address, send);
    hash = await ctx.nonces.run(
      account.address,
      (address) => ctx.publicClient.getTransactionCount({ address, blockTag: "pending" }),
      (nonce) => {
        ctx.onTx?.({ label, stage: "broadcasting" });
        return walletClient.sendTransaction({
          account,
          chain: ctx.chain,
          data: send.data,
          gas,
          nonce,
          ...(send.to !== undefined ? { to: send.to } : {}),
          ...(send.value !== undefined ? { value: send.value } : {}),
        });
      },
    );
  } catch (error) {
    ctx.onTx?.({ label, stage: "failed" });
    // Constructor and call reverts carry their error data; toChainError decodes it against every known error.
    throw explainedError(error, label, send.explain);
  }
  ctx.onTx?.({ label, stage: "sent", hash });
  send.onSent?.(hash);
  let receipt: TransactionReceipt;
  try {
    receipt = await ctx.publicClient.waitForTransactionReceipt({ hash });
  } catch (error) {
    throw toChainError(error, `${label} (waiting for ${hash})`);
  }
  if (receipt.status !== "success") {
    ctx.onTx?.({ label, stage: "failed", hash });
    throw new ChainError("revert", `${label} reverted on-chain in transaction ${hash} (block ${receipt.blockNumber})`);
  }
  ctx.onTx?.({ label, stage: "confirmed", hash, block: receipt.blockNumber });
  return { hash, receipt };
}

/** Sends a contract creation (`data` = bytecode + encoded constructor arguments); returns the new (checksummed) address too. */
export async function sendCreation(
  ctx: ChainContext,
  send: Omit<RawSend, "to">,
): Promise<SentTx & { address: Address }> {
  const sent = await sendTx(ctx, send);
  const address = sent.receipt.contractAddress;
  if (address === null || address === undefined)
    throw new ChainError("revert", `${send.label} created no contract in transaction ${sent.hash}`);
  return { ...sent, address: getAddress(address) };
}
