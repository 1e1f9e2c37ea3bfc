/** The panels of bench:integrity (issue 10's acceptance scenarios). Accuracy and style vary independently. */
import type { Style } from "./text.js";

export interface AgentSpec {
  id: bigint;
  /** True probability of answering right (honest agents); colluders are always wrong. */
  accuracy: number;
  /**
   * honest: right with `accuracy`, independently; colluder: always the colluders' shared wrong answer;
   * striker: honest until `strikeAt`, then the colluders' wrong answer; copier: copies the scenario's shared
   * `source` (itself right with its accuracy) and flips it with probability `noise`.
   */
  kind: "honest" | "colluder" | "striker" | "copier";
  /** Striker: first market (0-based) of the strike. */
  strikeAt?: number;
  /** Striker: strikes only every k-th market from `strikeAt` on (honest in between). Default 1 (every market). */
  strikeEvery?: number;
  /** Copier: probability of flipping the shared source's answer. */
  noise?: number;
  /** Farmed Sybil: its record was bought on the farmer's own cheap markets before market 0 (see `farm`). */
  farmed?: boolean;
  style: Style;
  /** First market (0-based) the agent takes a seat in. */
  joinAt: number;
}

export interface Scenario {
  name: string;
  description: string;
  agents: AgentSpec[];
  /** Markets counted in the headline figures (default: all). */
  countFrom?: number;
  /** Of the markets from `countFrom` on, only every k-th is counted (default 1). */
  countEvery?: number;
  /**
   * Share of wrong yes/no proposals that someone disputes (a bettor who knows better); the arbiter then finalizes
   * the truth, which enters the record as known truth. Default 0 (no disputes: the hardest case).
   */
  disputeRate?: number;
  /** Accuracy of the shared source the copiers copy. */
  source?: number;
  /**
   * Farmed admission: before market 0, `markets` self-made markets (value 0.001 ETH, created by the farmer) where
   * only the `farmed` agents sit, each answering right except one deliberate miss each. The vote is given the
   * admission filter (floor 1 ETH, the farmer controls every farmed agent); real markets are worth 1 ETH.
   */
  farm?: { markets: number };
  /** Markets [from, to) are disputed by an arbiter the deployment does not trust, which rules with the strikers. */
  untrustedRulings?: { from: number; to: number };
  /**
   * The watcher (`cresolver watch`) disputes every fragile proposal and every yes/no proposal against at least
   * half of the answering seats; an honest, allowed arbiter then rules the truth.
   */
  watcher?: boolean;
}

let next = 1n;
const honest = (accuracy: number, style: Style = "plain", joinAt = 0): AgentSpec => ({
  id: next++,
  accuracy,
  kind: "honest",
  style,
  joinAt,
});
const colluder = (style: Style = "plain", joinAt = 0): AgentSpec => ({
  id: next++,
  accuracy: 0,
  kind: "colluder",
  style,
  joinAt,
});
const striker = (accuracy: number, strikeAt: number, strikeEvery = 1): AgentSpec => ({
  id: next++,
  accuracy,
  kind: "striker",
  style: "plain",
  joinAt: 0,
  strikeAt,
  ...(strikeEvery > 1 ? { strikeEvery } : {}),
});
const copier = (noise: number): AgentSpec => ({
  id: next++,
  accuracy: 0,
  kind: "copier",
  style: "plain",
  joinAt: 0,
  noise,
});
const reset = (): void => {
  next = 1n;
};

export function scenarios(): Scenario[] {
  const out: Scenario[] = [];
  reset();
  out.push({
    name: "7-agents",
    description: "accuracies .55/.65/.75/.85/.95 + 2 colluders always giving the same wrong answer; same style",
    agents: [0.55, 0.65, 0.75, 0.85, 0.95].map((a) => honest(a)).concat([colluder(), colluder()]),
  });
  reset();
  out.push({
    name: "7-agents-rich-liars",
    description: "the same panel; the 2 colluders write rich evidence (sources, figures, hedges, paragraphs)",
    agents: [0.55, 0.65, 0.75, 0.85, 0.95].map((a) => honest(a)).concat([colluder("rich"), colluder("rich")]),
  });
  reset();
  out.push({
    name: "7-agents-terse-best",
    description: "the same panel; the 2 best agents (.85, .95) write one-line answers without sources",
    agents: [0.55, 0.65, 0.75]
      .map((a) => honest(a))
      .concat([honest(0.85, "terse"), honest(0.95, "terse"), colluder(), colluder()]),
  });
  reset();
  out.push({
    name: "10-agents",
    description: "7 honest agents .55–.95 (evenly spaced) + 3 colluders",
    agents: [0.55, 0.6167, 0.6833, 0.75, 0.8167, 0.8833, 0.95]
      .map((a) => honest(a))
      .concat([colluder(), colluder(), colluder()]),
  });
  reset();
  out.push({ name: "3-agents", description: "accuracies .60/.75/.90", agents: [0.6, 0.75, 0.9].map((a) => honest(a)) });
  reset();
  out.push({
    name: "7-agents-disputed",
    description:
      "the 7-agent panel; half of the wrong proposals are disputed and the arbiter finalizes the truth (known truth in the record)",
    agents: [0.55, 0.65, 0.75, 0.85, 0.95].map((a) => honest(a)).concat([colluder(), colluder()]),
    disputeRate: 0.5,
  });
  reset();
  out.push({
    name: "3-agents-disputed",
    description: "the 3-agent panel; half of the wrong proposals are disputed (arbiter truth)",
    agents: [0.6, 0.75, 0.9].map((a) => honest(a)),
    disputeRate: 0.5,
  });
  reset();
  out.push({
    name: "swarm",
    description:
      "5 established agents (.75–.95) alone for 30 markets; then 20 fresh agents join and all answer wrong (figures over markets 31–60)",
    agents: [0.75, 0.8, 0.85, 0.9, 0.95]
      .map((a) => honest(a))
      .concat(Array.from({ length: 20 }, () => colluder("rich", 30))),
    countFrom: 30,
  });
  reset();
  out.push({
    name: "swarm-control",
    description:
      "the same 5 established agents without the swarm (figures over markets 31–60): what the swarm must not change",
    agents: [0.75, 0.8, 0.85, 0.9, 0.95].map((a) => honest(a)),
    countFrom: 30,
  });
  // Honest panels of 7 and 9 without colluders: what a chance copy group (copy-group.ts) of the best agents costs.
  for (const accuracies of [
    [0.55, 0.65, 0.7, 0.75, 0.8, 0.85, 0.95],
    [0.55, 0.6, 0.65, 0.7, 0.75, 0.8, 0.85, 0.9, 0.95],
  ]) {
    reset();
    out.push({
      name: `${accuracies.length}-honest`,
      description: `${accuracies.length} honest agents ${accuracies.join("/")}, no colluders`,
      agents: accuracies.map((a) => honest(a)),
    });
  }
  out.push(...attackScenarios());
  return out;
}

