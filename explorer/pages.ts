/** The explorer's pages, server-rendered. Every string that came from the chain, a bundle or a registration file is
 * passed through `esc`. */
import type { BundleDocument, BundleWorker, StoredBundleDocument } from "../workflow/core/bundle-schema.js";
import { capped, evaluatorLabel, isResolutionBundle, renderedWorkers, workerFailure } from "./bundle.js";
import type { AgentDetail, AgentRow, MarketDetail, MarketRow } from "./data.js";
import { clip, esc, eth, iso, lineChart, pct, type Page } from "./html.js";

/** A market row as the list page and its JSON endpoint show it (pre-formatted strings, same for both). */
export interface MarketRowView {
  key: string;
  href: string;
  id: string;
  status: string;
  question: string;
  deadline: string;
  pool: string;
  outcome: string;
  disputeEndsAt: string;
  dispute: string;
}

export function marketHref(base: string, r: { market: string; id: bigint }, multi: boolean): string {
  return `${base}/markets/${r.id}${multi ? `?market=${r.market}` : ""}`;
}

export function rowView(base: string, r: MarketRow, multi: boolean): MarketRowView {
  return {
    key: `${r.market.toLowerCase()}:${r.id}`,
    href: marketHref(base, r, multi),
    id: r.id.toString(),
    status: r.status,
    question: clip(r.question),
    deadline: iso(r.deadline),
    pool: eth(r.pool),
    outcome: r.outcome || "—",
    disputeEndsAt: iso(r.disputeEndsAt),
    dispute: r.dispute,
  };
}

const COLUMNS: [keyof MarketRowView, string][] = [
  ["id", "Id"],
  ["status", "Status"],
  ["question", "Question"],
  ["deadline", "Deadline (UTC)"],
  ["pool", "Reward pool"],
  ["outcome", "Outcome"],
  ["disputeEndsAt", "Dispute window ends"],
  ["dispute", "Dispute"],
];

function rowHtml(v: MarketRowView): string {
  const cells = COLUMNS.map(([k]) => {
    const text = k === "id" ? `<a href="${esc(v.href)}">#${esc(v.id)}</a>` : esc(v[k]);
    return `<td data-field="${k}"${k === "pool" ? ' class="num"' : ""}>${text}</td>`;
  }).join("");
  return `<tr data-key="${esc(v.key)}">${cells}</tr>`;
}

export function marketsPage(base: string, rows: MarketRowView[]): Page {
  const head = COLUMNS.map(([, label]) => `<th scope="col">${esc(label)}</th>`).join("");
  const body = `<h1>Markets</h1>
<p class="muted">Read from the chain; this table refreshes itself every few seconds. <span id="live-status" role="status" aria-live="polite"></span></p>
<table id="markets" data-live-markets="${esc(`${base}/api/markets`)}"><caption>${rows.length} market(s), newest first</caption>
<thead><tr>${head}</tr></thead><tbody>${rows.map(rowHtml).join("")}</tbody></table>
${rows.length === 0 ? '<p id="no-markets">No markets yet.</p>' : ""}`;
  return { title: "Markets", body, scripts: ["explorer.js"] };
}

const num = (x: number | undefined, digits = 3) => (x === undefined ? "—" : x.toFixed(digits));

