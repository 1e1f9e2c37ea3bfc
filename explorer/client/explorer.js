// The explorer's only client code: refreshes the market table and checks the bundle hash. Untrusted text is only
// ever set through textContent.
import { keccak_256 } from "./noble/sha3.js";

const REFRESH_MS = 2000;

function hex(bytes) {
  return `0x${Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("")}`;
}

// keccak256 of the exact bytes this page's trace was rendered from (embedded in the page, so a bundle host cannot
// serve one version to the renderer and another to the check), compared with the on-chain bundleHash.
function checkHash(el) {
  try {
    const bytes = Uint8Array.from(atob(el.dataset.bundleB64), (c) => c.charCodeAt(0));
    const got = hex(keccak_256(bytes));
    const expected = el.dataset.expectedHash.toLowerCase();
    el.dataset.computedHash = got;
    el.className = got === expected ? "verified" : "mismatch";
    el.textContent =
      got === expected
        ? "verified ✓ (keccak256 of the bundle equals the on-chain bundleHash)"
        : `MISMATCH ✗ keccak256 of the bundle is ${got}`;
  } catch (err) {
    el.className = "mismatch";
    el.textContent = `could not check: ${err instanceof Error ? err.message : String(err)}`;
  }
}

const FIELDS = ["id", "status", "question", "deadline", "pool", "outcome", "disputeEndsAt", "dispute"];

function rowOf(r) {
  const tr = document.createElement("tr");
  tr.dataset.key = r.key;
  for (const f of FIELDS) {
    const td = document.createElement("td");
    td.dataset.field = f;
    if (f === "pool") td.className = "num";
    if (f === "question") {
      td.className = "q";
      td.dir = "auto";
    }
    if (f === "id") {
      const a = document.createElement("a");
      a.href = r.href;
      a.textContent = `#${r.id}`;
      td.append(a);
    } else td.textContent = r[f];
    tr.append(td);
  }
  return tr;
}

async function refresh(table, status) {
  try {
    const res = await fetch(table.dataset.liveMarkets, { cache: "no-store" });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const { rows, caption } = await res.json();
    const body = table.tBodies[0];
    const existing = new Map(Array.from(body.rows, (tr) => [tr.dataset.key, tr]));
    rows.forEach((r, i) => {
      let tr = existing.get(r.key);
      if (!tr) tr = rowOf(r);
      else
        for (const td of tr.cells)
          if (td.dataset.field !== "id" && td.textContent !== r[td.dataset.field]) td.textContent = r[td.dataset.field];
      if (body.rows[i] !== tr) body.insertBefore(tr, body.rows[i] ?? null);
    });
    for (const [key, tr] of existing) if (!rows.some((r) => r.key === key)) tr.remove();
    table.caption.textContent = caption;
    document.getElementById("no-markets")?.remove();
    status.textContent = "";
  } catch (err) {
    status.textContent = `refresh failed: ${err instanceof Error ? err.message : String(err)}`;
  }
  setTimeout(() => refresh(table, status), REFRESH_MS);
}

// The market page's facts follow the chain too; a new status may bring a new trace, which a reload shows.
async function refreshFacts(facts, status) {
  try {
    const res = await fetch(facts.dataset.liveMarket, { cache: "no-store" });
    if (!res.ok) throw new Error(`HTTP ${res.status}`);
    const { row } = await res.json();
    for (const dd of facts.querySelectorAll("dd[data-field]")) {
      const value = row[dd.dataset.field];
      if (typeof value !== "string" || dd.textContent === value) continue;
      if (dd.dataset.field === "status")
        status.textContent = `Status changed to ${value}: reload for the latest trace.`;
      dd.textContent = value;
    }
  } catch (err) {
    status.textContent = `refresh failed: ${err instanceof Error ? err.message : String(err)}`;
  }
  setTimeout(() => refreshFacts(facts, status), REFRESH_MS);
}

const check = document.getElementById("hash-check");
if (check) checkHash(check);
const table = document.querySelector("table[data-live-markets]");
if (table) setTimeout(() => refresh(table, document.getElementById("live-status")), REFRESH_MS);
const facts = document.querySelector("dl[data-live-market]");
if (facts) setTimeout(() => refreshFacts(facts, document.getElementById("live-status")), REFRESH_MS);
