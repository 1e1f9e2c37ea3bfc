/**
 * The market page's top summary: the Explanation of workflow/core/explain.ts (the same one `market show` prints)
 * as HTML. Agent names and every other untrusted string go through `txt` (visible control/bidi characters, escaped).
 */
import type { SeatResult } from "../workflow/chain/lifecycle.js";
import { type Explanation, type SeatExplanation, percent, seatAnswer } from "../workflow/core/explain.js";
import { esc, eth, txt } from "./html.js";

/** "name (agent 3)" as HTML, linked to the agent's page. */
export function agentLabel(base: string, agentId: string, name: string | undefined): string {
  const who =
    name !== undefined ? `<bdi class="untrusted">${txt(name)}</bdi> (agent ${esc(agentId)})` : `agent ${esc(agentId)}`;
  return `<a href="${esc(`${base}/agents/${agentId}`)}">${who}</a>`;
}

function seatRow(base: string, s: SeatExplanation, settled: SeatResult | undefined): string {
  const derived = s.derivedConfidence
    ? `<br><span class="muted" data-field="derived-confidence">agent's figure ${esc(percent(s.derivedConfidence.value))}: ${esc(s.derivedConfidence.label)}</span>`
    : "";
  const answer = s.answer === "yes" || s.answer === "no" ? s.answer.toUpperCase() : s.answer;
  const correctness = settled ? (settled.scored ? String(settled.correctness) : "not scored") : "—";
  const stake = s.stakeReturned !== undefined ? `${eth(s.stakeReturned)} / ${eth(s.stakeSlashed ?? 0n)}` : "—";
  return `<tr data-seat="${s.seat}"><td>${s.seat}</td><td data-field="agent">${agentLabel(base, s.agentId, s.name)}</td><td data-field="answer">${esc(answer)}</td><td class="num" data-field="confidence">${esc(percent(s.confidence))}${derived}</td><td class="num" data-field="weight">${esc(s.weight)}</td><td data-field="why">${txt(s.why)}</td><td class="num" data-field="correctness">${esc(correctness)}</td><td class="num" data-field="reward">${s.reward !== undefined ? esc(eth(s.reward)) : "—"}</td><td class="num" data-field="stake">${esc(stake)}</td></tr>`;
}

const list = (id: string, items: string[]) => `<ul id="${id}">${items.map((m) => `<li>${txt(m)}</li>`).join("")}</ul>`;

/** The summary section: headline, reason, notes, the seats, the dispute, the money, the feedback. */
export function summaryHtml(base: string, e: Explanation, settled: readonly SeatResult[]): string {
  const byAgent = new Map(settled.map((s) => [s.agentId.toString(), s]));
  const seats = e.seats.length
    ? `<table id="seats"><caption>Seats: the answer and confidence posted on chain, the vote weight in log-odds units (new agents vote as one bloc) and why, and once final the correctness and payout</caption><thead><tr><th scope="col">Seat</th><th scope="col">Agent</th><th scope="col">Answer</th><th scope="col" class="num">Confidence (on chain)</th><th scope="col" class="num">Vote weight</th><th scope="col">Why</th><th scope="col" class="num">Correctness</th><th scope="col" class="num">Reward</th><th scope="col" class="num">Stake returned / slashed</th></tr></thead><tbody>${e.seats.map((s) => seatRow(base, s, byAgent.get(s.agentId))).join("")}</tbody></table>`
    : "<p>No seats taken.</p>";
  const notes = e.notes.length ? list("notes", e.notes) : "";
  const dispute = e.dispute.length ? `<h3>Dispute</h3>${list("dispute", e.dispute)}` : "";
  return `<section id="summary" aria-labelledby="summary-h"><h2 id="summary-h">Summary</h2>
<p class="headline" data-field="headline">${esc(e.headline)}</p>
<p><strong>Why:</strong> <span data-field="reason" data-code="${esc(e.reasonCode)}">${txt(e.reason)}</span></p>${notes}
${seats}${dispute}<h3>Where the money went</h3>${list("money", e.money)}<p id="feedback">${esc(e.feedback)}</p></section>`;
}

/** One seat's short line for its collapsible trace section. */
export function seatSummaryLine(s: SeatExplanation | undefined): string {
  if (s === undefined) return "";
  return `${seatAnswer(s)}, weight ${s.weight}`;
}
