/**
 * `market list`'s own coding of marketCount/getMarket (cli/shared/market-abi.ts) against the generated ABI and
 * viem's coder: same selectors, the same tuple layout, the same values for random markets (questions of any length
 * and script), and malformed answers refused with one clear error instead of a wrong market.
 */
import {
  decodeFunctionResult,
  encodeFunctionData,
  encodeFunctionResult,
  getAbiItem,
  type Hex,
  toFunctionSelector,
} from "viem";
import { describe, expect, it } from "vitest";
import {
  decodeMarketCount,
  decodeMarketInfo,
  encodeGetMarket,
  GET_MARKET_SELECTOR,
  MARKET_COUNT_SELECTOR,
  MARKET_INFO_LAYOUT,
} from "../../../cli/shared/market-abi.js";
import { ChainError } from "../../../workflow/chain/chain-error.js";
import { resolutionMarketAbi } from "../../../workflow/chain/abis.js";
import { rng } from "../core/record-fixtures.js";

const getMarket = getAbiItem({ abi: resolutionMarketAbi, name: "getMarket" });
const marketCount = getAbiItem({ abi: resolutionMarketAbi, name: "marketCount" });

const next = rng(23);
const uint = (bits: number): bigint => {
  let v = 0n;
  for (let b = 0; b < bits; b += 16) v = (v << 16n) | BigInt(Math.floor(next() * 65_536));
  return v & ((1n << BigInt(bits)) - 1n);
};
const word = (bits = 256): Hex =>
  `0x${uint(bits)
    .toString(16)
    .padStart(bits / 4, "0")}`;
const ALPHABET = ["a", "Z", "7", " ", "?", "\n", "é", "日本", "‮", "🙂", "\u0000", "ß"];
const question = (): string => {
  const length = Math.floor(next() * next() * 400);
  return Array.from({ length }, () => ALPHABET[Math.floor(next() * ALPHABET.length)] ?? "").join("");
};

function randomInfo() {
  return {
    creator: word(160),
    deadline: uint(64),
    requestedAt: uint(64),
    status: Number(uint(8)),
    outcome: next() < 0.5,
    workerCount: Number(uint(32)),
    rewardPool: uint(256),
    totalStake: uint(256),
    bundleHash: word(),
    question: question(),
    recordCount: uint(256),
    recordHead: word(),
  };
}

const encode = (info: ReturnType<typeof randomInfo>): Hex =>
  encodeFunctionResult({ abi: resolutionMarketAbi, functionName: "getMarket", result: info });

function refused(data: Hex, decode: (d: Hex) => unknown = decodeMarketInfo): string {
  try {
    decode(data);
  } catch (error) {
    expect(error).toBeInstanceOf(ChainError);
    expect((error as ChainError).kind).toBe("rpc");
    return (error as Error).message;
  }
  throw new Error("accepted");
}

describe("market list's marketCount/getMarket coding", () => {
  it("has the generated ABI's selectors and getMarket's tuple layout", () => {
    expect(MARKET_COUNT_SELECTOR).toBe(toFunctionSelector(marketCount));
    expect(GET_MARKET_SELECTOR).toBe(toFunctionSelector(getMarket));
    const [tuple] = getMarket.outputs;
    expect(tuple.components.map((c) => [c.name, c.type])).toEqual(MARKET_INFO_LAYOUT.map(([n, t]) => [n, t]));
  });

  it("encodes getMarket(id) as viem does, and refuses an id outside uint256", () => {
    for (const id of [0n, 1n, 255n, 2n ** 64n, 2n ** 256n - 1n, uint(256)])
      expect(encodeGetMarket(id)).toBe(
        encodeFunctionData({ abi: resolutionMarketAbi, functionName: "getMarket", args: [id] }),
      );
    expect(() => encodeGetMarket(2n ** 256n)).toThrow(RangeError);
    expect(() => encodeGetMarket(-1n)).toThrow(RangeError);
  });

  it("decodes 300 random markets to viem's values", () => {
    for (let i = 0; i < 300; i++) {
      const info = randomInfo();
      const data = encode(info);
      const viem = decodeFunctionResult({ abi: resolutionMarketAbi, functionName: "getMarket", data });
      const ours = decodeMarketInfo(data);
      expect(ours).toEqual({ ...viem, creator: viem.creator.toLowerCase() });
    }
    for (const count of [0n, 1n, 2n ** 256n - 1n, uint(256)]) {
      const data = encodeFunctionResult({ abi: resolutionMarketAbi, functionName: "marketCount", result: count });
      expect(decodeMarketCount(data)).toBe(count);
    }
  });

  it("refuses malformed answers: cut short, odd lengths, offsets and lengths past the end, dirty words", () => {
    const info = { ...randomInfo(), question: "Will it hold?" };
    const data = encode(info);
    const words = data.slice(2).match(/.{64}/g) ?? [];
    const rebuild = (edit: (w: string[]) => void): Hex => {
      const copy = [...words];
      edit(copy);
      return `0x${copy.join("")}`;
    };
    const set = (i: number, hex: string) => (w: string[]) => {
      w[i] = hex.padStart(64, "0");
    };
    expect(refused("0x")).toMatch(/answered getMarket with malformed data \(word 0 of 0\)$/);
    expect(refused(`0x${data.slice(2, -64)}`)).toMatch(/string of 13 bytes past the end/);
    expect(refused(`${data}00`)).toMatch(/not a whole number of 32-byte words/);
    expect(refused(rebuild(set(0, (32 * 99).toString(16))))).toMatch(/offset in word 0/);
    expect(refused(rebuild(set(0, "21")))).toMatch(/offset in word 0/);
    expect(refused(rebuild(set(1 + 9, (32 * 50).toString(16))))).toMatch(/offset in word 10/);
    expect(refused(rebuild(set(13, "ffffffff")))).toMatch(/past the end/);
    expect(refused(rebuild(set(1, `01${"0".repeat(22)}${"ab".repeat(20)}`)))).toMatch(/creator is not an address/);
    expect(refused(rebuild(set(5, "2")))).toMatch(/word 5 is not a uint1/);
    expect(refused(rebuild(set(2, "1".repeat(17))))).toMatch(/word 2 is not a uint64/);
    expect(refused(rebuild(set(6, "1".repeat(9))))).toMatch(/word 6 is not a uint32/);
    expect(refused("0x", decodeMarketCount)).toMatch(
      /answered marketCount with malformed data \(0 words, expected 1\)/,
    );
    expect(refused(`0x${"00".repeat(64)}`, decodeMarketCount)).toMatch(/2 words, expected 1/);
    expect(refused(`0x${"zz".repeat(32)}`, decodeMarketCount)).toMatch(/not a whole number of 32-byte words/);
  });
});
