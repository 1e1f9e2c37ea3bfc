/**
 * One seat's report as IResolutionMarket's WorkerReport tuple, and back: what `proposeResolution` posts and what
 * its `ResolutionProposed` event carries (docs/RECORDS.md §2).
 */
import { zeroHash, type Hex } from "viem";
import { ANSWER_CODE, ANSWER_NAMES } from "../core/codes.js";
import type { WorkerReport } from "../core/types.js";

/** The ABI tuple of one IResolutionMarket.WorkerReport. */
export interface WorkerReportTuple {
  answer: number;
  confidenceBps: number;
  resQuality: number;
  srcQuality: number;
  analysisDepth: number;
  /** keccak256 of the agent's canonical reply (zero when the protocol carries none: docs/RECORDS.md §2). */
  replyHash: Hex;
  /** The agent's EIP-712 signature; empty: the seat is attested by the proposer only. */
  signature: Hex;
}

export function encodeReport(r: WorkerReport): WorkerReportTuple {
  return {
    answer: ANSWER_CODE[r.answer],
    confidenceBps: r.confidenceBps,
    resQuality: r.resQuality,
    srcQuality: r.srcQuality,
    analysisDepth: r.analysisDepth,
    replyHash: r.replyHash ?? zeroHash,
    signature: r.signature ?? "0x",
  };
}

export function decodeReport(t: {
  answer: number;
  confidenceBps: number;
  resQuality: number;
  srcQuality: number;
  analysisDepth: number;
}): WorkerReport {
  return {
    answer: ANSWER_NAMES[t.answer] ?? "failed",
    confidenceBps: Number(t.confidenceBps),
    resQuality: Number(t.resQuality),
    srcQuality: Number(t.srcQuality),
    analysisDepth: Number(t.analysisDepth),
  };
}
