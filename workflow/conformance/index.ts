/**
 * Registry of the per-protocol conformance checkers, keyed by the registration file's service
 * `protocol` value (the same keys as the reference agent's PROTOCOLS). `cresolver agent check` picks
 * its checker here. Checkers that need more than ConformanceCheckOptions read optional extras
 * (agora: `signer`, `agentId`; see ConformanceExtras), which the CLI always passes.
 */
import type { AgoraTokenSigner } from "../../protocols/agora/jwt.js";
import { agoraConformanceChecker } from "../../protocols/agora/conformance.js";
import { checkAiOlympics } from "../../protocols/ai-olympics/conformance.js";
import { checkCresolver } from "../../protocols/cresolver/conformance.js";
import { checkFactagora } from "../../protocols/factagora/conformance.js";
import { checkRoundtable } from "../../protocols/roundtable/conformance.js";
import type { ConformanceCheckOptions, ConformanceChecker } from "./types.js";

export const CONFORMANCE_CHECKERS: Readonly<Record<string, ConformanceChecker>> = {
  cresolver: checkCresolver,
  factagora: checkFactagora,
  roundtable: checkRoundtable,
  agora: agoraConformanceChecker,
  "ai-olympics": checkAiOlympics,
};

/** Optional extras some checkers read (unknown to the others, which ignore them). */
export interface ConformanceExtras {
  /** Signs platform tokens with a key the agent trusts (agora). */
  signer?: AgoraTokenSigner;
  /** The agent's ERC-8004 id, put in tokens that name it (agora). */
  agentId?: string;
}

export type ConformanceRunOptions = ConformanceCheckOptions & ConformanceExtras;

export type { ConformanceChecker, ConformanceCheckOptions, ConformanceFinding, ConformanceReport } from "./types.js";
