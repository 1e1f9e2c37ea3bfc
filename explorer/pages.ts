/** The explorer's pages, server-rendered. Every string that came from the chain, a bundle or a registration file is
 * passed through `esc`. */
import { explainInputOf } from "../workflow/chain/market-facts.js";
import type { StoredBundleDocument } from "../workflow/core/bundle-schema.js";
import { explainMarket } from "../workflow/core/explain.js";
import { visibleText } from "../workflow/core/text.js";
import { isResolutionBundle } from "./bundle.js";
import type { AgentDetail, AgentRow, MarketDetail, MarketRow } from "./data.js";
import { clip, esc, eth, iso, lineChart, pct, safeLink, txt, type Page } from "./html.js";
import { summaryHtml } from "./summary.js";
import { traceHtml } from "./trace.js";

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
    question: clip(visibleText(r.question)),
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
    const attrs = k === "pool" ? ' class="num"' : k === "question" ? ' class="q" dir="auto"' : "";
    return `<td data-field="${k}"${attrs}>${text}</td>`;
  }).join("");
  return `<tr data-key="${esc(v.key)}">${cells}</tr>`;
}

/** Where the list is: page `page` of `pages`, `total` markets. */
export interface PageInfo {
  page: number;
  pages: number;
  total: number;
}

export function pageCaption(rows: number, p: PageInfo): string {
  return `${rows} of ${p.total} market(s), newest first · page ${p.page} of ${p.pages}`;
}

function pager(base: string, p: PageInfo): string {
  if (p.pages <= 1) return "";
  const link = (n: number, label: string, rel: string) =>
    `<a href="${esc(`${base}?page=${n}`)}" rel="${rel}">${label}</a>`;
  return `<nav class="pager" aria-label="Pages">${p.page > 1 ? link(p.page - 1, "← Newer", "prev") : ""}<span>Page ${p.page} of ${p.pages}</span>${p.page < p.pages ? link(p.page + 1, "Older →", "next") : ""}</nav>`;
}

export function marketsPage(
  base: string,
  rows: MarketRowView[],
  info: PageInfo = { page: 1, pages: 1, total: rows.length },
): Page {
  const head = COLUMNS.map(([, label]) => `<th scope="col">${esc(label)}</th>`).join("");
  const body = `<h1>Markets</h1>
<p class="muted">Read from the chain; this table refreshes itself every few seconds. <span id="live-status" role="status" aria-live="polite"></span></p>${pager(base, info)}
<table id="markets" data-live-markets="${esc(`${base}/api/markets?page=${info.page}`)}"><caption>${esc(pageCaption(rows.length, info))}</caption>
<thead><tr>${head}</tr></thead><tbody>${rows.map(rowHtml).join("")}</tbody></table>
${rows.length === 0 ? '<p id="no-markets">No markets yet.</p>' : ""}${pager(base, info)}`;
  return { title: "Markets", body, scripts: ["explorer.js"] };
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
  const explanation = explainMarket(
    explainInputOf(detail.state, {
      now: detail.now,
      reports: detail.reports,
      results: detail.seats,
      facts: detail.facts,
      names: detail.names,
      ...(trace !== undefined ? { bundle: trace } : {}),
      ...(detail.betting !== undefined ? { betting: detail.betting } : {}),
    }),
  );
  const facts: [string, string, string?][] = [
    ["Status", esc(r.status), "status"],
    ["Contract", `<span class="mono">${esc(r.market)}</span>`],
    ["Deadline", esc(iso(r.deadline))],
    ["Reward pool", esc(eth(r.pool))],
    ["Workers", esc(detail.state.workerCount)],
    ["Outcome (final)", esc(r.outcome || "—"), "outcome"],
    ["Proposer", p ? `<span class="mono">${esc(p.proposer)}</span>` : "—"],
    ["Dispute window ends", esc(iso(r.disputeEndsAt)), "disputeEndsAt"],
    ["Dispute", esc(r.dispute), "dispute"],
    ["Arbiter", `<span class="mono">${esc(detail.state.config.arbiter)}</span>`],
    ["Bundle hash (on chain)", `<span class="mono" id="onchain-hash">${esc(detail.bundleHash)}</span>`],
    ["Bundle URI (on chain)", detail.bundleUri ? safeLink(detail.bundleUri) : "none"],
  ];
  if (detail.betting)
    facts.push([
      "Betting pool",
      esc(
        detail.betting.yes + detail.betting.no === 0n
          ? "no bets"
          : `YES ${eth(detail.betting.yes)} · NO ${eth(detail.betting.no)}${detail.betting.settlement === "pending" ? "" : ` (${detail.betting.settlement})`}`,
      ),
      "betting",
    ]);
  const factsHtml = `<p id="live-status" role="status" aria-live="polite"></p><dl class="facts" id="facts" data-live-market="${esc(liveHref)}">${facts.map(([k, v, f]) => `<dt>${esc(k)}</dt><dd${f ? ` data-field="${f}"` : ""}>${v}</dd>`).join("")}</dl>`;
  let bundle: string;
  if (detail.bundle.state === "loaded") {
    bundle = `<p>Bundle from ${esc(detail.bundle.source)} (<a href="${esc(bundleHref)}">raw JSON</a>). Hash check in your browser: <strong id="hash-check" role="status" aria-live="polite" data-bundle-b64="${Buffer.from(detail.bundle.text, "utf8").toString("base64")}" data-expected-hash="${esc(detail.bundleHash)}">checking…</strong></p>`;
    if (trace === undefined)
      bundle += `<p id="bundle-error">The bundle could not be read: ${esc(traceError ?? "unknown error")}</p>`;
    else if (isResolutionBundle(trace)) bundle += traceHtml(trace, base, explanation.seats);
    else
      bundle += `<p id="bundle-invalid-proposal">An invalid proposal without a resolution run: ${esc(trace.reason)}.</p>`;
  } else {
    bundle = `<p id="bundle-unavailable">No resolution trace: ${esc(detail.bundle.reason)}.</p>`;
  }
  const body = `<p><a href="${esc(base)}">← All markets</a></p><h1>Market #${esc(r.id)}</h1><p class="question" id="question" dir="auto">${txt(r.question)}</p>${summaryHtml(base, explanation, detail.seats)}<h2>On-chain facts</h2>${factsHtml}<h2>Resolution trace</h2>${bundle}`;
  return { title: `Market #${r.id}`, body, scripts: ["explorer.js"] };
}

