/** The chain layer's error, free of viem so light read paths can throw it (errors.ts decodes reverts into it). */
import { CresolverError } from "../util/errors.js";

export type ChainErrorKind =
  /** The EVM reverted: `errorName`/`args` say why when the error is known. */
  | "revert"
  /** The node or the network failed (after retries for transient failures). */
  | "rpc"
  /** The request was refused before anything was sent (bad input, wrong state, missing contract). */
  | "precondition";

export class ChainError extends CresolverError {
  readonly kind: ChainErrorKind;
  /** Custom error name, e.g. "StakeTooLow"; "Error" for require strings, "Panic" for panics. */
  readonly errorName?: string;
  /** Decoded arguments by name (bigints kept). */
  readonly args?: Record<string, unknown>;
  constructor(
    kind: ChainErrorKind,
    message: string,
    details: { errorName?: string; args?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, details.cause === undefined ? undefined : { cause: details.cause });
    this.name = "ChainError";
    this.kind = kind;
    if (details.errorName !== undefined) this.errorName = details.errorName;
    if (details.args !== undefined) this.args = details.args;
  }
}