function workerSection(w: BundleWorker, base: string): string {
  const failure = workerFailure(w);
  const challenges = capped(w.challenges);
  const replies = capped(w.challengeReplies);
  const dimensions = Object.entries(w.evaluation?.dimensions ?? {});
  const aggregate = Object.entries(w.evaluation?.aggregate ?? {});
  const answer = w.answer
    ? `<p><strong>Answer:</strong> <span data-field="answer">${w.answer.determination ? "YES" : "NO"}</span>, confidence <span data-field="confidence">${esc(pct(w.answer.confidence))}</span></p>
<h4>Evidence</h4><p class="text" data-field="evidence">${esc(w.answer.evidence) || '<span class="muted">none</span>'}</p>
${
  w.answer.sources.length
    ? `<h4>Sources</h4><ul>${capped(w.answer.sources)
        .map((s) => `<li class="mono">${esc(s)}</li>`)
        .join("")}</ul>`
    : ""
}`
    : `<p><strong>No answer.</strong> <span data-field="failure">${esc(failure ? `${failure.kind}: ${failure.message}` : "no reason recorded")}</span></p>`;
  const qa = challenges.length
    ? `<h4>Challenges and replies</h4><ol>${challenges.map((c, i) => `<li><p class="text" data-field="challenge"><strong>Challenge:</strong> ${esc(c)}</p><p class="text" data-field="reply"><strong>Reply:</strong> ${replies[i] !== undefined ? esc(replies[i]) : '<span class="muted">no reply</span>'}</p></li>`).join("")}</ol>`
    : "";
  const challengeFailure = w.challengeFailure
    ? `<p><strong>Challenge failed:</strong> ${esc(`${w.challengeFailure.kind}: ${w.challengeFailure.message}`)}</p>`
    : "";
  const dims = dimensions.length
    ? `<table data-field="dimensions"><caption>Evaluation: ${dimensions.length} dimensions</caption><thead><tr><th scope="col">Dimension</th><th scope="col" class="num">Score</th><th scope="col">Explanation</th></tr></thead><tbody>${dimensions
        .map(
          ([name, d]) =>
            `<tr data-dimension="${esc(name)}"><th scope="row">${esc(name)}</th><td class="num">${esc(d.score)}</td><td class="text">${esc(d.explanation)}</td></tr>`,
        )
        .join("")}</tbody></table>${
        aggregate.length ? `<p>Aggregates: ${aggregate.map(([k, v]) => `${esc(k)} ${esc(v)}`).join(", ")}</p>` : ""
      }`
    : "";
  const agent = w.agentId ? `<a href="${esc(`${base}/agents/${w.agentId}`)}">agent ${esc(w.agentId)}</a>` : "agent ?";
  return `<section class="worker" data-seat="${w.seat}" aria-labelledby="seat-${w.seat}"><h3 id="seat-${w.seat}">Seat ${w.seat}: ${agent} <span class="mono muted">${esc(w.address)}</span></h3>
${w.endpoint ? `<p>Endpoint <span class="mono">${esc(w.endpoint.url)}</span> (${esc(w.endpoint.protocol)})</p>` : ""}${answer}${qa}${challengeFailure}${dims}</section>`;
}

function traceHtml(trace: BundleDocument, detail: MarketDetail, base: string): string {
  const d = trace.decision;
  const evaluator = evaluatorLabel(trace);
  const workers = renderedWorkers(trace);
  const decision = d
    ? `<dl class="facts" id="decision"><dt>Verdict</dt><dd data-field="verdict">${esc(d.verdict)}</dd>${d.reason ? `<dt>Reason</dt><dd data-field="reason">${esc(d.reason)}</dd>` : ""}<dt>Posterior</dt><dd data-field="posterior">${esc(num(d.posterior, 4))}</dd><dt>Threshold</dt><dd data-field="threshold">${esc(d.thresholdBps === undefined ? "—" : `${d.thresholdBps} bps`)}</dd><dt>Log-odds</dt><dd>${esc(num(d.logOdds, 3))}</dd><dt>Quorum</dt><dd>${esc(`${trace.quorum.answered} of ${trace.quorum.n} answered, ${trace.quorum.required} required`)}</dd>${evaluator ? `<dt>Evaluator</dt><dd>${esc(evaluator)}</dd>` : ""}</dl>`
    : `<p>No decision in this bundle${trace.outcome ? ` (${esc(trace.outcome.kind)})` : ""}.</p>`;
  const seatOf = new Map(detail.seats.map((s) => [s.agentId.toString(), s]));
  const rows = workers
    .map((w) => {
      const s = seatOf.get(w.agentId);
      const failure = workerFailure(w);
      const answer = w.answer ? (w.answer.determination ? "YES" : "NO") : "no answer";
      return `<tr data-seat="${w.seat}"><td>${w.seat}</td><td>${esc(w.agentId)}</td><td data-field="answer">${answer}</td><td class="num" data-field="confidence">${esc(pct(w.answer?.confidence))}</td><td data-field="failure">${esc(failure ? `${failure.kind}: ${clip(failure.message, 120)}` : "—")}</td><td class="num" data-field="weight">${esc(num(w.vote?.weight))}</td><td class="num" data-field="correctness">${s ? esc(s.scored ? s.correctness : "not scored") : "—"}</td><td class="num" data-field="reward">${s ? esc(eth(s.reward)) : "—"}</td><td class="num">${s ? esc(`${eth(s.stakeReturned)} / ${eth(s.stakeSlashed)}`) : "—"}</td></tr>`;
    })
    .join("");
  const table = `<table id="seats"><caption>Workers: answer, vote weight and, once finalized, correctness and payout (WorkerSettled)</caption><thead><tr><th scope="col">Seat</th><th scope="col">Agent</th><th scope="col">Answer</th><th scope="col" class="num">Confidence</th><th scope="col">Failure</th><th scope="col" class="num">Vote weight</th><th scope="col" class="num">Correctness</th><th scope="col" class="num">Reward</th><th scope="col" class="num">Stake returned / slashed</th></tr></thead><tbody>${rows}</tbody></table>`;
  return `<h2>Decision</h2>${decision}<h2>Workers</h2>${table}${workers.map((w) => workerSection(w, base)).join("")}`;
}