export function agentsPage(base: string, agents: AgentRow[]): Page {
  const rows = agents
    .map(
      (a) =>
        `<tr data-agent="${esc(a.agentId)}"><td><a href="${esc(`${base}/agents/${a.agentId}`)}">agent ${esc(a.agentId)}</a></td><td data-field="name" dir="auto" class="untrusted">${a.name !== undefined ? txt(a.name) : '<span class="muted">no name</span>'}</td><td class="mono">${a.addresses.map(esc).join("<br>")}</td><td class="num">${a.markets}</td></tr>`,
    )
    .join("");
  const body = `<h1>Agents</h1><table id="agents"><caption>Agents seated in the newest markets, with the name from their registration file</caption><thead><tr><th scope="col">Agent</th><th scope="col">Name</th><th scope="col">Worker address(es)</th><th scope="col" class="num">Markets</th></tr></thead><tbody>${rows}</tbody></table>${agents.length === 0 ? "<p>No agents yet.</p>" : ""}`;
  return { title: "Agents", body };
}

export function agentPage(base: string, a: AgentDetail): Page {
  const services = a.services.length
    ? `<table id="services"><caption>Registration services</caption><thead><tr><th scope="col">Service</th><th scope="col">Endpoint</th><th scope="col">Protocol</th></tr></thead><tbody>${a.services.map((s) => `<tr><td>${txt(s.name)}</td><td>${safeLink(s.endpoint)}</td><td>${txt(s.protocol)}</td></tr>`).join("")}</tbody></table>`
    : "";
  const reg = a.registrationError
    ? `<p>Registration: ${txt(a.registrationError)}</p>`
    : `<p>Registration file: <strong dir="auto" class="untrusted" id="agent-name">${txt(a.name ?? "")}</strong>${a.active === false ? " (marked inactive)" : ""}</p>`;
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
        { x: "finalized market, oldest to newest", y: "share right (%)" },
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
        { x: "finalized market, oldest to newest", y: "cumulative (%)" },
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
        { x: "finalized market, oldest to newest", y: "score (%)" },
      )
    : "<p>No finalized markets yet: no track record.</p>";
  const history = t.length
    ? `<table id="history"><caption>Track record (finalized markets, oldest first)</caption><thead><tr><th scope="col">#</th><th scope="col">Market</th><th scope="col">Answer</th><th scope="col" class="num">Confidence</th><th scope="col">Final</th><th scope="col">Right?</th></tr></thead><tbody>${t.map((p, i) => `<tr><td>${i + 1}</td><td class="mono">${esc(p.key)}</td><td>${esc(p.answer)}</td><td class="num">${esc(pct(p.confidenceBps / 10_000))}</td><td>${esc(p.final === "invalid" ? "invalid" : p.final ? "yes" : "no")}</td><td>${p.correct === undefined ? "not scored" : p.correct ? "right" : "wrong"}</td></tr>`).join("")}</tbody></table>`
    : "";
  const body = `<p><a href="${esc(`${base}/agents`)}">← All agents</a></p><h1>Agent ${esc(a.agentId)}${a.name ? ` <bdi class="untrusted">${txt(a.name)}</bdi>` : ""}</h1>${reg}${a.uri !== undefined ? `<p>tokenURI: <span class="mono">${txt(clip(a.uri, 200))}</span></p>` : ""}${services}<h2>ERC-8004 reputation</h2>${summary}<h2>Track record</h2>${charts}${history}`;
  return { title: `Agent ${a.agentId}`, body };
}

export function errorPage(message: string): Page {
  return { title: "Error", body: `<h1>Error</h1><p id="error">${esc(message)}</p>` };
}
