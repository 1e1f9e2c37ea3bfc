/**
 * Challenge generation (pure, deterministic).
 *
 * Every answering worker gets exactly three challenges, derived only from
 *   - its own answer (determination, confidence, number of sources), and
 *   - the disagreement structure of the panel: how many OTHER answering workers agree or disagree
 *     with it, expressed qualitatively ("most", "some", "half").
 * Challenges never contain addresses, agent ids, counts that identify individuals, or any text of
 * another worker, so nobody learns who said what. The output depends only on the multiset of
 * determinations and the worker's own answer: reordering the workers does not change it.
 *
 *   1. position   – sides counted over the whole panel, the worker included:
 *                   minority: "most other workers reached the opposite conclusion…";
 *                   majority with dissent: "some other workers reached the opposite conclusion…";
 *                   even split: "the other workers are divided…";
 *                   unanimous (or alone): devil's advocate, argue the opposite answer.
 *   2. confidence – "Your confidence is 82%. What would need to change for you to reverse…"
 *                   (variants for very high confidence under dissent, and for low confidence).
 *   3. weakness   – "Identify the weakest point…" (unanimous: "What evidence could everyone have
 *                   missed…"; no/one source: which single source is decisive).
 */
import type { Address, MarketSnapshot, WorkerAnswer, WorkerRecord } from "./types.js";

export const CHALLENGES_PER_WORKER = 3;

const side = (d: boolean): string => (d ? "YES" : "NO");

/** Confidence as an integer percentage in [0, 100]; non-finite → 0. */
function percent(confidence: number): number {
  if (typeof confidence !== "number" || !Number.isFinite(confidence)) return 0;
  return Math.round(Math.min(1, Math.max(0, confidence)) * 100);
}

export interface PanelView {
  /** Other answering workers with the same determination. */
  agree: number;
  /** Other answering workers with the opposite determination. */
  disagree: number;
}

/** The three challenges for one worker, given only its answer and the counts of the others. */
export function challengesFor(answer: WorkerAnswer, view: PanelView): string[] {
  const own = side(answer.determination);
  const opposite = side(!answer.determination);
  const pct = percent(answer.confidence);
  const sourceCount = Array.isArray(answer.sources) ? answer.sources.length : 0;
  const { agree, disagree } = view;

  let position: string;
  let weakness: string;
  if (disagree === 0) {
    position =
      `Play devil's advocate: make the strongest case that the answer is ${opposite}. ` +
      `Which specific evidence would support ${opposite}, and why do you still conclude ${own}?`;
    weakness =
      `Suppose your conclusion turns out to be wrong. What evidence or development could everyone ` +
      `investigating this question have missed, and how did you rule it out?`;
  } else {
    if (disagree > agree + 1) {
      position =
        `Most other workers reached the opposite conclusion (${opposite}). ` +
        `What specific evidence makes you confident that the answer is ${own}?`;
    } else if (disagree === agree + 1) {
      position =
        `The other workers are divided and some reached the opposite conclusion (${opposite}). ` +
        `What specific evidence decides the question in favour of ${own}?`;
    } else {
      position =
        `Some other workers reached the opposite conclusion (${opposite}). ` +
        `What is the strongest argument for ${opposite}, and why does your evidence outweigh it?`;
    }
    weakness =
      sourceCount <= 1
        ? `You cited ${sourceCount === 0 ? "no sources" : "a single source"}. Which independent, verifiable evidence ` +
          `supports ${own}, and how would your conclusion change if that evidence were wrong?`
        : `Identify the weakest point in your analysis and defend it against someone arguing ${opposite}.`;
  }

  let confidence: string;
  if (pct >= 90 && disagree > 0) {
    confidence =
      `Your confidence is ${pct}% although the panel is not unanimous. ` +
      `What would need to change for you to reverse your determination to ${opposite}?`;
  } else if (pct < 60) {
    confidence =
      `Your confidence is only ${pct}%. What additional evidence would settle the question, ` +
      `and what would make you reverse your determination to ${opposite}?`;
  } else {
    confidence = `Your confidence is ${pct}%. What would need to change for you to reverse your determination to ${opposite}?`;
  }

  return [position, confidence, weakness];
}

/**
 * Three challenges for every worker that has an answer, keyed by the seat address exactly as given.
 * Workers without an answer are skipped. `market` is accepted for future question-specific variants
 * and is not used to reveal anything about other workers.
 */
export function generateChallenges(
  _market: Pick<MarketSnapshot, "question">,
  answeredWorkers: ReadonlyArray<Pick<WorkerRecord, "seat" | "answer">>,
): Map<Address, string[]> {
  const answered = answeredWorkers.filter(
    (w): w is Pick<WorkerRecord, "seat"> & { answer: WorkerAnswer } => w.answer !== undefined,
  );
  let yes = 0;
  let no = 0;
  for (const w of answered) {
    if (w.answer.determination === true) yes += 1;
    else no += 1;
  }
  const out = new Map<Address, string[]>();
  for (const w of answered) {
    const same = w.answer.determination === true ? yes : no;
    const other = w.answer.determination === true ? no : yes;
    out.set(w.seat.address, challengesFor(w.answer, { agree: same - 1, disagree: other }));
  }
  return out;
}