export function marketPage(
  base: string,
  detail: MarketDetail,
  trace: StoredBundleDocument | undefined,
  traceError: string | undefined,
  bundleHref: string,
  liveHref: string,
): Page {
  const r = detail.row;
  const p = detail.state.proposal;
  const facts: [string, string, string?][] = [
    ["Status", esc(r.status), "status"],
    ["Contract", `<span class="mono">${esc(r.market)}</span>`],
    ["Deadline", esc(iso(r.deadline))],
    ["Reward pool", esc(eth(r.pool))],
    ["Workers", esc(detail.state.workerCount)],
    ["Outcome", esc(r.outcome || "—"), "outcome"],
    ["Proposer", p ? `<span class="mono">${esc(p.proposer)}</span>` : "—"],
    ["Dispute window ends", esc(iso(r.disputeEndsAt)), "disputeEndsAt"],
    ["Dispute", esc(r.dispute), "dispute"],
    ["Bundle hash (on chain)", `<span class="mono" id="onchain-hash">${esc(detail.bundleHash)}</span>`],
    ["Bundle URI (on chain)", detail.bundleUri ? `<span class="mono">${esc(detail.bundleUri)}</span>` : "none"],
  ];
  if (detail.betting)
    facts.push([
      "Betting pool",
      esc(`YES ${eth(detail.betting.yes)} · NO ${eth(detail.betting.no)} (${detail.betting.settlement})`),
      "betting",
    ]);
  const factsHtml = `<p id="live-status" role="status" aria-live="polite"></p><dl class="facts" id="facts" data-live-market="${esc(liveHref)}">${facts.map(([k, v, f]) => `<dt>${esc(k)}</dt><dd${f ? ` data-field="${f}"` : ""}>${v}</dd>`).join("")}</dl>`;
  let bundle: string;
  if (detail.bundle.state === "loaded") {
    bundle = `<p>Bundle from ${esc(detail.bundle.source)} (<a href="${esc(bundleHref)}">raw JSON</a>). Hash check in your browser: <strong id="hash-check" role="status" aria-live="polite" data-bundle-b64="${Buffer.from(detail.bundle.text, "utf8").toString("base64")}" data-expected-hash="${esc(detail.bundleHash)}">checking…</strong></p>`;
    if (trace === undefined)
      bundle += `<p id="bundle-error">The bundle could not be read: ${esc(traceError ?? "unknown error")}</p>`;
    else if (isResolutionBundle(trace)) bundle += traceHtml(trace, detail, base);
    else
      bundle += `<p id="bundle-invalid-proposal">An invalid proposal without a resolution run: ${esc(trace.reason)}.</p>`;
  } else {
    bundle = `<p id="bundle-unavailable">No resolution trace: ${esc(detail.bundle.reason)}.</p>`;
  }
  const body = `<p><a href="${esc(base)}">← All markets</a></p><h1>Market #${esc(r.id)}</h1><p class="question" id="question">${esc(r.question)}</p>${factsHtml}<h2>Resolution trace</h2>${bundle}`;
  return { title: `Market #${r.id}`, body, scripts: ["explorer.js"] };
}

export function agentsPage(base: string, agents: AgentRow[]): Page {
  const rows = agents
    .map(
      (a) =>
        `<tr><td><a href="${esc(`${base}/agents/${a.agentId}`)}">agent ${esc(a.agentId)}</a></td><td class="mono">${a.addresses.map(esc).join("<br>")}</td><td class="num">${a.markets}</td></tr>`,
    )
    .join("");
  const body = `<h1>Agents</h1><table id="agents"><caption>Agents seated in the listed markets</caption><thead><tr><th scope="col">Agent</th><th scope="col">Worker address(es)</th><th scope="col" class="num">Markets</th></tr></thead><tbody>${rows}</tbody></table>${agents.length === 0 ? "<p>No agents yet.</p>" : ""}`;
  return { title: "Agents", body };
}

