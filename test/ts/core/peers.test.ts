import { describe, expect, it } from "vitest";
import { peerFindings } from "../../../workflow/core/peers.js";
import type { Address, WorkerRecord } from "../../../workflow/core/types.js";

const addr = (n: number) => `0x${n.toString(16).padStart(40, "0")}` as Address;
const record = (
  n: number,
  determination: boolean,
  evidence: string,
  extras?: Record<string, unknown>,
): WorkerRecord => ({
  seat: { address: addr(n), agentId: BigInt(100 + n), stake: 1n },
  endpoint: { url: `https://w${n}.example/`, protocol: "cresolver" },
  answer: {
    determination,
    confidence: 0.5 + n / 100,
    evidence,
    sources: [`https://s${n}.example/x`],
    ...(extras ? { extras } : {}),
  },
});

describe("peerFindings", () => {
  const panel = [
    record(1, true, "alpha"),
    record(2, false, "beta", { agent: "secret-name" }),
    record(3, true, "gamma"),
    { seat: { address: addr(4), agentId: 104n, stake: 1n } },
  ];

  it("gives every other answering worker's finding, never the worker's own or a non-responder's", () => {
    const peers = peerFindings(panel, addr(1));
    expect(peers.map((p) => p.evidence).sort()).toEqual(["beta", "gamma"]);
    expect(peerFindings(panel, addr(4)).length).toBe(3);
  });

  it("carries no identity: no address, agent id or extras", () => {
    const text = JSON.stringify(peerFindings(panel, addr(3)));
    expect(text).not.toContain(addr(2).slice(2));
    expect(text).not.toContain("102");
    expect(text).not.toContain("secret-name");
    expect(Object.keys(peerFindings(panel, addr(3))[0]!).sort()).toEqual([
      "confidence",
      "determination",
      "evidence",
      "sources",
    ]);
  });

  it("orders findings by content, not by seat, so join order is not revealed", () => {
    const reversed = [...panel].reverse();
    expect(peerFindings(reversed, addr(4))).toEqual(peerFindings(panel, addr(4)));
  });

  it("matches the worker's own address case-insensitively", () => {
    expect(
      peerFindings(panel, addr(1).toUpperCase().replace("0X", "0x") as Address).map((p) => p.evidence),
    ).not.toContain("alpha");
  });
});
