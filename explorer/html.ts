/**
 * HTML building blocks of the explorer: one escaping function every untrusted string goes through, the page
 * layout (skip link, landmarks, lang) and the inline SVG line chart of the agent pages.
 */

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
  Number(seconds) > 0 ? new Date(Number(seconds) * 1000).toISOString().replace(".000Z", "Z") : "—";

/** Wei as ETH with up to 6 decimals (exact bigint arithmetic, no float rounding of large pools). */
export function eth(wei: bigint): string {
  const neg = wei < 0n;
  const abs = neg ? -wei : wei;
  const whole = abs / 10n ** 18n;
  const frac = ((abs % 10n ** 18n) / 10n ** 12n).toString().padStart(6, "0").replace(/0+$/, "");
  return `${neg ? "-" : ""}${whole}${frac ? `.${frac}` : ""} ETH`;
}

export const pct = (x: number | undefined, digits = 1): string =>
  x === undefined || !Number.isFinite(x) ? "—" : `${(x * 100).toFixed(digits)} %`;

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
figure{margin:1rem 0}figcaption{color:var(--muted)}svg text{font:12px system-ui,sans-serif;fill:#1a1a1a}
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

/** A small line chart of values in [0, 1] with axis labels, a <title>/<desc> and role="img". */
export function lineChart(id: string, title: string, description: string, series: Series[], xLabels: string[]): string {
  const w = 560,
    h = 220,
    left = 44,
    right = 12,
    top = 12,
    bottom = 36;
  const n = Math.max(1, ...series.map((s) => s.points.length));
  const x = (i: number) => left + (n === 1 ? (w - left - right) / 2 : (i * (w - left - right)) / (n - 1));
  const y = (v: number) => top + (1 - Math.min(1, Math.max(0, v))) * (h - top - bottom);
  const grid = [0, 0.25, 0.5, 0.75, 1]
    .map(
      (v) =>
        `<line x1="${left}" x2="${w - right}" y1="${y(v)}" y2="${y(v)}" stroke="#d0d0d0"/><text x="${left - 6}" y="${y(v) + 4}" text-anchor="end">${v * 100}%</text>`,
    )
    .join("");
  const lines = series
    .map((s) => {
      if (s.points.length === 0) return "";
      const pts = s.points.map((v, i) => `${x(i).toFixed(1)},${y(v).toFixed(1)}`).join(" ");
      const dots = s.points
        .map(
          (v, i) =>
            `<circle cx="${x(i).toFixed(1)}" cy="${y(v).toFixed(1)}" r="3" fill="${s.color}"><title>${esc(`${s.label} after ${xLabels[i] ?? i + 1}: ${(v * 100).toFixed(1)} %`)}</title></circle>`,
        )
        .join("");
      return `<polyline fill="none" stroke="${s.color}" stroke-width="2" points="${pts}"/>${dots}`;
    })
    .join("");
  const ticks = xLabels
    .map((l, i) => `<text x="${x(i)}" y="${h - bottom + 16}" text-anchor="middle">${esc(l)}</text>`)
    .join("");
  const legend = series
    .map(
      (s, i) =>
        `<rect x="${left + i * 150}" y="${h - 12}" width="10" height="10" fill="${s.color}"/><text x="${left + i * 150 + 14}" y="${h - 3}">${esc(s.label)}</text>`,
    )
    .join("");
  return `<figure><svg id="${esc(id)}" role="img" aria-labelledby="${esc(id)}-t ${esc(id)}-d" viewBox="0 0 ${w} ${h}" width="${w}" height="${h}"><title id="${esc(id)}-t">${esc(title)}</title><desc id="${esc(id)}-d">${esc(description)}</desc>${grid}${lines}${ticks}${legend}</svg><figcaption>${esc(title)}</figcaption></figure>`;
}