/** Issue 20's attacks: farm then strike, a correlated crowd, farmed Sybils, rulings from an untrusted arbiter. */
export function attackScenarios(): Scenario[] {
  const out: Scenario[] = [];
  for (const watcher of [false, true]) {
    reset();
    out.push({
      name: watcher ? "farm-then-strike-watched" : "farm-then-strike",
      description:
        "5 honest agents .55–.95 + 2 agents accurate (.95) for 40 markets, then both give the same wrong answer (figures over markets 41–60)" +
        (watcher ? "; the watcher disputes fragile proposals, an honest allowed arbiter rules" : "; nobody disputes"),
      agents: [0.55, 0.65, 0.75, 0.85, 0.95].map((a) => honest(a)).concat([striker(0.95, 40), striker(0.95, 40)]),
      countFrom: 40,
      ...(watcher ? { watcher } : {}),
    });
  }
  reset();
  out.push({
    name: "farm-then-strike-thin",
    description:
      "the farm-then-strike panel, but the 2 farmers strike only every 3rd market from market 41 on (honest in between); figures over the strike markets 41, 44, …, 59; nobody disputes",
    agents: [0.55, 0.65, 0.75, 0.85, 0.95].map((a) => honest(a)).concat([striker(0.95, 40, 3), striker(0.95, 40, 3)]),
    countFrom: 40,
    countEvery: 3,
  });
  reset();
  out.push({
    name: "farm-then-strike-3",
    description: "3 honest agents .75/.85/.9 + 2 agents accurate (.95) for 40 markets, then colluding (markets 41–60)",
    agents: [0.75, 0.85, 0.9].map((a) => honest(a)).concat([striker(0.95, 40), striker(0.95, 40)]),
    countFrom: 40,
  });
  reset();
  out.push({
    name: "correlated-crowd",
    description:
      "3 agents copying one shared .6 source with 10 % independent noise each, a .90 expert, 3 honest .65/.70/.75",
    agents: [copier(0.1), copier(0.1), copier(0.1), honest(0.9), honest(0.65), honest(0.7), honest(0.75)],
    source: 0.6,
  });
  reset();
  out.push({
    name: "correlated-crowd-small",
    description: "3 copiers of one .6 source (10 % noise) and a .90 expert alone (no ground truth can tell them apart)",
    agents: [copier(0.1), copier(0.1), copier(0.1), honest(0.9)],
    source: 0.6,
  });
  reset();
  out.push({
    name: "farmed-sybils",
    description:
      "3 honest agents .75/.85/.9 alone for 40 markets; 5 Sybils farmed on 20 self-made 0.001 ETH markets (one deliberate miss each) join the 1 ETH market and give the same wrong answer (markets 41–60)",
    agents: [0.75, 0.85, 0.9]
      .map((a) => honest(a))
      .concat(Array.from({ length: 5 }, () => ({ ...colluder("plain", 40), farmed: true }))),
    farm: { markets: 20 },
    countFrom: 40,
  });
  reset();
  out.push({
    name: "untrusted-rulings",
    description:
      "3 honest agents .8/.85/.9 + 2 agents accurate (.9) for 40 markets, then colluding; markets 41–45 are disputed by an arbiter the deployment does not trust, ruling with them (figures over markets 46–60)",
    agents: [0.8, 0.85, 0.9].map((a) => honest(a)).concat([striker(0.9, 40), striker(0.9, 40)]),
    untrustedRulings: { from: 40, to: 45 },
    countFrom: 45,
  });
  return out;
}
