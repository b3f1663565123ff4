// The Miles operator console: plain JS, no build step, nothing fetched from elsewhere.
// Text from the cell is always set with textContent (never parsed as HTML).
"use strict";

const params = new URLSearchParams(window.location.search);
const TOKEN = params.get("token") || sessionStorage.getItem("miles-token") || "";
if (params.has("token")) {
  // keep the token for this tab, out of the address bar and the history
  sessionStorage.setItem("miles-token", TOKEN);
  window.history.replaceState(null, "", window.location.pathname);
}

const $ = (id) => document.getElementById(id);

function el(tag, attrs, text) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) node.setAttribute(k, v);
  if (text !== undefined) node.textContent = text;
  return node;
}

function say(text, isError) {
  const box = $("message");
  box.textContent = text;
  box.className = isError ? "error" : "";
  box.dataset.kind = isError ? "error" : "info";
}

async function post(path, body, withToken) {
  const headers = {};
  if (withToken) headers["Authorization"] = "Bearer " + TOKEN;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, {
    method: "POST",
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    keepalive: true,
  });
  let data = {};
  try { data = await response.json(); } catch (_) { /* an empty or non-JSON answer */ }
  return { status: response.status, ok: response.ok, data };
}

// -- e-stop: always enabled, no token ------------------------------------------------
$("estop").addEventListener("click", async () => {
  say("E-STOP sent");
  try {
    const r = await post("/api/estop");
    say(r.data.latched ? "E-STOP latched: " + (r.data.message || "")
                       : "E-STOP not confirmed: " + (r.data.message || r.status), !r.data.latched);
  } catch (err) {
    say("E-STOP request failed: " + err, true);
  }
});

$("reset").addEventListener("click", async () => {
  try {
    const r = await post("/api/reset", undefined, true);
    if (r.ok) say("Reset: " + (r.data.message || "done"));
    else say("Reset refused: " + (r.data.error || r.data.message || r.status), true);
  } catch (err) {
    say("Reset request failed: " + err, true);
  }
});

$("goal-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const text = $("goal-input").value;
  try {
    const r = await post("/api/goal", { goal: text }, true);
    if (r.ok) { say("Goal sent: " + r.data.goal); $("goal-input").value = ""; }
    else say("Goal refused: " + (r.data.error || r.status), true);
  } catch (err) {
    say("Goal request failed: " + err, true);
  }
});

// -- the cell's state --------------------------------------------------------------------
function seconds(value) {
  return typeof value === "number" ? value.toFixed(1) + " s" : "";
}

function clock(stamp) {
  return typeof stamp === "number" ? new Date(stamp * 1000).toLocaleTimeString() : "";
}

function render(snapshot) {
  const safety = $("safety-state");
  const arms = Object.entries(snapshot.safety || {});
  safety.dataset.estop = arms.length ? String(snapshot.estop) : "unknown";
  safety.textContent = arms.length
    ? "safety: " + arms.map(([arm, s]) => (arm ? arm + " " : "") + s.mode +
        (s.estop ? " (E-STOP" + (s.reason ? ": " + s.reason : "") + ")" : "")).join(", ")
    : "safety: no supervisor heard yet";

  const goal = snapshot.goal || {};
  const status = $("goal-status");
  status.dataset.outcome = goal.outcome || "";
  status.textContent = goal.goal
    ? `"${goal.goal}": ${goal.outcome}` + (goal.reason ? " (" + goal.reason + ")" : "")
    : goal.outcome ? "manager " + goal.outcome : "no manager heard yet";

  const plan = snapshot.plan || {};
  const refusal = $("plan-refusal");
  refusal.hidden = !plan.refused;
  refusal.textContent = plan.refused ? "Refused: " + plan.reason : "";
  const list = $("plan");
  list.replaceChildren();
  (plan.steps || []).forEach((step, index) => {
    const item = el("li", { "data-testid": "plan-step", "data-index": String(index),
                            "data-state": step.state });
    item.append(el("span", { class: "step-state", "data-testid": "step-state" }, step.state));
    const args = Object.entries(step.params || {}).map(([k, v]) => k + "=" + v).join(", ");
    item.append(document.createTextNode(
      (step.arm ? "[" + step.arm + "] " : "") + step.skill + (args ? "(" + args + ")" : "")));
    const time = [clock(step.started), seconds(step.duration_s)].filter(Boolean).join(", ");
    item.append(el("span", { class: "step-time", "data-testid": "step-time" },
                   time ? "  " + time : ""));
    if (step.reason) item.append(el("div", { class: "step-reason" }, step.reason));
    list.append(item);
  });
}

let retry = 500;
function connect() {
  const scheme = window.location.protocol === "https:" ? "wss://" : "ws://";
  const socket = new WebSocket(scheme + window.location.host + "/ws?token=" +
                               encodeURIComponent(TOKEN));
  socket.onopen = () => { $("connection").textContent = "live"; retry = 500; };
  socket.onmessage = (event) => render(JSON.parse(event.data));
  socket.onclose = () => {
    $("connection").textContent = "disconnected; retrying";
    setTimeout(connect, retry);
    retry = Math.min(retry * 2, 10000);
  };
}

// -- settings, cards, metrics ------------------------------------------------------------
function renderCards(cards) {
  const box = $("cards");
  box.replaceChildren();
  for (const card of cards) {
    const node = el("div", { class: "card", "data-testid": "card", "data-name": card.name });
    node.append(el("h3", {}, card.name));
    if (card.error) node.append(el("p", {}, "not loaded: " + card.error));
    if (card.description) node.append(el("p", {}, card.description));
    const rows = el("table");
    for (const [kind, e] of Object.entries(card.evidence || {})) {
      const row = el("tr", { "data-testid": "evidence" });
      const rate = typeof e.success_rate === "number"
        ? (100 * e.success_rate).toFixed(1) + "%" : "";
      const ci = Array.isArray(e.ci95)
        ? "95% CI " + e.ci95.map((x) => (100 * x).toFixed(1)).join("-") + "%" : "";
      row.append(el("td", {}, kind), el("td", {}, rate),
                 el("td", {}, (e.episodes || "") + " episodes"), el("td", {}, ci));
      rows.append(row);
    }
    node.append(rows);
    box.append(node);
  }
}

async function refreshMetrics() {
  try {
    const response = await fetch("/metrics");
    if (!response.ok) return;
    const lines = (await response.text()).split("\n")
      .filter((line) => line.startsWith("miles_")).slice(0, 40);
    const table = $("metrics");
    table.replaceChildren();
    for (const line of lines) {
      const cut = line.lastIndexOf(" ");
      const row = el("tr");
      row.append(el("td", {}, line.slice(0, cut)), el("td", {}, line.slice(cut + 1)));
      table.append(row);
    }
  } catch (_) { /* the next refresh tries again */ }
}

async function start() {
  connect();
  try {
    const info = await (await fetch("/api/info")).json();
    $("goal-input").maxLength = info.limits.goal_chars;
    if (info.view_url) { $("view").src = info.view_url; $("view-box").hidden = false; }
    if (info.metrics) {
      $("metrics-box").hidden = false;
      refreshMetrics();
      setInterval(refreshMetrics, 5000);
    }
    renderCards(await (await fetch("/api/cards")).json());
  } catch (err) {
    say("Could not load the console's settings: " + err, true);
  }
}

start();