export function agentPage(base: string, a: AgentDetail): Page {
  const services = a.services.length
    ? `<table id="services"><caption>Registration services</caption><thead><tr><th scope="col">Service</th><th scope="col">Endpoint</th><th scope="col">Protocol</th></tr></thead><tbody>${a.services.map((s) => `<tr><td>${esc(s.name)}</td><td class="mono">${esc(s.endpoint)}</td><td>${esc(s.protocol)}</td></tr>`).join("")}</tbody></table>`
    : "";
  const reg = a.registrationError
    ? `<p>Registration: ${esc(a.registrationError)}</p>`
    : `<p>Registration file: <strong>${esc(a.name ?? "")}</strong>${a.active === false ? " (marked inactive)" : ""}</p>`;
  const summary = a.summaryError
    ? `<p>ERC-8004 summary unavailable: ${esc(a.summaryError)}</p>`
    : `<table id="erc8004"><caption>ERC-8004 ReputationRegistry getSummary (clients: the market contracts)</caption><thead><tr><th scope="col">Tag</th><th scope="col" class="num">Feedback count</th><th scope="col" class="num">Average value</th></tr></thead><tbody>${a.summary.map((s) => `<tr><td>${esc(s.tag)}</td><td class="num">${esc(s.count)}</td><td class="num">${esc(s.value)}</td></tr>`).join("")}</tbody></table>`;
  const t = a.track;
  const labels = t.map((_, i) => String(i + 1));
  let right = 0,
    scored = 0,
    conf = 0;
  const accuracy: number[] = [],
    meanConf: number[] = [];
  for (const p of t) {
    if (p.correct !== undefined) {
      right += p.correct;
      scored++;
      conf += p.confidenceBps / 10_000;
    }
    accuracy.push(scored ? right / scored : 0);
    meanConf.push(scored ? conf / scored : 0);
  }
  const q = (k: "resQuality" | "srcQuality" | "analysisDepth") => t.map((p) => (p.quality?.[k] ?? 0) / 100);
  const charts = t.length
    ? lineChart(
        "chart-accuracy",
        "Accuracy over time",
        `Cumulative share of right yes/no answers after each of ${t.length} finalized market(s); now ${pct(accuracy.at(-1))}.`,
        [{ label: "accuracy", color: "#0b57d0", points: accuracy }],
        labels,
      ) +
      lineChart(
        "chart-calibration",
        "Calibration: mean confidence vs accuracy",
        `Cumulative mean stated confidence against cumulative accuracy; a calibrated agent's lines meet. Now ${pct(meanConf.at(-1))} confidence, ${pct(accuracy.at(-1))} accuracy.`,
        [
          { label: "mean confidence", color: "#b3261e", points: meanConf },
          { label: "accuracy", color: "#0b57d0", points: accuracy },
        ],
        labels,
      ) +
      lineChart(
        "chart-quality",
        "Quality per market",
        "Resolution quality, source quality and analysis depth (0–100) recorded at each finalization.",
        [
          { label: "resolution", color: "#0a6b2e", points: q("resQuality") },
          { label: "sources", color: "#6b3fa0", points: q("srcQuality") },
          { label: "depth", color: "#8a5300", points: q("analysisDepth") },
        ],
        labels,
      )
    : "<p>No finalized markets yet: no track record.</p>";
  const history = t.length
    ? `<table id="history"><caption>Track record (finalized markets, oldest first)</caption><thead><tr><th scope="col">#</th><th scope="col">Market</th><th scope="col">Answer</th><th scope="col" class="num">Confidence</th><th scope="col">Final</th><th scope="col">Right?</th></tr></thead><tbody>${t.map((p, i) => `<tr><td>${i + 1}</td><td class="mono">${esc(p.key)}</td><td>${esc(p.answer)}</td><td class="num">${esc(pct(p.confidenceBps / 10_000))}</td><td>${esc(p.final === "invalid" ? "invalid" : p.final ? "yes" : "no")}</td><td>${p.correct === undefined ? "not scored" : p.correct ? "right" : "wrong"}</td></tr>`).join("")}</tbody></table>`
    : "";
  const body = `<p><a href="${esc(`${base}/agents`)}">← All agents</a></p><h1>Agent ${esc(a.agentId)}</h1>${reg}${a.uri !== undefined ? `<p>tokenURI: <span class="mono">${esc(clip(a.uri, 200))}</span></p>` : ""}${services}<h2>ERC-8004 reputation</h2>${summary}<h2>Track record</h2>${charts}${history}`;
  return { title: `Agent ${a.agentId}`, body };
}

export function errorPage(message: string): Page {
  return { title: "Error", body: `<h1>Error</h1><p id="error">${esc(message)}</p>` };
}
