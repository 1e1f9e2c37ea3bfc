/**
 * Round-table challenge mapping: the agent's challenges and concessions (addressed to agents, not to the
 * resolver's numbered points) mapped onto one reply per resolver challenge (mapChallengeReplies). Its own
 * module because the matching rule (direct text match, then shared content terms, then leftovers) is a
 * documented rule of its own, tested separately.
 */
import { contentTerms, sanitizeString } from "../../workflow/core/text.js";
import { clip } from "./requests.js";
import { ROUNDTABLE_LIMITS, type ChallengeReply } from "./wire.js";

interface ReplyItem {
  text: string;
  terms: Set<string>;
  /** The challenged/accepted finding, whitespace-normalised (pass 0 matches it to a challenge's text). */
  key: string;
}

const normalizeKey = (s: string): string =>
  s
    .replace(/\s+/g, " ")
    .trim()
    .replace(/^\d+[.)]\s*/, "");

/**
 * Challenge replies, one per resolver challenge "as best mapped": every challenge and concession of the
 * agent becomes a text ("Challenge to peer-2 on "…": counter-evidence" / "Concession to peer-1 on "…":
 * reason"); challenges first, then concessions, each in reply order. Pass 0: an item whose
 * finding_challenged / finding_accepted is exactly a resolver challenge's text (whitespace-normalised,
 * a leading "1." allowed; what the /challenge content invites with target_agent "resolver") answers
 * that challenge (first such item per challenge). Pass 1: the remaining (challenge, item) pairs are
 * taken by decreasing number of shared content terms (ties: earlier challenge, then earlier item), each
 * challenge and item at most once; so with at least as many items as challenges every challenge gets
 * one, and with no shared terms the mapping is positional. Pass 2: items left over are appended (blank line) to the reply of the challenge they
 * share most terms with. Fewer items than challenges → a shorter list (as a short CRE reply); a
 * challenge left without an item before one answered directly gets "".
 */
export function mapChallengeReplies(
  challenges: readonly string[],
  reply: {
    agent_name?: string;
    challenges?: ChallengeReply["challenges"];
    concessions?: ChallengeReply["concessions"];
  },
): string[] {
  const items: ReplyItem[] = [];
  const quote = (s: string) => clip(s.replace(/\s+/g, " ").trim(), 300);
  /** One reply item: `kind` to the target agent on the finding, then the agent's argument. */
  const item = (kind: string, target: string, finding: string, argument: string): ReplyItem => ({
    text: `${kind} to ${quote(target) || "another agent"} on "${quote(finding)}": ${argument}`,
    terms: new Set(contentTerms(`${finding} ${argument}`)),
    key: normalizeKey(finding),
  });
  const limit = ROUNDTABLE_LIMITS.maxItems;
  for (const c of (reply.challenges ?? []).slice(0, limit))
    items.push(item("Challenge", c.target_agent, c.finding_challenged, c.counter_evidence));
  for (const c of (reply.concessions ?? []).slice(0, limit))
    items.push(item("Concession", c.target_agent, c.finding_accepted, c.reason));
  const challengeTerms = challenges.map((c) => new Set(contentTerms(c)));
  const noTerms: ReadonlySet<string> = new Set();
  const overlap = (a: ReadonlySet<string>, b: ReadonlySet<string>) => {
    let n = 0;
    for (const t of a) if (b.has(t)) n++;
    return n;
  };
  const used = new Set<number>();
  const direct = challenges.map((c) => {
    const key = normalizeKey(c);
    const ii = items.findIndex((item, i) => !used.has(i) && key !== "" && item.key === key);
    if (ii >= 0) used.add(ii);
    return ii;
  });
  const replies: string[][] = direct.map((ii) => {
    const item = items[ii];
    return item === undefined ? [] : [item.text];
  });
  const pairs: { ci: number; ii: number; score: number }[] = [];
  direct.forEach((ii, ci) => {
    if (ii >= 0) return;
    items.forEach((item, ii) => {
      if (!used.has(ii)) pairs.push({ ci, ii, score: overlap(challengeTerms[ci] ?? noTerms, item.terms) });
    });
  });
  pairs.sort((a, b) => b.score - a.score || a.ci - b.ci || a.ii - b.ii);
  for (const { ci, ii } of pairs) {
    const reply = replies[ci];
    const item = items[ii];
    if (reply === undefined || item === undefined || reply.length > 0 || used.has(ii)) continue;
    used.add(ii);
    reply.push(item.text);
  }
  // Gaps can only come from items running out: trailing ones are dropped (a short reply list), an
  // interior one (a later challenge was answered directly) stays as "".
  while (replies.at(-1)?.length === 0) replies.pop();
  items.forEach((item, ii) => {
    if (used.has(ii) || replies.length === 0) return;
    let target = 0;
    let bestScore = -1;
    replies.forEach((r, ci) => {
      if (r.length === 0) return;
      const score = overlap(challengeTerms[ci] ?? noTerms, item.terms);
      if (score > bestScore) {
        target = ci;
        bestScore = score;
      }
    });
    replies[target]?.push(item.text);
  });
  return replies.map((parts) => sanitizeString(parts.join("\n\n"), ROUNDTABLE_LIMITS.maxStringLength));
}
