/** Pure input parsing of the CLI. */
import { describe, expect, it } from "vitest";
import {
  networkNameFor,
  parseAddress,
  parseAgentUri,
  parseDeadline,
  parseDuration,
  parseEth,
  parsePrivateKey,
  parseRpcUrl,
  parseUint,
  referenceTime,
} from "../../../cli/shared/config.js";
import { redactUrl } from "../../../workflow/chain/clients.js";
import { formatRevert } from "../../../workflow/chain/errors.js";

const NOW = 1_800_000_000n;

describe("parseDeadline", () => {
  it("accepts Unix seconds, ISO dates and +durations relative to chain time", () => {
    expect(parseDeadline("1800000600", NOW)).toBe(1_800_000_600n);
    expect(parseDeadline("+90s", NOW)).toBe(NOW + 90n);
    expect(parseDeadline("+10m", NOW)).toBe(NOW + 600n);
    expect(parseDeadline("+2h", NOW)).toBe(NOW + 7200n);
    expect(parseDeadline("+3d", NOW)).toBe(NOW + 259_200n);
    expect(parseDeadline("2027-06-01T00:00:00Z", NOW)).toBe(BigInt(Date.parse("2027-06-01T00:00:00Z") / 1000));
  });
  it("refuses the past, now, and anything else", () => {
    expect(() => parseDeadline("1800000000", NOW)).toThrow(/is not in the future \(now 2027-01-15T08:00:00.000Z\)/);
    expect(() => parseDeadline("2020-01-01", NOW)).toThrow(/2020-01-01T00:00:00.000Z is not in the future/);
    for (const bad of ["", "+10", "10m", "+-5m", "+1w", "soon", "2027-13-45", "1e9"])
      expect(() => parseDeadline(bad, NOW), bad).toThrow(/--deadline must be/);
  });
});

describe("relative deadlines (issue 13 item 8)", () => {
  it("+0m is refused as not in the future, never with a 1970 time", () => {
    for (const now of [0n, NOW]) {
      try {
        parseDeadline("+0m", now);
        expect.unreachable();
      } catch (e) {
        expect((e as Error).message).toMatch(/--deadline \+0m is not in the future/);
        expect((e as Error).message).not.toMatch(/1970/);
      }
    }
  });
  it("the reference time is the wall clock on an idle chain and the chain time when it is ahead", () => {
    const wallMs = 1_800_000_000_000;
    // Idle chain: the last block is an hour old; +10m must not be 50 minutes in the past of the next block.
    expect(referenceTime(1_800_000_000n - 3600n, wallMs)).toBe(1_800_000_000n);
    expect(parseDeadline("+10m", referenceTime(1_800_000_000n - 3600n, wallMs))).toBe(1_800_000_600n);
    // Time-travelled local chain (evm_increaseTime): the block time is ahead of the wall clock.
    expect(referenceTime(1_800_086_400n, wallMs)).toBe(1_800_086_400n);
  });
  it("durations", () => {
    expect(parseDuration("600", "--w")).toBe(600);
    expect(parseDuration("10m", "--w")).toBe(600);
    expect(parseDuration("1d", "--w")).toBe(86_400);
    for (const bad of ["", "+10m", "10w", "-5", "1.5h"])
      expect(() => parseDuration(bad, "--w"), bad).toThrow(/--w must be a duration/);
  });
});

describe("values", () => {
  it("ids, amounts, addresses, URLs", () => {
    expect(parseUint("0", "id")).toBe(0n);
    expect(() => parseUint("1.5", "id")).toThrow(/id must be a non-negative integer/);
    expect(() => parseUint((2n ** 256n).toString(), "id")).toThrow(/larger than a uint256/);
    expect(parseEth("0.001", "--stake")).toBe(10n ** 15n);
    expect(() => parseEth("0.0000000000000000001", "--stake")).toThrow(/amount in ETH/);
    expect(parseAddress("0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266", "--x")).toBe(
      "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
    );
    expect(() => parseAddress("0xF39fd6e51aad88f6f4ce6ab8827279cfffb92266", "--x")).toThrow(/checksummed/);
    expect(parseRpcUrl(undefined)).toBe("http://127.0.0.1:8545");
    expect(() => parseRpcUrl("ws://x")).toThrow(/http\(s\) URL/);
    expect(parseAgentUri("ipfs://bafy/agent.json")).toBe("ipfs://bafy/agent.json");
    expect(() => parseAgentUri("javascript:alert(1)")).toThrow(/https:\/\/, ipfs:\/\/ or data:/);
    expect(networkNameFor(11155111)).toBe("sepolia");
    expect(networkNameFor(31337)).toBe("localhost");
    expect(networkNameFor(8453)).toBe("chain-8453");
  });
  it("keys: accepted with or without 0x, never echoed", () => {
    const key = "ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
    expect(parsePrivateKey(key)).toBe(`0x${key}`);
    expect(parsePrivateKey("")).toBeUndefined();
    try {
      parsePrivateKey(`${key}00`);
      expect.unreachable();
    } catch (e) {
      expect((e as Error).message).not.toContain(key);
    }
  });
  it("RPC URLs are shown without paths that may hold API keys", () => {
    expect(redactUrl("https://eth-sepolia.g.alchemy.com/v2/SECRET")).toBe("https://eth-sepolia.g.alchemy.com/…");
    expect(redactUrl("http://127.0.0.1:8545")).toBe("http://127.0.0.1:8545");
  });
  it("formats decoded reverts", () => {
    expect(formatRevert("WrongStatus", { marketId: 3n, status: 3 })).toBe("WrongStatus(marketId=3, status=Resolved)");
  });
});
