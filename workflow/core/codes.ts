/**
 * The numeric codes of IResolutionMarket's enums, in one place: Status, Verdict and Answer (the answer code of a
 * seat's WorkerReport). Every module that turns a code into a name or back uses these tables; the Solidity enums
 * are the source (contracts/market/interfaces/IResolutionMarket.sol), and test/ts/chain/codes.test.ts checks the
 * tables against the compiled ABI's enum order where the ABI exposes it.
 */
import type { AnswerKind, VerdictKind } from "./types.js";

/** IResolutionMarket.Status, in code order. */
export const STATUS_NAMES = [
  "None",
  "Open",
  "ResolutionRequested",
  "Resolved",
  "Invalid",
  "Cancelled",
  "Proposed",
  "Disputed",
] as const;
export type StatusName = (typeof STATUS_NAMES)[number];
/** IResolutionMarket.Status by name. */
export const STATUS_CODE = Object.fromEntries(STATUS_NAMES.map((name, code) => [name, code])) as Readonly<
  Record<StatusName, number>
>;

/** IResolutionMarket.Verdict, in code order. */
export const VERDICT_NAMES = ["no", "yes", "invalid"] as const satisfies readonly VerdictKind[];
/** IResolutionMarket.Verdict by name. */
export const VERDICT_CODE: Readonly<Record<VerdictKind, number>> = { no: 0, yes: 1, invalid: 2 };

/** IResolutionMarket.Answer (a WorkerReport's answer), in code order. */
export const ANSWER_NAMES = ["failed", "abstained", "no", "yes"] as const satisfies readonly AnswerKind[];
/** IResolutionMarket.Answer by name. */
export const ANSWER_CODE: Readonly<Record<AnswerKind, number>> = { failed: 0, abstained: 1, no: 2, yes: 3 };

/** The name of `code` in `names`, or `fallback` for a code the table does not know (a newer contract). */
export function nameOf<const N extends readonly string[], F>(
  names: N,
  code: number | bigint,
  fallback: F,
): N[number] | F {
  const name = names[Number(code)];
  return name ?? fallback;
}
