/**
 * The two ResolutionMarket reads of `market list` (the light path), ABI-coded here: `marketCount()` and
 * `getMarket(id)`. A general coder (ox's, viem's) loads abitype and some 40 modules, which cost `market list` more
 * CPU than the rest of its start-up together (bench/cli-startup.ts); these two fixed layouts need a few lines. The
 * selectors and the tuple's layout are generated from the artifact (workflow/chain/abis-light.ts, `npm run abis`);
 * the decoding is checked against the generated ABI and viem's coder in test/ts/cli/market-abi.test.ts (selectors, the tuple's
 * layout, random values decoded both ways, malformed answers refused), so an ABI change fails a test, not a read.
 */
import type { Hex } from "viem";
import { GET_MARKET_SELECTOR, MARKET_COUNT_SELECTOR, MARKET_INFO_LAYOUT } from "../../workflow/chain/abis-light.js";
import { ChainError } from "../../workflow/chain/chain-error.js";

export { GET_MARKET_SELECTOR, MARKET_COUNT_SELECTOR, MARKET_INFO_LAYOUT };

export interface MarketInfo {
  /** Lower-case 0x address (the caller checksums it). */
  creator: Hex;
  deadline: bigint;
  requestedAt: bigint;
  status: number;
  outcome: boolean;
  workerCount: number;
  rewardPool: bigint;
  totalStake: bigint;
  bundleHash: Hex;
  question: string;
  recordCount: bigint;
  recordHead: Hex;
}

/** `getMarket(id)` calldata. */
export function encodeGetMarket(id: bigint): Hex {
  if (id < 0n || id >= 2n ** 256n) throw new RangeError(`market id out of uint256 range: ${id}`);
  return `${GET_MARKET_SELECTOR}${id.toString(16).padStart(64, "0")}`;
}

/** 32-byte words of returned data, each read with bounds and range checks. */
class Words {
  private readonly hex: string;
  readonly count: number;

  constructor(
    data: Hex,
    private readonly what: string,
  ) {
    this.hex = data.slice(2);
    if (!/^[0-9a-fA-F]*$/.test(this.hex) || this.hex.length % 64 !== 0)
      throw this.malformed("not a whole number of 32-byte words");
    this.count = this.hex.length / 64;
  }

  malformed(why: string): ChainError {
    return new ChainError("rpc", `the RPC endpoint answered ${this.what} with malformed data (${why})`);
  }

  raw(index: number): string {
    if (!Number.isSafeInteger(index) || index < 0 || index >= this.count)
      throw this.malformed(`word ${index} of ${this.count}`);
    return this.hex.slice(index * 64, index * 64 + 64);
  }

  uint(index: number, bits: number): bigint {
    const value = BigInt(`0x${this.raw(index)}`);
    if (value >= 2n ** BigInt(bits)) throw this.malformed(`word ${index} is not a uint${bits}`);
    return value;
  }

  /** A byte offset from word `base` that must land on a word inside the data: the index of that word. */
  offset(index: number, base: number): number {
    const bytes = this.uint(index, 64);
    if (bytes % 32n !== 0n || BigInt(base) + bytes / 32n >= BigInt(this.count))
      throw this.malformed(`offset in word ${index}`);
    return base + Number(bytes / 32n);
  }

  /** `length` bytes starting at word `index`, as UTF-8 (invalid sequences replaced, as the ABI coders do). */
  utf8(index: number, length: number): string {
    if (length > (this.count - index) * 32) throw this.malformed(`string of ${length} bytes past the end`);
    const bytes = Buffer.from(this.hex.slice(index * 64, index * 64 + length * 2), "hex");
    return new TextDecoder().decode(bytes);
  }
}

/** The `uint256` that `marketCount()` returns. */
export function decodeMarketCount(data: Hex): bigint {
  const words = new Words(data, "marketCount");
  if (words.count !== 1) throw words.malformed(`${words.count} words, expected 1`);
  return words.uint(0, 256);
}

/** The `MarketInfo` that `getMarket(id)` returns (one dynamic tuple: its offset, its head, then the question). */
export function decodeMarketInfo(data: Hex): MarketInfo {
  const w = new Words(data, "getMarket");
  const at = w.offset(0, 0);
  type Field = (typeof MARKET_INFO_LAYOUT)[number][0];
  const field = (name: Field): number => at + MARKET_INFO_LAYOUT.findIndex(([n]) => n === name);
  // The width a `uintN` (or `bool`) field is checked against comes from the generated layout too.
  const uintField = (name: Field): bigint => {
    const type = MARKET_INFO_LAYOUT.find(([n]) => n === name)?.[1] ?? "";
    const bits = type === "bool" ? 1 : Number(/^uint(\d+)$/.exec(type)?.[1] ?? Number.NaN);
    if (!Number.isInteger(bits)) throw w.malformed(`field ${name} is a ${type}, not an integer`);
    return w.uint(field(name), bits);
  };
  const creator = w.raw(field("creator"));
  if (!creator.startsWith("0".repeat(24))) throw w.malformed("creator is not an address");
  const flag = uintField("outcome");
  const question = w.offset(field("question"), at);
  const length = w.uint(question, 32);
  return {
    creator: `0x${creator.slice(24).toLowerCase()}`,
    deadline: uintField("deadline"),
    requestedAt: uintField("requestedAt"),
    status: Number(uintField("status")),
    outcome: flag === 1n,
    workerCount: Number(uintField("workerCount")),
    rewardPool: uintField("rewardPool"),
    totalStake: uintField("totalStake"),
    bundleHash: `0x${w.raw(field("bundleHash")).toLowerCase()}`,
    question: w.utf8(question + 1, Number(length)),
    recordCount: uintField("recordCount"),
    recordHead: `0x${w.raw(field("recordHead")).toLowerCase()}`,
  };
}
