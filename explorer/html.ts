/**
 * HTML building blocks of the explorer: one escaping function every untrusted string goes through, visible
 * rendering of control and bidi characters, safe links, the page layout (skip link, landmarks, lang) and the
 * inline SVG line chart of the agent pages.
 */
import { eth, percent } from "../workflow/core/explain.js";
import { visibleText } from "../workflow/core/text.js";
import { isoSeconds } from "../workflow/util/time.js";

export { eth };

/** Escapes text for HTML element content and double-quoted attributes. Every string from the chain, a bundle
 * or a registration file goes through here. */
export function esc(value: unknown): string {
  return String(value ?? "").replace(
    /[&<>"']/g,
    (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c] ?? c,
  );
}

/** Cuts long untrusted text for tables (the full text stays on the detail page). */
export function clip(text: string, max = 160): string {
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

export const iso = (seconds: bigint | number): string =>
  Number(seconds) > 0 ? isoSeconds(seconds).replace(".000Z", "Z") : "—";

/** Probabilities: one unit (percent) on every page. */
export const pct = (x: number | undefined): string => percent(x);

/**
 * Untrusted text as HTML: control, bidi and invisible characters become visible `[U+XXXX]` markers (so nothing
 * can reorder or hide text), then escaped. `multiline` keeps line breaks (evidence, replies); one-line text (a
 * question, a name) shows them as markers too.
 */
export function txt(value: unknown, multiline = false): string {
  const s = String(value ?? "");
  return esc(multiline ? s.split(/\r?\n/).map(visibleText).join("\n") : visibleText(s));
}

/**
 * A source or endpoint: a link only for http(s) URLs (opened without referrer or opener), text otherwise
 * (javascript:, data: and anything unparsable are never links).
 */
export function safeLink(raw: string): string {
  let url: URL | undefined;
  try {
    url = new URL(raw);
  } catch {
    url = undefined;
  }
  if (url === undefined || (url.protocol !== "http:" && url.protocol !== "https:"))
    return `<span class="mono" dir="ltr">${txt(raw)}</span>`;
  return `<a class="mono" dir="ltr" href="${esc(url.href)}" rel="noopener noreferrer nofollow" referrerpolicy="no-referrer" target="_blank">${txt(raw)}</a>`;
}

export const STYLE = `
:root{color-scheme:light;--fg:#1a1a1a;--muted:#4a4a4a;--bg:#fff;--line:#c8c8c8;--accent:#0b57d0;--ok:#0a6b2e;--bad:#a8071a;--panel:#f4f6f8}
*{box-sizing:border-box}body{margin:0;font:16px/1.5 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:var(--fg);background:var(--bg)}
a{color:var(--accent)}a:focus-visible,button:focus-visible,summary:focus-visible,[tabindex]:focus-visible{outline:3px solid #b35900;outline-offset:2px}
.skip{position:absolute;left:-999px;top:0;background:#fff;padding:.5rem 1rem;z-index:2}.skip:focus{left:1rem}
header{background:#13294b;color:#fff;padding:.75rem 1.5rem;display:flex;gap:2rem;align-items:baseline;flex-wrap:wrap}
header a{color:#fff;font-weight:600}header nav ul{list-style:none;display:flex;gap:1.25rem;margin:0;padding:0}
main{padding:1rem 1.5rem 3rem;max-width:80rem}h1{font-size:1.6rem;margin:.5rem 0 1rem}h2{font-size:1.25rem;margin-top:2rem}
table{border-collapse:collapse;width:100%;margin:.5rem 0}th,td{border-bottom:1px solid var(--line);padding:.4rem .5rem;text-align:left;vertical-align:top}
th{background:var(--panel)}caption{text-align:left;font-weight:600;padding:.25rem 0;color:var(--muted)}
.num{text-align:right;font-variant-numeric:tabular-nums}.muted{color:var(--muted)}code,.mono{font-family:ui-monospace,monospace;font-size:.9em;word-break:break-all}
.badge{display:inline-block;padding:0 .45rem;border-radius:.3rem;background:var(--panel);border:1px solid var(--line);font-size:.9em}
.verified{color:var(--ok);font-weight:700}.mismatch{color:var(--bad);font-weight:700}
dl.facts{display:grid;grid-template-columns:max-content 1fr;gap:.25rem 1rem}dl.facts dt{font-weight:600}dl.facts dd{margin:0}
section.worker{border:1px solid var(--line);border-radius:.4rem;padding:.5rem 1rem;margin:1rem 0}
.question{white-space:pre-wrap;overflow-wrap:anywhere}.text{white-space:pre-wrap;overflow-wrap:anywhere}
.question,.text,.untrusted,td.q{unicode-bidi:isolate}
figure{margin:1rem 0}figcaption{color:var(--muted);margin-bottom:.25rem}svg text{font:12px system-ui,sans-serif;fill:#1a1a1a}
#summary{border:2px solid var(--accent);border-radius:.5rem;padding:.5rem 1rem;margin:1rem 0;background:#f7f9fd}
#summary h2{margin-top:.25rem}.headline{font-size:1.15rem;font-weight:700;margin:.25rem 0}
details.worker{border:1px solid var(--line);border-radius:.4rem;padding:.25rem 1rem;margin:.5rem 0}
details.worker>summary{cursor:pointer;padding:.25rem 0;font-weight:600}
nav.pager{display:flex;gap:1rem;align-items:baseline;margin:.5rem 0}
`;

export interface Page {
  title: string;
  body: string;
  /** Client modules to load (served under /explorer/assets/). */
  scripts?: string[];
}

/** The keccak module's one bare import (`@noble/hashes/crypto`), resolved without a bundler. */
export function importMapOf(base: string): string {
  return JSON.stringify({ imports: { "@noble/hashes/crypto": `${base}/assets/noble/crypto.js` } });
}

/** The full document: lang, skip link, banner + nav, main landmark. CSS inline (one request per page). */
export function layout(base: string, page: Page): string {
  const scripts = (page.scripts ?? [])
    .map((s) => `<script type="module" src="${esc(`${base}/assets/${s}`)}"></script>`)
    .join("");
  const importMap = `<script type="importmap">${importMapOf(base)}</script>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(page.title)} · cresolver explorer</title><style>${STYLE}</style>${importMap}${scripts}</head>
<body><a class="skip" href="#main">Skip to content</a>
<header><a href="${esc(base)}">cresolver explorer</a><nav aria-label="Sections"><ul><li><a href="${esc(base)}">Markets</a></li><li><a href="${esc(`${base}/agents`)}">Agents</a></li></ul></nav></header>
<main id="main" tabindex="-1">${page.body}</main></body></html>`;
}

export interface Series {
  label: string;
  color: string;
  /** y in [0, 1]; x is the index (one point per finalized market). */
  points: number[];
}

/** Axis titles of a chart. */
export interface Axes {
  x: string;
  y: string;
}

/**
 * A small line chart of values in [0, 1] (shown in percent): caption above, titled axes, a <title>/<desc> and
 * role="img".
 */
export function lineChart(
  id: string,
  title: string,
  description: string,
  series: Series[],
  xLabels: string[],
  axes: Axes = { x: "finalized market, oldest to newest", y: "percent" },
): string {
  const w = 580,
    h = 250,
    left = 62,
    right = 12,
    top = 12,
    bottom = 58;
  const n = Math.max(1, ...series.map((s) => s.points.length));
  const x = (i: number) => left + (n === 1 ? (w - left - right) / 2 : (i * (w - left - right)) / (n - 1));
  const y = (v: number) => top + (1 - Math.min(1, Math.max(0, v))) * (h - top - bottom);
  const grid = [0, 0.25, 0.5, 0.75, 1]
    .map(
      (v) =>
        `<line x1="${left}" x2="${w - right}" y1="${y(v)}" y2="${y(v)}" stroke="#d0d0d0"/><text x="${left - 6}" y="${y(v) + 4}" text-anchor="end">${v * 100} %</text>`,
    )
    .join("");
  const lines = series
    .map((s) => {
      if (s.points.length === 0) return "";
      const pts = s.points.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
      const dots = s.points
        .map(
          (v, i) =>
            `<circle cx="${x(i).toFixed(1)}" cy="${y(v).toFixed(1)}" r="3" fill="${s.color}"><title>${esc(`${s.label} after ${xLabels[i] ?? i + 1}: ${pct(v)}`)}</title></circle>`,
        )
        .join("");
      return `<polyline fill="none" stroke="${s.color}" stroke-width="2" points="${pts}"/>${dots}`;
    })
    .join("");
  const ticks = xLabels
    .map((l, i) => `<text x="${x(i)}" y="${h - bottom + 16}" text-anchor="middle">${esc(l)}</text>`)
    .join("");
  const midY = (top + h - bottom) / 2;
  const axisTitles = `<text class="axis-x" x="${(left + w - right) / 2}" y="${h - bottom + 32}" text-anchor="middle">${esc(axes.x)}</text><text class="axis-y" x="14" y="${midY}" text-anchor="middle" transform="rotate(-90 14 ${midY})">${esc(axes.y)}</text>`;
  const legend = series
    .map(
      (s, i) =>
        `<rect x="${left + i * 150}" y="${h - 12}" width="10" height="10" fill="${s.color}"/><text x="${left + i * 150 + 14}" y="${h - 3}">${esc(s.label)}</text>`,
    )
    .join("");
  return `<figure><figcaption id="${esc(id)}-c"><strong>${esc(title)}</strong>: ${esc(description)}</figcaption><svg id="${esc(id)}" role="img" aria-labelledby="${esc(id)}-t ${esc(id)}-d" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}"><title id="${esc(id)}-t">${esc(title)}</title><desc id="${esc(id)}-d">${esc(description)}</desc>${grid}${lines}${ticks}${axisTitles}${legend}</svg></figure>`;
}
