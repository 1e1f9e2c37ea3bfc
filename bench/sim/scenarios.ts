/** The panels of bench:integrity (issue 10's acceptance scenarios). Accuracy and style vary independently. */
import type { Style } from "./text.js";

export interface AgentSpec {
  id: bigint;
  /** True probability of answering right (honest agents); colluders are always wrong. */
  accuracy: number;
  kind: "honest" | "colluder";
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
  /**
   * Share of wrong yes/no proposals that someone disputes (a bettor who knows better); the arbiter then finalizes
   * the truth, which enters the record as known truth. Default 0 (no disputes: the hardest case).
   */
  disputeRate?: number;
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
  return out;
}
