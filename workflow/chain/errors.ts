/**
 * Errors of the chain layer, with reverts decoded to their custom error name and arguments.
 *
 * Every revert is decoded against the union of the custom errors of all our contracts (and the
 * OpenZeppelin errors they inherit), because an error raised by a registry bubbles up unchanged
 * through the market that called it.
 */
import { BaseError, ContractFunctionRevertedError, decodeErrorResult, type Abi, type Hex } from "viem";
import { STATUS_NAMES } from "../core/codes.js";
import {
  bettingMarketAbi,
  committeeArbiterAbi,
  creReceiverAbi,
  identityRegistryAbi,
  reputationRegistryAbi,
  resolutionMarketAbi,
  umaArbiterAbi,
} from "./abis.js";
import { ChainError, type ChainErrorKind } from "./chain-error.js";

type AbiError = Extract<Abi[number], { type: "error" }>;

export { ChainError, type ChainErrorKind };

const ALL_ABIS: readonly Abi[] = [
  resolutionMarketAbi,
  identityRegistryAbi,
  reputationRegistryAbi,
  bettingMarketAbi,
  creReceiverAbi,
  committeeArbiterAbi,
  umaArbiterAbi,
];

function signatureOf(item: AbiError): string {
  return `${item.name}(${item.inputs.map((i) => i.type).join(",")})`;
}

/** Every custom error of our contracts, once per signature. */
export const allErrorsAbi: readonly AbiError[] = (() => {
  const seen = new Map<string, AbiError>();
  for (const abi of ALL_ABIS) {
    for (const item of abi)
      if (item.type === "error" && !seen.has(signatureOf(item))) seen.set(signatureOf(item), item);
  }
  return [...seen.values()];
})();

/** `abi` plus every custom error of our contracts not already in it (its functions and events are unchanged). */
export function withAllErrors<const A extends Abi>(abi: A): readonly (A[number] | AbiError)[] {
  const own = new Set(abi.filter((i): i is AbiError => i.type === "error").map(signatureOf));
  return [...abi, ...allErrorsAbi.filter((e) => !own.has(signatureOf(e)))];
}

/** IResolutionMarket.Status names (v2 appends Proposed and Disputed), for readable WrongStatus errors. */
/** Re-exported for callers that took it from here; the table lives in workflow/core/codes.ts. */
export { STATUS_NAMES };

function formatValue(name: string, value: unknown): string {
  if (typeof value === "bigint") return value.toString();
  if (typeof value === "number" && name === "status" && STATUS_NAMES[value] !== undefined) return STATUS_NAMES[value];
  if (typeof value === "string") return value.length > 120 ? `${value.slice(0, 117)}...` : value;
  if (Array.isArray(value)) return `[${value.map((v) => formatValue("", v)).join(",")}]`;
  return String(value);
}

function namedArgs(errorName: string, args: readonly unknown[] | undefined): Record<string, unknown> {
  const item = allErrorsAbi.find((e) => e.name === errorName && e.inputs.length === (args?.length ?? 0));
  const out: Record<string, unknown> = {};
  (args ?? []).forEach((value, i) => {
    out[item?.inputs[i]?.name || `arg${i}`] = value;
  });
  return out;
}

/** "StakeTooLow(stake=1, minStake=1000000000000000)". */
export function formatRevert(errorName: string, args: Record<string, unknown>): string {
  const parts = Object.entries(args).map(([k, v]) => `${k}=${formatValue(k, v)}`);
  return `${errorName}(${parts.join(", ")})`;
}

/** Revert data carried anywhere in a viem error chain. */
function revertData(error: BaseError): Hex | undefined {
  let found: Hex | undefined;
  error.walk((e) => {
    const data = (e as { data?: unknown }).data;
    if (typeof data === "string" && /^0x[0-9a-fA-F]*$/.test(data) && data.length >= 10) found = data as Hex;
    else if (data && typeof data === "object" && typeof (data as { data?: unknown }).data === "string") {
      const inner = (data as { data: string }).data;
      if (/^0x[0-9a-fA-F]*$/.test(inner) && inner.length >= 10) found = inner as Hex;
    }
    return false;
  });
  return found;
}

function shortMessage(error: unknown): string {
  if (error instanceof BaseError) return error.shortMessage.split("\n")[0] ?? "";
  if (error instanceof Error) return error.message.split("\n")[0] ?? "";
  return String(error);
}

/**
 * Turns anything a viem call threw into a ChainError naming what was attempted (`what`, e.g.
 * "ResolutionMarket.joinMarket") and, for reverts, the decoded custom error.
 */
export function toChainError(error: unknown, what: string): ChainError {
  if (error instanceof ChainError) return error;
  if (error instanceof BaseError) {
    const reverted = error.walk(
      (e) => e instanceof ContractFunctionRevertedError,
    ) as ContractFunctionRevertedError | null;
    let errorName = reverted?.data?.errorName;
    let args: readonly unknown[] | undefined = reverted?.data?.args as readonly unknown[] | undefined;
    let reason = reverted?.reason;
    if (errorName === undefined) {
      const data = revertData(error);
      if (data !== undefined) {
        try {
          const decoded = decodeErrorResult({ abi: allErrorsAbi, data });
          errorName = decoded.errorName;
          args = decoded.args as readonly unknown[] | undefined;
        } catch {
          if (data.startsWith("0x08c379a0") || data.startsWith("0x4e487b71")) {
            // Error(string) / Panic(uint256): viem's own decoder handles them.
            try {
              const decoded = decodeErrorResult({ abi: [], data });
              errorName = decoded.errorName;
              args = decoded.args as readonly unknown[] | undefined;
            } catch {
              /* keep undecoded */
            }
          } else {
            return new ChainError("revert", `${what} reverted with an unknown error (selector ${data.slice(0, 10)})`, {
              cause: error,
            });
          }
        }
      }
    }
    if (errorName === "Error" && args?.length === 1) reason = String(args[0]);
    if (errorName !== undefined && errorName !== "Error") {
      const named = namedArgs(errorName, args);
      return new ChainError("revert", `${what} reverted: ${formatRevert(errorName, named)}`, {
        errorName,
        args: named,
        cause: error,
      });
    }
    if (reason !== undefined) {
      return new ChainError("revert", `${what} reverted: ${reason}`, {
        errorName: "Error",
        args: { message: reason },
        cause: error,
      });
    }
    if (reverted !== null || /revert/i.test(error.shortMessage)) {
      return new ChainError("revert", `${what} reverted without a reason`, { cause: error });
    }
    return new ChainError("rpc", `${what} failed: ${shortMessage(error)}`, { cause: error });
  }
  return new ChainError("rpc", `${what} failed: ${shortMessage(error)}`, { cause: error });
}
