/**
 * The one encoder of CREsolver reports for `CREReceiver.onReport` (tests, the CRE workflow, tooling).
 *
 * Report: `abi.encode(uint256 chainId, address market, uint256 marketId, uint8 verdict,
 * WorkerReport[] reports, bytes32 bundleHash, string bundleURI)` with
 * `WorkerReport = (uint8 answer, uint16 confidenceBps, uint8 resQuality, uint8 srcQuality, uint8 analysisDepth,
 * bytes32 replyHash, bytes signature)` (docs/RECORDS.md §2; an empty signature: attested by the proposer).
 * viem's encoding is the canonical one the receiver insists on (it re-encodes and compares).
 * Metadata: what the KeystoneForwarder hands the receiver, `workflowId | workflowName (10 bytes) | workflowOwner`
 * followed by a 2-byte report id.
 */
import {
  decodeAbiParameters,
  encodeAbiParameters,
  encodePacked,
  getAddress,
  parseAbiParameters,
  zeroHash,
  type Address,
  type Hex,
} from "viem";
import { ANSWER_CODE, VERDICT_CODE } from "../core/codes.js";
import type { VerdictKind, WorkerReport } from "../core/types.js";

/** `IResolutionMarket.Verdict` and `Answer` codes (one table: workflow/core/codes.ts). */
export { ANSWER_CODE as ANSWER, VERDICT_CODE as VERDICT } from "../core/codes.js";
export type VerdictName = VerdictKind;

/** One seat's `IResolutionMarket.WorkerReport`: the pipeline's WorkerReport with the answer as its uint8 code. */
export type WorkerReportWire = Omit<WorkerReport, "answer"> & { answer: number };

export interface CreReport {
  chainId: bigint | number;
  market: Address;
  marketId: bigint;
  verdict: number;
  reports: readonly WorkerReportWire[];
  bundleHash: Hex;
  bundleURI: string;
}

export const CRE_REPORT_PARAMS = parseAbiParameters(
  "uint256 chainId, address market, uint256 marketId, uint8 verdict, (uint8 answer, uint16 confidenceBps, uint8 resQuality, uint8 srcQuality, uint8 analysisDepth, bytes32 replyHash, bytes signature)[] reports, bytes32 bundleHash, string bundleURI",
);

function checkReport(r: CreReport): void {
  if (!Object.values<number>(VERDICT_CODE).includes(r.verdict))
    throw new RangeError(`verdict ${r.verdict} is not 0 (no), 1 (yes) or 2 (invalid)`);
  r.reports.forEach((w, i) => {
    if (!Object.values<number>(ANSWER_CODE).includes(w.answer))
      throw new RangeError(`reports[${i}].answer ${w.answer} is not an Answer`);
    if (!Number.isInteger(w.confidenceBps) || w.confidenceBps < 0 || w.confidenceBps > 0xffff)
      throw new RangeError(`reports[${i}].confidenceBps ${w.confidenceBps} is not a uint16`);
    for (const k of ["resQuality", "srcQuality", "analysisDepth"] as const) {
      if (!Number.isInteger(w[k]) || w[k] < 0 || w[k] > 0xff)
        throw new RangeError(`reports[${i}].${k} ${w[k]} is not a uint8`);
    }
  });
}

/** ABI-encodes a report exactly as `CREReceiver.decodeReport` expects it. Throws RangeError on out-of-range fields. */
export function encodeCreReport(report: CreReport): Hex {
  checkReport(report);
  return encodeAbiParameters(CRE_REPORT_PARAMS, [
    BigInt(report.chainId),
    getAddress(report.market),
    report.marketId,
    report.verdict,
    report.reports.map((w) => ({ ...w, replyHash: w.replyHash ?? zeroHash, signature: w.signature ?? "0x" })),
    report.bundleHash,
    report.bundleURI,
  ]);
}

/** The inverse of `encodeCreReport` (no canonicality check: the receiver does that). */
export function decodeCreReport(data: Hex): CreReport {
  const [chainId, market, marketId, verdict, reports, bundleHash, bundleURI] = decodeAbiParameters(
    CRE_REPORT_PARAMS,
    data,
  );
  return { chainId, market, marketId, verdict, reports: reports.map((w) => ({ ...w })), bundleHash, bundleURI };
}

/** The metadata the KeystoneForwarder passes: `workflowId | workflowName | workflowOwner | reportId`. */
export function encodeCreMetadata(
  workflowId: Hex,
  workflowName: Hex,
  workflowOwner: Address,
  reportId: Hex = "0x0001",
): Hex {
  return encodePacked(["bytes32", "bytes10", "address", "bytes2"], [workflowId, workflowName, workflowOwner, reportId]);
}
