/** Provider limit answers of eth_getLogs: recognised as range limits (split, not retried as a rate limit). */
import { RpcRequestError } from "viem";
import { describe, expect, it } from "vitest";
import { isRangeLimit, providerMessage } from "../../../workflow/chain/logs.js";

describe("getLogs provider limits", () => {
  it("recognises result-count and range caps, not rate limits", () => {
    for (const m of [
      "query returned more than 10000 results. Try with this block range [0x1, 0x2].",
      "Log response size exceeded. You can make eth_getLogs requests with up to a 2K block range",
      "block range is too large",
      "eth_getLogs is limited to a 10,000 range",
      "exceed maximum block range: 5000",
    ])
      expect(isRangeLimit(m), m).toBe(true);
    for (const m of ["rate limit exceeded", "Too Many Requests", "limit exceeded", "execution reverted"])
      expect(isRangeLimit(m), m).toBe(false);
  });

  it("keeps the provider's own message from a viem error", () => {
    const error = new RpcRequestError({
      body: { method: "eth_getLogs" },
      error: { code: -32005, message: "query returned more than 10000 results. Try with this block range [0x0, 0x9]." },
      url: "http://127.0.0.1",
    });
    expect(providerMessage(error)).toMatch(/more than 10000 results/);
  });
});
