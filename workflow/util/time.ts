/**
 * Unix seconds (from the chain: untrusted, may be any uint) as an ISO-8601 UTC string. A value no Date can hold
 * reads as its raw seconds instead of throwing (toISOString throws a RangeError on an invalid date).
 */
export function isoSeconds(seconds: bigint | number): string {
  const ms = Number(seconds) * 1000;
  const date = new Date(ms);
  return Number.isFinite(date.getTime()) ? date.toISOString() : `${seconds.toString()} s`;
}
