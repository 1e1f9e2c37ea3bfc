/**
 * The pipeline's DON-compatible mode (ResolutionConfig.don, workflow/don-limits.ts): a run that keeps to one CRE DON
 * execution's quotas, so that a daemon and a DON resolving the same market make the same decisions and produce one
 * bundle. It changes one thing: the challenge round runs only when the execution can afford it (HTTP calls,
 * consensus calls, request size); when it cannot, the run skips it and the bundle says what the evaluation lacks.
 * The vote reads only answers and confidences, so the verdict does not depend on it.
 */
import type { MarketSnapshot } from "../core/types.js";
import {
  challengeShortfall,
  challengesSkippedNote,
  isInlineUri,
  questionBytes,
  type DonRunMode,
} from "../don-limits.js";
import type { AgentDirectory, ResolutionConfig } from "../ports.js";

export interface DonModeRun {
  /** The directory to discover through: counts the registration files the discover stage fetches over HTTP. */
  directory: AgentDirectory;
  /** Why the challenge round does not fit for `answered` answers (undefined: run it). */
  challengeShortfall(answered: number): string | undefined;
}

export function donModeRun(mode: DonRunMode, market: MarketSnapshot, directory: AgentDirectory): DonModeRun {
  let fetches = 0;
  return {
    directory: {
      async agentURI(agentId) {
        const uri = await directory.agentURI(agentId);
        if (uri !== undefined && !isInlineUri(uri)) fetches++;
        return uri;
      },
    },
    challengeShortfall: (answered) =>
      challengeShortfall(
        mode.limits,
        {
          seats: market.workers.length,
          registrationFetches: fetches,
          recordCalls: mode.recordCalls,
          questionBytes: questionBytes(market.question, market.context),
          relayed: mode.relayed === true,
        },
        answered,
      ),
  };
}

/** The bundle configuration of a run whose challenge round was skipped for `reason`. */
export function withSkippedChallenges(config: ResolutionConfig, reason: string | undefined): ResolutionConfig {
  if (reason === undefined) return config;
  return { ...config, bundleExtra: { ...config.bundleExtra, ...challengesSkippedNote(reason) } };
}
