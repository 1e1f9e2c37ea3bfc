/**
 * The resolution trace of a market page: the resolver's decision and, per seat, a collapsible section whose summary
 * line says what the seat answered and weighed; inside, the endpoint, the answer, evidence, sources (safe links),
 * challenges and replies, and the evaluation. Every string from the bundle goes through `txt`.
 */
import type { BundleDocument, BundleWorker } from "../workflow/core/bundle-schema.js";
import { formatReason, percent, percentOfBps, type SeatExplanation } from "../workflow/core/explain.js";
import { primaryReason } from "../workflow/core/explain-reason.js";
import { capped, evaluatorLabel, renderedWorkers, workerFailure } from "./bundle.js";
import { esc, safeLink, txt } from "./html.js";
import { agentLabel, seatSummaryLine } from "./summary.js";

function workerSection(w: BundleWorker, base: string, seat: SeatExplanation | undefined): string {
  const failure = workerFailure(w);
  const challenges = capped(w.challenges);
  const replies = capped(w.challengeReplies);
  const dimensions = Object.entries(w.evaluation?.dimensions ?? {});
  const aggregate = Object.entries(w.evaluation?.aggregate ?? {});
  const answer = w.answer
    ? `<p><strong>Answer:</strong> <span data-field="answer">${w.answer.determination ? "YES" : "NO"}</span>, the agent's own confidence figure <span data-field="stated-confidence">${esc(percent(w.answer.confidence))}</span>${w.report ? ` (on chain: ${esc(percentOfBps(w.report.confidenceBps))})` : ""}</p>
<h4>Evidence</h4><p class="text" dir="auto" data-field="evidence">${txt(w.answer.evidence, true) || '<span class="muted">none</span>'}</p>
${
  w.answer.sources.length
    ? `<h4>Sources</h4><ul data-field="sources">${capped(w.answer.sources)
        .map((s) => `<li>${safeLink(s)}</li>`)
        .join("")}</ul>`
    : ""
}`
    : `<p><strong>No answer.</strong> <span data-field="failure">${txt(failure ? `${failure.kind}: ${failure.message}` : "no reason recorded")}</span></p>`;
  const qa = challenges.length
    ? `<h4>Challenges and replies</h4><ol>${challenges.map((c, i) => `<li><p class="text" dir="auto" data-field="challenge"><strong>Challenge:</strong> ${txt(c, true)}</p><p class="text" dir="auto" data-field="reply"><strong>Reply:</strong> ${replies[i] !== undefined ? txt(replies[i], true) : '<span class="muted">no reply</span>'}</p></li>`).join("")}</ol>`
    : "";
  const challengeFailure = w.challengeFailure
    ? `<p><strong>Challenge failed:</strong> ${txt(`${w.challengeFailure.kind}: ${w.challengeFailure.message}`)}</p>`
    : "";
  const dims = dimensions.length
    ? `<table data-field="dimensions"><caption>Evaluation: ${dimensions.length} dimensions, scores 0–100</caption><thead><tr><th scope="col">Dimension</th><th scope="col" class="num">Score</th><th scope="col">Explanation</th></tr></thead><tbody>${dimensions
        .map(
          ([name, d]) =>
            `<tr data-dimension="${esc(name)}"><th scope="row">${esc(name)}</th><td class="num">${esc(d.score)}</td><td class="text" dir="auto">${txt(d.explanation, true)}</td></tr>`,
        )
        .join("")}</tbody></table>${
        aggregate.length ? `<p>Aggregates: ${aggregate.map(([k, v]) => `${esc(k)} ${esc(v)}`).join(", ")}</p>` : ""
      }`
    : "";
  const line = [
    seat ? seatSummaryLine(seat) : w.answer ? (w.answer.determination ? "YES" : "NO") : "no answer",
    challenges.length ? `${challenges.length} challenge(s)` : "",
    w.evaluation ? `scores ${Object.values(w.evaluation.aggregate).join("/")}` : "",
  ]
    .filter(Boolean)
    .join(" · ");
  return `<details class="worker" data-seat="${w.seat}"><summary id="seat-${w.seat}">Seat ${w.seat}: ${agentLabel(base, w.agentId, seat?.name)} — ${esc(line)}</summary>
<p>Worker <span class="mono">${esc(w.address)}</span>${w.endpoint ? `; endpoint ${safeLink(w.endpoint.url)} (${txt(w.endpoint.protocol)})` : ""}</p>${answer}${qa}${challengeFailure}${dims}</details>`;
}

/** The decision and the per-seat sections of a resolution bundle. */
export function traceHtml(trace: BundleDocument, base: string, seats: readonly SeatExplanation[]): string {
  const d = trace.decision;
  const evaluator = evaluatorLabel(trace);
  const workers = renderedWorkers(trace);
  const decision = d
    ? `<dl class="facts" id="decision"><dt>Verdict</dt><dd data-field="verdict">${esc(d.verdict)}</dd><dt>Reason</dt><dd data-field="reason">${txt(formatReason(primaryReason(trace)))}</dd><dt>Posterior</dt><dd data-field="posterior">${esc(percent(d.posterior))}</dd><dt>Threshold</dt><dd data-field="threshold">${esc(percentOfBps(d.thresholdBps))}</dd><dt>Log-odds (YES +)</dt><dd>${esc(d.logOdds.toFixed(3))}</dd><dt>Quorum</dt><dd>${esc(`${trace.quorum.answered} of ${trace.quorum.n} answered, ${trace.quorum.required} required`)}</dd>${evaluator ? `<dt>Evaluator</dt><dd>${txt(evaluator)}</dd>` : ""}</dl>`
    : `<p>No decision in this bundle${trace.outcome ? ` (${esc(trace.outcome.kind)})` : ""}.</p>`;
  const bySeat = new Map(seats.map((s) => [s.seat, s]));
  return `<h3>Decision</h3>${decision}<h3>Seats in detail</h3><p class="muted">Each seat opens to its evidence, sources, challenges and evaluation.</p>${workers
    .map((w) => workerSection(w, base, bySeat.get(w.seat)))
    .join("")}`;
}
