/**
 * New questions are normalized or refused by the CLI (line breaks → one space; control and bidi characters
 * refused), and terminal output shows such characters of questions already on chain as visible markers.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseEther } from "viem";
import { createMarket } from "../../../workflow/chain/actions.js";
import { readMarketState } from "../../../workflow/chain/snapshot.js";
import { hardhatKey } from "./helpers/keys.js";
import { createCliHarness, type CliHarness } from "./helpers/inprocess.js";

let h: CliHarness;
beforeAll(async () => {
  h = await createCliHarness();
}, 60_000);
afterAll(async () => h?.close());

describe("market create: the question", () => {
  it("line breaks and tabs become one space: the chain stores one line", async () => {
    const r = await h.cresolver(
      ["market", "create", "--question", "Will it\r\n rain\ttomorrow?\n", "--deadline", "+1h", "--reward", "0.1"],
      { key: hardhatKey(0) },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.json?.question).toBe("Will it rain tomorrow?");
    const state = await readMarketState(h.owner, h.market, BigInt(String(r.json?.marketId)));
    expect(state.question).toBe("Will it rain tomorrow?");
  });

  it("a bidi override or a control character is refused, naming it, and nothing is sent", async () => {
    const key = hardhatKey(3);
    const nonce = await h.owner.publicClient.getTransactionCount({ address: h.owner.account!.address });
    await h.refuses(
      ["market", "create", "--question", "Is this \u202Ereversed?", "--deadline", "+1h", "--reward", "0.1"],
      /--question holds a bidi control character \(U\+202E\) at position 8/,
      { key },
    );
    await h.refuses(
      ["market", "create", "--question", "Bell\u0007?", "--deadline", "+1h", "--reward", "0.1"],
      /--question holds an invisible or control character \(U\+0007\)/,
      { key },
    );
    expect(await h.owner.publicClient.getTransactionCount({ address: h.owner.account!.address })).toBe(nonce);
  });
});

describe("terminal output of questions already on chain", () => {
  it("market list and market show print control and bidi characters as markers, in logical order, on one line", async () => {
    const raw = "Line\nbreak and \u202Ereversed\u202C text?";
    const { marketId } = await createMarket(h.owner, h.market, raw, (await h.now()) + 3600n, parseEther("0.1"));
    const list = await h.cresolver(["market", "list"], { json: false });
    expect(list.code, list.stderr).toBe(0);
    const row = list.stdout.split("\n").find((l) => l.trimStart().startsWith(`${marketId} `));
    expect(row).toContain("Line[U+000A]break and [U+202E]reversed[U+202C] text?");
    expect(list.stdout).not.toMatch(/[\u202A-\u202E]/);
    const show = await h.cresolver(["market", "show", String(marketId)], { json: false });
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain("question      Line[U+000A]break and [U+202E]reversed[U+202C] text?");
    // --json keeps the exact on-chain text (a program reads it; it is not displayed).
    const json = await h.cresolver(["market", "list"]);
    const markets = json.json?.markets as { marketId: string; question: string }[];
    expect(markets.find((m) => String(m.marketId) === String(marketId))?.question).toBe(raw);
  });
});
