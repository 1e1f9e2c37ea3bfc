/**
 * Stage 10 — write: hands the SettlementPlan to the ResolutionWriter port (on-chain:
 * IResolutionMarket.resolveMarket). Only resolved markets are written here; what to do on-chain for
 * no-quorum / no-margin is decided by later issues. A failed write is reported, not thrown: the
 * bundle and plan stay valid and the caller can retry the write.
 */
import type { SettlementPlan } from "../core/types.js";
import type { ResolutionWriter, WriteReceipt } from "../ports.js";
import { errorName } from "./errors.js";

export type WriteOutcome =
  | { status: "written"; receipt: WriteReceipt }
  | { status: "skipped"; reason: string }
  /** The writer found the market settled already (another resolver won the race): nothing was sent. */
  | { status: "already-settled"; reason: string }
  /** `error`: the error's name and (viem) short message, clipped; `cause`: the error itself, for the caller. */
  | { status: "failed"; error: string; cause: unknown };

export async function writeStage(plan: SettlementPlan | undefined, writer: ResolutionWriter | undefined): Promise<WriteOutcome> {
  if (plan === undefined) return { status: "skipped", reason: "market not resolved" };
  if (writer === undefined) return { status: "skipped", reason: "no writer configured (dry run)" };
  try {
    const receipt = await writer.writeResolution(plan);
    if (receipt.alreadySettled !== undefined) return { status: "already-settled", reason: receipt.alreadySettled };
    return { status: "written", receipt };
  } catch (error) {
    const short = (error as { shortMessage?: unknown } | null)?.shortMessage;
    const detail = typeof short === "string" ? `: ${short.slice(0, 300)}` : "";
    return { status: "failed", error: `${errorName(error)}${detail}`, cause: error };
  }
}
