/** Stage 1 — read: the market and its frozen worker set, through the MarketReader port. */
import type { MarketSnapshot } from "../core/types.js";
import type { MarketReader } from "../ports.js";
import { PipelineError } from "./errors.js";

export async function readStage(reader: MarketReader, marketId: bigint): Promise<MarketSnapshot> {
  let market: MarketSnapshot;
  try {
    market = await reader.readMarket(marketId);
  } catch (error) {
    throw new PipelineError("read", `market ${marketId} could not be read`, error);
  }
  if (market.marketId !== marketId)
    throw new PipelineError("read", `reader returned market ${market.marketId} for ${marketId}`);
  return market;
}
