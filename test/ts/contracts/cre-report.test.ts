/**
 * The CRE report encoder without a chain: round trip, refusal of values the contract types cannot hold, and the
 * metadata layout the KeystoneForwarder hands the receiver. (cre-receiver.test.ts checks the contract decodes
 * the same bytes.)
 */
import { describe, expect, it } from "vitest";
import { keccak256, size, slice, toHex, zeroHash, type Hex } from "viem";
import {
  ANSWER,
  VERDICT,
  decodeCreReport,
  encodeCreMetadata,
  encodeCreReport,
  type CreReport,
} from "../../../workflow/chain/cre-report.js";

const base: CreReport = {
  chainId: 11155111n,
  market: "0x000000000000000000000000000000000000bEEF",
  marketId: 7n,
  verdict: VERDICT.invalid,
  reports: [
    {
      answer: ANSWER.yes,
      confidenceBps: 10000,
      resQuality: 100,
      srcQuality: 0,
      analysisDepth: 55,
      replyHash: keccak256(toHex("reply")),
      signature: "0x1234",
    },
    {
      answer: ANSWER.abstained,
      confidenceBps: 0,
      resQuality: 0,
      srcQuality: 0,
      analysisDepth: 0,
      replyHash: zeroHash,
      signature: "0x",
    },
  ],
  bundleHash: keccak256(toHex("bundle")),
  bundleURI: "ipfs://bafy/bundle.json",
};

describe("encodeCreReport", () => {
  it("round-trips, with the chain id, market and verdict in the first head words", () => {
    const data = encodeCreReport(base);
    expect(decodeCreReport(data)).toEqual(base);
    expect(BigInt(slice(data, 0, 32))).toBe(11155111n);
    expect(BigInt(slice(data, 32, 64))).toBe(0xbeefn);
    expect(BigInt(slice(data, 64, 96))).toBe(7n);
    expect(BigInt(slice(data, 96, 128))).toBe(2n);
    // 7 head words + reports (length, 2 offsets, 2 x 7 tuple words, each signature's length + its padded bytes:
    // 1 + 1 and 1 + 0) + URI (length + 1 word).
    expect(size(data)).toBe(32 * (7 + 1 + 2 + 14 + 2 + 1 + 1 + 1));
  });

  it("refuses what the contract types cannot hold", () => {
    expect(() => encodeCreReport({ ...base, verdict: 3 })).toThrow(/verdict/);
    expect(() => encodeCreReport({ ...base, reports: [{ ...base.reports[0]!, answer: 4 }] })).toThrow(/answer/);
    expect(() => encodeCreReport({ ...base, reports: [{ ...base.reports[0]!, confidenceBps: 65536 }] })).toThrow(
      /confidenceBps/,
    );
    expect(() => encodeCreReport({ ...base, reports: [{ ...base.reports[0]!, srcQuality: 256 }] })).toThrow(
      /srcQuality/,
    );
    expect(() => encodeCreReport({ ...base, reports: [{ ...base.reports[0]!, analysisDepth: 1.5 }] })).toThrow(
      /analysisDepth/,
    );
  });
});

describe("encodeCreMetadata", () => {
  it("packs workflowId | name (10 bytes) | owner | reportId: 64 bytes, the first 62 are what the receiver reads", () => {
    const id: Hex = keccak256(toHex("wf"));
    const meta = encodeCreMetadata(id, "0x63726573736f6c766572", "0x0000000000000000000000000000000000000DE2");
    expect(size(meta)).toBe(64);
    expect(slice(meta, 0, 32)).toBe(id);
    expect(slice(meta, 32, 42)).toBe("0x63726573736f6c766572");
    expect(slice(meta, 42, 62)).toBe("0x0000000000000000000000000000000000000de2");
    expect(slice(meta, 62, 64)).toBe("0x0001");
  });
});
