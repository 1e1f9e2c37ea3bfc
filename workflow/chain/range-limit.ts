/**
 * How a provider says an eth_getLogs range or result count was too large. Its own module so the retrying transport
 * (clients.ts) and the log reader (logs.ts) share it without importing each other.
 */

/** A provider's answer that the range or the result count of an eth_getLogs was too large. */
const RANGE_LIMIT =
  /more than [\d,]+ (results|logs)|too many (results|logs|blocks)|(block )?range (is |was )?(too (large|wide|big)|exceed)|response size (exceeded|too large)|exceeds? (the )?max(imum)? (block )?range|max(imum)? block range|limited to a [\d,]+( block)? range|block range limit|log response size|range should work|this block range/i;

/** True for an RPC error message saying the getLogs range or result count was too large (not a rate limit). */
export function isRangeLimit(message: string): boolean {
  return RANGE_LIMIT.test(message);
}
