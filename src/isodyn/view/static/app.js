// isodyn viewer: plain JavaScript, no build step, no dependency.
// Everything that comes from the run (replies, questions, model names, seed ids) is untrusted: it is
// only ever put on the page as text nodes (`el` below, textContent), never through innerHTML.
"use strict";

const FILTERS = ["model", "strategy", "modality", "render", "perturbation", "topic", "seed_id", "verdict",
  "reason", "method", "ambiguity", "disagree", "marked"];
const LABELS = { seed_id: "seed", render: "render profile", disagree: "graders disagree", method: "grading method",
  marked: "marked by a person" };
// a cell's render and perturbation as the run spells their defaults: shown only when not these
const DEFAULT_RENDER = "default";
const NO_PERTURBATION = "none";
const PAGE = 100;
let META = null;
let lastList = "#/cells";
let reviewIds = [];
let firstPage = null;

// --- building the page ------------------------------------------------------------------------
function el(tag, props, ...children) {
  const node = document.createElement(tag);
  for (const [key, value] of Object.entries(props || {})) {
    if (value === null || value === undefined || value === false) continue;
    if (key === "class") node.className = value;
    else if (key.startsWith("on")) node.addEventListener(key.slice(2), value);
    else node.setAttribute(key, String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

function show(...nodes) {
  const main = document.getElementById("main");
  main.replaceChildren(...nodes);
}

function fail(message) {
  show(el("div", { class: "error-box", role: "alert" }, message));
}

// Each route takes the next number. A page's reply that arrives after the user moved on (a newer
// route began) is dropped: its promise never settles, so a slow earlier page cannot replace the
// page the user moved to. Writes (a mark) and the first page fetched at start are always kept.
let routeNumber = 0;

async function api(path, options) {
  const asked = routeNumber;
  const response = await fetch(path, options);
  let body;
  try {
    body = await response.json();
  } catch (error) {
    throw new Error(`the viewer answered ${response.status} without JSON`);
  }
  if (!response.ok) throw new Error(body.error || `the viewer answered ${response.status}`);
  const write = options && options.method && options.method !== "GET";
  if (asked !== 0 && asked !== routeNumber && !write) return new Promise(() => {});
  return body;
}

function number(n) {
  return Number(n).toLocaleString("en-US");
}

function verdictBadge(verdict, reason) {
  if (verdict === "right") return el("span", { class: "badge v-right" }, "✓ right");
  if (verdict === "wrong" && reason === "extraction_failed") return el("span", { class: "badge v-none" }, "✗ no answer found");
  if (verdict === "wrong") return el("span", { class: "badge v-wrong" }, "✗ wrong");
  if (verdict === "missing") return el("span", { class: "badge v-skip" }, "–");
  return el("span", { class: "badge v-skip" }, `not graded (${reason})`);
}

// The render profile and perturbation of a cell, arm or row that are not the defaults, as words
// ("lowres", "perturbed: magnitude"); a cell's JSON leaves the defaults out, an arm's holds them.
function variantTags(x) {
  const tags = [];
  if (x.render && x.render !== DEFAULT_RENDER) tags.push(x.render);
  if (x.perturbation && x.perturbation !== NO_PERTURBATION) tags.push(`perturbed: ${x.perturbation}`);
  return tags;
}

function armText(x) {
  return [x.model, x.strategy, x.modality, ...variantTags(x)].join(" · ");
}

function tagNodes(x) {
  return variantTags(x).map((tag) => el("span", { class: "flag profile" }, tag));
}

function cellLink(id, ...text) {
  return el("a", { href: `#/cell/${id}` }, ...text);
}

function seedLink(seed) {
  return el("a", { href: `#/seed/${encodeURIComponent(seed)}` }, seed);
}

function picture(digest) {
  const holder = el("div", { class: "figure" });
  const img = el("img", { src: `/image/${digest}`, alt: `the picture shown (${digest.slice(0, 19)}…)` });
  img.addEventListener("error", () => {
    holder.replaceChildren(el("div", { class: "placeholder" },
      `picture not available: ${digest.slice(0, 19)}… is not in the run's render cache`));
  });
  holder.append(img);
  return holder;
}

function replyNode(reply, span, id) {
  const pre = el("pre", { class: "reply", id: id === undefined ? null : "reply", "data-id": id });
  if (reply === null || reply === undefined) {
    pre.append(el("span", { class: "hint" }, "(no reply)"));
    return pre;
  }
  if (span) {
    const [start, end] = span;
    pre.append(document.createTextNode(reply.slice(0, start)),
      el("mark", { class: "answer-span" }, reply.slice(start, end)),
      document.createTextNode(reply.slice(end)));
  } else {
    pre.append(document.createTextNode(reply));
  }
  return pre;
}

function spanLegend(cell) {
  if (cell.span) {
    return el("p", { class: "legend" }, el("mark", {}, "highlighted"),
      `: the answer the grader read (${cell.extracted ?? "–"}), found by ${cell.method || "–"}, ${cell.ambiguity || "–"}`);
  }
  if (cell.reason === "extraction_failed") return el("p", { class: "legend" }, "The grader found no answer in this reply.");
  if (cell.verdict === "not graded") return null;
  return el("p", { class: "legend" }, `The grader read ${cell.extracted ?? "–"} (${cell.method || "–"}); its place in the reply could not be located.`);
}

function facts(pairs) {
  const dl = el("dl", { class: "facts" });
  for (const [name, value] of pairs) {
    if (value === null || value === undefined || value === "") continue;
    dl.append(el("dt", {}, name), el("dd", {}, value));
  }
  return dl;
}

function scoresTable(scores) {
  const table = el("table", { class: "scores" },
    el("tr", {}, ["grader", "verdict", "answer read", "method", "ambiguity", ""].map((h) => el("th", {}, h))));
  for (const s of scores) {
    table.append(el("tr", { class: s.decides ? "decides" : null },
      el("td", {}, s.grader),
      el("td", {}, verdictBadge(s.correct ? "right" : "wrong", s.reason)),
      el("td", { class: "mono" }, s.extracted ?? "–"),
      el("td", {}, s.method || "–"), el("td", {}, s.ambiguity || "–"),
      el("td", { class: "hint" }, s.decides ? "the cell's verdict" : "")));
  }
  return table;
}

function box(title, ...children) {
  return el("section", { class: "box" }, el("h2", {}, title), ...children);
}

// --- the list -----------------------------------------------------------------------------------
function optionsFor(name, current) {
  const select = el("select", { id: `f-${name}`, name });
  select.append(el("option", { value: "" }, "any"));
  let values;
  if (name === "disagree" || name === "marked") values = [{ value: "yes" }, { value: "no" }];
  else values = META.facets[name] || [];
  for (const facet of values) {
    const shown = facet.value === "" ? "(none)" : facet.value;
    const label = facet.count === undefined ? shown : `${shown} (${number(facet.count)})`;
    const option = el("option", { value: facet.value }, label);
    if (facet.value === current) option.selected = true;
    select.append(option);
  }
  return select;
}

function filterPanel(params) {
  const panel = el("aside", { class: "filters" }, el("h2", {}, "Filters"),
    el("p", { class: "hint" }, "(counts: the whole run)"));
  for (const name of FILTERS) {
    let control;
    if (name === "seed_id") {
      control = el("input", { id: "f-seed_id", name, list: "seed-list", placeholder: "any seed", value: params.get(name) || "" });
      const list = el("datalist", { id: "seed-list" });
      for (const facet of META.facets.seed_id) list.append(el("option", { value: facet.value }));
      panel.append(el("label", { for: "f-seed_id" }, "seed"), control, list);
    } else {
      control = optionsFor(name, params.get(name) || "");
      panel.append(el("label", { for: `f-${name}` }, LABELS[name] || name), control);
    }
    control.addEventListener("change", () => {
      const next = new URLSearchParams(params);
      if (control.value) next.set(name, control.value); else next.delete(name);
      next.delete("page");
      location.hash = `#/cells?${next}`;
    });
  }
  const sort = el("select", { id: "f-sort" },
    el("option", { value: "seed" }, "seed, variant"),
    el("option", { value: "failed" }, "most failed variants first"));
  sort.value = params.get("sort") || "seed";
  sort.addEventListener("change", () => {
    const next = new URLSearchParams(params);
    next.set("sort", sort.value);
    next.delete("page");
    location.hash = `#/cells?${next}`;
  });
  panel.append(el("label", { for: "f-sort" }, "sort by"), sort,
    el("button", { id: "clear", onclick: () => { location.hash = "#/cells"; } }, "Clear filters"));
  return panel;
}

function rowsTable(rows, extra) {
  const head = ["seed", "variant", "repeat", "model", "strategy", "modality", "verdict", "seed fails",
    "read / truth", "method", "ambiguity", "topic", ""];
  const table = el("table", { class: "cells" }, el("thead", {}, el("tr", {}, head.map((h) => el("th", {}, h)))));
  const body = el("tbody", { id: "rows" });
  for (const r of rows) {
    const flags = [];
    if (r.disagree) flags.push(el("span", { class: "flag disagree", title: "the graders' verdicts differ" }, "graders disagree"));
    if (r.judged) flags.push(el("span", { class: "flag" }, "judge"));
    if (r.marked) flags.push(el("span", { class: "flag marked" }, `marked ${r.marked}`));
    const row = el("tr", { class: "row", "data-id": r.id },
      el("td", {}, cellLink(r.id, r.seed_id)), el("td", {}, r.variant), el("td", {}, r.repeat),
      el("td", {}, r.model), el("td", {}, r.strategy), el("td", {}, r.modality, " ", tagNodes(r)),
      el("td", {}, verdictBadge(r.verdict, r.reason)),
      el("td", { title: "wrong variants of this seed in this arm (model · strategy · modality)" },
        r.graded ? `${r.failed} of ${r.graded}` : "–"),
      el("td", { class: "read mono", title: `read ${r.extracted ?? "nothing"}; truth ${r.truth}` },
        `${r.extracted ?? "–"} / ${r.truth}`),
      el("td", {}, r.method || "–"), el("td", {}, r.ambiguity || "–"), el("td", {}, r.topic),
      el("td", {}, flags));
    row.addEventListener("click", (event) => {
      if (event.target.closest("a")) return;
      location.hash = `#/cell/${r.id}${extra || ""}`;
    });
    body.append(row);
  }
  table.append(body);
  return table;
}

function pager(total, page, go) {
  const pages = Math.max(1, Math.ceil(total / PAGE));
  return el("div", { class: "pager" },
    el("button", { id: "prev", disabled: page <= 0, onclick: () => go(page - 1) }, "← previous"),
    el("span", {}, `page ${number(page + 1)} of ${number(pages)}`),
    el("button", { id: "next", disabled: page + 1 >= pages, onclick: () => go(page + 1) }, "next →"));
}

async function listView(params) {
  lastList = location.hash || "#/cells";
  const page = Number(params.get("page") || 0);
  const query = new URLSearchParams(params);
  query.set("size", PAGE);
  let found = firstPage && !location.hash.includes("?") ? await firstPage : null;
  firstPage = null;
  if (!found) found = await api(`/api/cells?${query}`);
  const go = (p) => { const next = new URLSearchParams(params); next.set("page", p); location.hash = `#/cells?${next}`; };
  const results = el("div", { class: "results" },
    el("div", { class: "count-line" },
      el("span", { id: "count" }, `${number(found.total)} of ${number(META.cells)} cells`),
      el("span", { class: "hint" }, "Click a row to open the cell.")),
    rowsTable(found.rows), pager(found.total, page, go));
  show(el("div", { class: "list-layout" }, filterPanel(params), results));
}

// --- the review queue -----------------------------------------------------------------------------
async function reviewView(params) {
  lastList = location.hash || "#/review";
  const page = Number(params.get("page") || 0);
  const marked = params.get("marked") === "yes";
  const found = await api(`/api/review?page=${page}&size=${PAGE}${marked ? "&marked=yes" : ""}`);
  reviewIds = found.ids;
  const toggle = el("input", { type: "checkbox", id: "include-marked" });
  toggle.checked = marked;
  toggle.addEventListener("change", () => { location.hash = toggle.checked ? "#/review?marked=yes" : "#/review"; });
  const go = (p) => { location.hash = `#/review?page=${p}${marked ? "&marked=yes" : ""}`; };
  show(el("div", {},
    el("h1", {}, "Review queue"),
    el("p", { class: "hint" }, "Verdicts most worth a person's look: graders disagreeing first, then ambiguous readings " +
      "(several options or values, unreadable), then replies where no answer was found. Open one, read the reply, " +
      "and mark the verdict right or wrong; marks go to marks.jsonl beside the run."),
    el("div", { class: "count-line" }, el("span", { id: "count" }, `${number(found.total)} verdicts to review`),
      el("label", {}, toggle, " include those already marked")),
    rowsTable(found.rows, "?review=1"), pager(found.total, page, go)));
}

// --- a cell ---------------------------------------------------------------------------------------
function markBox(cell, inReview) {
  const status = el("span", { id: "mark-status" });
  if (cell.mark) {
    status.append(el("span", { class: "saved" },
      `Marked: the verdict is ${cell.mark.verdict_right ? "right" : "wrong"}` +
      (cell.mark.reading ? ` (the reply ${readingWords(cell.mark.reading)})` : "") + ` — ${cell.mark.time}`));
  }
  if (cell.verdict === "not graded") return box("Mark", el("p", { class: "hint" }, "This cell was not graded: there is no verdict to mark."));
  const note = el("input", { id: "mark-note", placeholder: "a note (optional)", value: cell.mark ? cell.mark.note : "" });
  const send = async (verdictRight, reading) => {
    status.replaceChildren("saving…");
    try {
      const saved = await api("/api/mark", {
        method: "POST", headers: { "Content-Type": "application/json" },
        body: JSON.stringify({ cell: cell.id, verdict_right: verdictRight, reading, note: note.value }),
      });
      status.replaceChildren(el("span", { class: "saved" }, `Saved: the verdict is ${saved.verdict_right ? "right" : "wrong"}`));
      if (inReview) {
        const at = reviewIds.indexOf(cell.id);
        const next = reviewIds.find((id, i) => i > at && id !== cell.id);
        if (next !== undefined) location.hash = `#/cell/${next}?review=1`;
      }
    } catch (error) {
      status.replaceChildren(el("span", { class: "error-box" }, `not saved: ${error.message}`));
    }
  };
  const graded = cell.graded_reading;
  const buttons = el("div", { class: "buttons" },
    el("button", { class: "right", id: "mark-right", onclick: () => send(true, graded) },
      `✓ Verdict right (the reply ${readingWords(graded)})`));
  for (const reading of ["correct", "wrong", "none"]) {
    if (reading === graded) continue;
    buttons.append(el("button", { class: "wrong", id: `mark-wrong-${reading}`, onclick: () => send(false, reading) },
      `✗ Verdict wrong: the reply ${readingWords(reading)}`));
  }
  return el("section", { class: "box mark-box" }, el("h2", {}, "Mark this verdict"), buttons, note, el("p", {}, status),
    inReview ? el("p", { class: "hint" }, "In the review queue: marking opens the next verdict to review.") : null);
}

function readingWords(reading) {
  return { correct: "is correct", wrong: "commits to a wrong answer", none: "commits to no answer" }[reading] || "";
}

function questionBox(cell) {
  const parts = [];
  for (const digest of cell.images) parts.push(picture(digest));
  parts.push(el("pre", { id: "question" }, cell.shown || cell.question || "(the question was not recorded)"));
  if (cell.choices.length) parts.push(el("p", {}, "Options as shown: ", cell.choices.join(" | ")));
  parts.push(facts([["truth", el("span", { class: "truth", id: "truth" }, cell.truth)], ["answer type", cell.answer_type],
    ["topic", cell.topic], ["level", cell.level]]));
  if (cell.solution) parts.push(el("details", {}, el("summary", {}, "reference solution"), el("pre", {}, cell.solution)));
  return box(`Question (${cell.modality})`, ...parts);
}

function representationsBox(cell) {
  if (!cell.representations.length) return null;
  return box("The same variant in the run's other representations",
    cell.representations.map((rep) => el("div", { class: "rep" },
      el("h3", {}, rep.modality, " ", tagNodes(rep), " · ", cellLink(rep.cell, "open that cell")),
      rep.images.map(picture), el("pre", {}, rep.question))));
}

// The pictures of this variant under each render profile, side by side, each as its cell's model
// was sent them, with what that model answered.
function profilesBox(cell) {
  if (!cell.profiles.length) return null;
  const tags = variantTags({ perturbation: cell.perturbation });
  return box(`The same variant under each render profile (${cell.profiles.length})`,
    el("p", { class: "hint" }, `${cell.model} · ${cell.strategy} · ${cell.modality}`,
      tags.length ? ` · ${tags.join(" · ")}` : "", ": the pictures the model was sent, one cell per profile."),
    el("div", { class: "profiles-grid", id: "profiles" },
      cell.profiles.map((p) => el("div", { class: p.cell === cell.id ? "profile own" : "profile", "data-render": p.render },
        el("h3", {}, el("span", { class: "profile-name" }, p.render), " ", verdictBadge(p.verdict, p.reason),
          " ", el("span", { class: "mono" }, `read ${p.extracted ?? "–"}`), " · ",
          p.cell === cell.id ? el("span", { class: "hint" }, "this cell") : cellLink(p.cell, "open")),
        p.images.length ? p.images.map(picture) : el("div", { class: "placeholder" }, "no picture was sent")))));
}

function verdictBox(cell) {
  const parts = [facts([
    ["verdict", verdictBadge(cell.verdict, cell.reason)], ["truth", cell.truth],
    ["answer read", el("span", { class: "mono", id: "extracted" }, cell.extracted ?? "–")],
    ["method", cell.method], ["ambiguity", cell.ambiguity], ["reason", cell.reason], ["decided by", cell.grader],
    ["error", cell.error], ["this seed in this arm", cell.graded ? `${cell.failed} of ${cell.graded} variants wrong` : null],
  ])];
  if (cell.scores.length) parts.push(el("h3", {}, "Every grader's verdict"), scoresTable(cell.scores));
  if (cell.judge) {
    parts.push(el("div", { id: "judge", class: "rep" }, el("h3", {}, "The judge's reading"),
      facts([["verdict", verdictBadge(cell.judge.correct ? "right" : "wrong", cell.judge.reason)],
        ["answer read", cell.judge.extracted ?? "–"], ...cell.judge.detail])));
  }
  return box("Verdict", ...parts);
}

function transcriptBox(cell) {
  if (!cell.calls.length) return box("Transcript", el("p", { class: "hint" }, "No calls were recorded."));
  return box(`Transcript (${cell.calls.length} call${cell.calls.length === 1 ? "" : "s"})`,
    cell.calls.map((call, n) => el("div", { class: "call" },
      el("h3", {}, `${n + 1}. ${call.step}`, call.sample ? ` · sample ${call.sample}` : "", ` · ${call.model}`,
        el("span", { class: "hint" }, ` · ${call.prompt_tokens} + ${call.completion_tokens} tokens${call.cache_hit ? " · cached" : ""}`)),
      call.messages.map((m) => el("div", { class: "message" }, el("div", { class: "role" }, m.role),
        m.parts.map((p) => (p.kind === "image" ? picture(p.text) : el("pre", {}, p.text))))),
      el("div", { class: "message" }, el("div", { class: "role" }, "reply"),
        call.response === null ? el("p", { class: "hint" }, "the call failed: no reply") : el("pre", { class: "reply" }, call.response)))));
}

function compareSelect(cell) {
  if (!cell.arms.length) return null;
  const select = el("select", { id: "compare-with" }, el("option", { value: "" }, "compare with another arm…"));
  for (const arm of cell.arms) {
    select.append(el("option", { value: arm.cell }, `${armText(arm)} (${arm.verdict})`));
  }
  select.addEventListener("change", () => { if (select.value) location.hash = `#/compare/${cell.id}/${select.value}`; });
  return select;
}

async function cellView(id, params) {
  const cell = await api(`/api/cell/${id}`);
  const inReview = params.get("review") === "1";
  show(el("div", {},
    el("div", { class: "crumbs" },
      el("a", { href: inReview ? "#/review" : lastList }, inReview ? "← review queue" : "← cells"),
      el("span", {}, "seed page: ", seedLink(cell.seed_id)), compareSelect(cell)),
    el("div", { class: "cell-title" },
      el("h1", {}, `${cell.seed_id} · variant ${cell.variant}`, cell.repeat ? ` · repeat ${cell.repeat}` : ""),
      el("span", { class: "mono", id: "arm" }, armText(cell)),
      verdictBadge(cell.verdict, cell.reason)),
    el("div", { class: "cell-grid" },
      el("div", {}, verdictBox(cell), box("Final reply", replyNode(cell.reply, cell.span, cell.id), spanLegend(cell)),
        markBox(cell, inReview)),
      el("div", {}, questionBox(cell), representationsBox(cell))),
    profilesBox(cell),
    transcriptBox(cell),
    cell.notes ? box("Notes", el("pre", {}, cell.notes)) : null));
}

// --- two arms side by side ------------------------------------------------------------------------
async function compareView(a, b) {
  const [left, right] = await Promise.all([api(`/api/cell/${a}`), api(`/api/cell/${b}`)]);
  const side = (cell) => el("div", {},
    el("div", { class: "cell-title" }, el("h1", {}, cellLink(cell.id, armText(cell))),
      verdictBadge(cell.verdict, cell.reason)),
    box("Verdict", facts([["truth", cell.truth], ["answer read", cell.extracted ?? "–"], ["method", cell.method],
      ["ambiguity", cell.ambiguity]]), cell.scores.length > 1 ? scoresTable(cell.scores) : null),
    box("Final reply", replyNode(cell.reply, cell.span), spanLegend(cell)),
    box(`Question (${cell.modality})`, cell.images.map(picture), el("pre", {}, cell.shown || cell.question)));
  const select = compareSelect(left);
  if (select) select.value = String(right.id);
  show(el("div", {},
    el("div", { class: "crumbs" }, el("a", { href: `#/cell/${left.id}` }, "← back to the cell"),
      el("span", {}, "seed page: ", seedLink(left.seed_id)), select),
    el("h1", {}, `${left.seed_id} · variant ${left.variant}: two arms side by side`),
    el("div", { class: "compare-grid", id: "compare" }, side(left), side(right))));
}

// --- a seed ---------------------------------------------------------------------------------------
async function seedView(seed) {
  const found = await api(`/api/seed?seed_id=${encodeURIComponent(seed)}`);
  const table = el("table", { class: "grid", id: "seed-grid" },
    el("tr", {}, el("th", { class: "arm" }, "arm (model · strategy · modality, render, perturbation)"),
      found.variants.map((v) => el("th", {}, `v${v}`)), el("th", {}, "right"), el("th", {}, "worst case")));
  for (const arm of found.arms) {
    const label = `${armText(arm)}${arm.repeat ? ` · repeat ${arm.repeat}` : ""}`;
    table.append(el("tr", {}, el("td", { class: "arm" }, label),
      arm.squares.map((sq) => el("td", {}, sq.cell === null ? "–" : el("a", {
        class: `sq ${{ right: "v-right", wrong: sq.reason === "extraction_failed" ? "v-none" : "v-wrong" }[sq.verdict] || "v-skip"}`,
        href: `#/cell/${sq.cell}`, title: `variant ${sq.variant}: ${sq.verdict} (${sq.reason})`,
      }, { right: "✓", wrong: "✗" }[sq.verdict] || "–"))),
      el("td", {}, `${arm.right} of ${arm.right + arm.wrong}`),
      el("td", {}, arm.wrong === 0 && arm.right > 0 ? el("span", { class: "badge v-right" }, "solved") : el("span", { class: "badge v-wrong" }, "fails"))));
  }
  const worst = found.worst_variant === null ? "No variant was answered wrong."
    : `Variant ${found.worst_variant} is the hardest: wrong in ${found.worst_failures} of ${found.arms.length} arms.`;
  show(el("div", {},
    el("div", { class: "crumbs" }, el("a", { href: lastList }, "← cells"),
      el("a", { href: `#/cells?seed_id=${encodeURIComponent(found.seed_id)}` }, "this seed's cells in the list")),
    el("h1", {}, `Seed ${found.seed_id}`, found.topic ? ` (${found.topic})` : ""),
    el("p", { class: "worst", id: "worst" }, `Worst case: ${found.solved} of ${found.arms.length} arms get every variant right. ${worst}`),
    table,
    el("p", { class: "hint" }, "✓ right · ✗ wrong (yellow: no answer found) · – not graded or not run. Click a square to open the cell.")));
}

// --- routing --------------------------------------------------------------------------------------
async function route() {
  routeNumber += 1;
  const hash = location.hash || "#/cells";
  const [path, query] = hash.slice(1).split("?");
  const params = new URLSearchParams(query || "");
  const parts = path.split("/").filter(Boolean);
  document.getElementById("nav-cells").classList.toggle("active", parts[0] !== "review");
  document.getElementById("nav-review").classList.toggle("active", parts[0] === "review");
  try {
    if (parts[0] === "cell" && /^\d+$/.test(parts[1] || "")) await cellView(Number(parts[1]), params);
    else if (parts[0] === "compare" && parts.length === 3) await compareView(Number(parts[1]), Number(parts[2]));
    else if (parts[0] === "seed" && parts[1] !== undefined) await seedView(decodeURIComponent(parts.slice(1).join("/")));
    else if (parts[0] === "review") await reviewView(params);
    else await listView(params);
    window.scrollTo(0, 0);
  } catch (error) {
    fail(error.message);
  }
}

async function start() {
  // the first page of rows is asked for with the run's facts, not after them
  const route0 = location.hash || "#/cells";
  if (route0 === "#/cells" || route0 === "#/") firstPage = api(`/api/cells?size=${PAGE}`).catch(() => null);
  try {
    META = await api("/api/meta");
  } catch (error) {
    fail(`The run could not be read: ${error.message}`);
    return;
  }
  document.getElementById("run-name").textContent = META.run;
  document.getElementById("status").textContent =
    `${number(META.cells)} cells · ${number(META.marks)} marked`;
  const problems = [];
  if (META.damaged) problems.push(`${META.damaged} damaged line(s) of results.jsonl skipped (the first: ${META.first_problem}).`);
  if (META.duplicates) problems.push(`${META.duplicates} duplicate row(s) ignored.`);
  if (META.marks_damaged) problems.push(`${META.marks_damaged} damaged line(s) of marks.jsonl skipped.`);
  if (META.note) problems.push(META.note);
  if (problems.length) {
    const bar = document.getElementById("problems");
    bar.textContent = problems.join(" ");
    bar.hidden = false;
  }
  window.addEventListener("hashchange", route);
  await route();
}

start();
