// sportsensord dashboard: the live board. One tile per paired sensor, updated from the event
// stream (GET /v1/events, Server-Sent Events; the browser reconnects on its own and the board
// reloads its state each time it does).
import { api, fixed, role } from "./common.js";

const STALE_AFTER_MS = 2000;
const board = document.getElementById("board");
const template = document.getElementById("tile-template");
const streamState = document.getElementById("stream-state");
const boardError = document.getElementById("board-error");
/** Tiles by sensor label (the alias, else the address): the label the event stream uses. */
const tiles = new Map();
/** Sessions this page saw end: a counters item still on its way must not bring one back. */
const endedSessions = new Set();
/**
 * The quality flags worth showing on a live event, per event type (the daemon's rule: a flag that
 * keeps the event out of a best, or for steps one that means steps may have been missed; never
 * `clipped` on a hit). Docs/DASHBOARD.md.
 */
const trustFlags = JSON.parse(board.dataset.trustFlags || "{}");

function label(sensor) {
  return sensor.alias ?? sensor.address;
}

function showError(error) {
  boardError.textContent = String(error.message ?? error);
  boardError.hidden = false;
}

function field(tile, name) {
  return tile.element.querySelector(`[data-field="${name}"]`);
}

function setField(tile, name, text) {
  const element = field(tile, name);
  if (element && element.textContent !== text) element.textContent = text;
}

function tileFor(sensor) {
  const key = label(sensor);
  let tile = tiles.get(key);
  if (!tile) {
    const element = template.content.firstElementChild.cloneNode(true);
    element.dataset.sensor = key;
    element.id = `tile-${key.replace(/[^A-Za-z0-9_-]/g, "_")}`;
    tile = { key, element, sensor, session: null, counters: null, lastDataAt: 0, lastReceived: -1,
      bestHeight: null, lastHeight: null, flashTimer: null };
    tiles.set(key, tile);
    board.append(element);
    document.getElementById("board-empty")?.remove();
    element.querySelector('[data-action="start"]')?.addEventListener("click", () => start(tile));
    element.querySelector('[data-action="stop"]')?.addEventListener("click", () => stop(tile));
  }
  tile.sensor = { ...tile.sensor, ...sensor };
  return tile;
}

function render(tile) {
  const { element, sensor, session, counters } = tile;
  const profile = counters?.profile ?? session?.profile ?? element.querySelector('[data-control="profile"]')?.value;
  setField(tile, "athlete", counters?.athlete ?? session?.athlete ?? sensor.athlete ?? label(sensor));
  setField(tile, "sensor", label(sensor));
  setField(tile, "profile", session ? profile : "no session");
  const link = counters?.link_state ?? sensor.link_state ?? "unknown";
  setField(tile, "link", link);
  field(tile, "link").dataset.state = link;
  element.classList.toggle("live", Boolean(session));
  for (const row of element.querySelectorAll("[data-profiles]")) {
    row.hidden = !row.dataset.profiles.split(" ").includes(profile);
  }
  if (session) {
    setField(tile, "count", String(counters?.count ?? 0));
    setField(tile, "countLabel", { "table-tennis": "hits", jump: "jumps", throw: "throws", steps: "steps" }[profile] ?? "events");
    setField(tile, "peak", `${fixed(counters?.last_peak_g, 1)} / ${fixed(counters?.max_peak_g, 1)} g`);
    // Strokes per side once a stroke of the session has one (the summary's counts are null until
    // then, and stay null when the detector cannot tell sides).
    const summary = counters?.summary;
    const sided = typeof summary?.forehand_hits === "number";
    element.querySelector('[data-optional="sides"]').hidden = !sided;
    if (sided) {
      setField(tile, "sides", `${summary.forehand_hits} / ${summary.backhand_hits}`);
      field(tile, "sides").title =
        `hardest forehand ${fixed(summary.forehand_max_intensity_g, 1)} g, backhand ${fixed(summary.backhand_max_intensity_g, 1)} g`;
    }
    setField(tile, "height", `${fixed(counters?.best_height_m ?? tile.bestHeight, 2)} / ${fixed(tile.lastHeight, 2)} m`);
    setField(tile, "cadence", `${fixed(counters?.cadence, 0)} /min`);
    setField(tile, "rate", fixed(counters?.rate_per_minute, 1));
    const received = counters?.received_samples;
    const expected = counters?.expected_samples;
    setField(tile, "completeness", typeof received === "number" && expected > 0
      ? `${(100 * received / expected).toFixed(1)} %` : "–");
    element.querySelector('[data-field="completeness"]').title =
      typeof received === "number" ? `${received} of ${expected} samples received` : "";
    const load = counters?.summary?.playerload ?? counters?.player_load;
    element.querySelector('[data-optional="load"]').hidden = typeof load !== "number";
    if (typeof load === "number") setField(tile, "load", fixed(load, 1));
    // Targets (when the daemon sets them): the first one's progress in %.
    const percent = counters?.target_pct;
    element.querySelector('[data-optional="target"]').hidden = typeof percent !== "number";
    if (typeof percent === "number") {
      const share = Math.max(0, Math.min(100, percent));
      field(tile, "targetFill").style.width = `${share.toFixed(0)}%`;
      setField(tile, "target", `${Math.round(percent)} % of ${counters.target_metric ?? "target"} ${fixed(counters.target, 0)}`);
    }
    const linkElement = field(tile, "sessionLink");
    linkElement.href = `/sessions/${session.id}`;
    linkElement.hidden = false;
  } else {
    element.querySelector('[data-optional="sides"]').hidden = true;
    setField(tile, "count", "–");
    setField(tile, "countLabel", "no session");
    field(tile, "sessionLink").hidden = true;
  }
  const startButton = element.querySelector('[data-action="start"]');
  const stopButton = element.querySelector('[data-action="stop"]');
  if (startButton) startButton.hidden = Boolean(session);
  if (stopButton) stopButton.hidden = !session;
  // The start form is for the next session: while one runs, the tile's header shows its athlete
  // and profile, so the form is not there to say something else.
  for (const control of element.querySelectorAll("[data-control]")) control.disabled = Boolean(session);
  for (const starter of element.querySelectorAll("[data-starts]")) starter.hidden = Boolean(session);
  // The store cannot take the session's rows (disk full, I/O error): what is stored may miss
  // samples, so the tile says so while it lasts (`store_degraded`, Docs/OPERATIONS.md "A full disk").
  const degraded = Boolean(session) && (counters?.store_degraded ?? session?.store_degraded) === true;
  element.classList.toggle("degraded", degraded);
  field(tile, "store").hidden = !degraded;
  updateStale(tile, Date.now());
}

/** A tile is stale when its live session has had no new samples for 2 s, or its link is down. */
function updateStale(tile, now) {
  const link = tile.counters?.link_state ?? tile.sensor.link_state;
  let stale = false;
  let note = "";
  if (tile.session) {
    const age = now - tile.lastDataAt;
    if (age > STALE_AFTER_MS) {
      stale = true;
      note = `No data for ${Math.floor(age / 1000)} s`;
    }
  }
  if (link && link !== "connected") {
    stale = true;
    note = note ? `${note} · sensor ${link}` : `Sensor ${link}`;
  }
  tile.element.classList.toggle("stale", stale);
  tile.element.dataset.stale = String(stale);
  const noteElement = field(tile, "stale");
  noteElement.hidden = !stale;
  if (noteElement.textContent !== note) noteElement.textContent = note;
}

function flash(tile, text) {
  const element = field(tile, "flash");
  element.textContent = text;
  element.hidden = false;
  clearTimeout(tile.flashTimer);
  tile.flashTimer = setTimeout(() => { element.hidden = true; }, 6000);
}

/**
 * The quality flags of an event worth showing (`quality` in the event record: an array of flag
 * names, left out when the event is clean; Docs/DETECTION.md, "Quality flags"), per `trustFlags`.
 */
function shownFlags(event) {
  const shown = trustFlags[event?.type] ?? [];
  const quality = event?.quality;
  return Array.isArray(quality) ? quality.filter((flag) => shown.includes(flag)) : [];
}

function tileByLabel(key) {
  return tiles.get(key) ?? [...tiles.values()].find((tile) => tile.sensor.address === key);
}

async function start(tile) {
  const profile = tile.element.querySelector('[data-control="profile"]').value;
  const athlete = tile.element.querySelector('[data-control="athlete"]').value.trim();
  const button = tile.element.querySelector('[data-action="start"]');
  button.disabled = true;
  try {
    const session = await api("POST", "/v1/sessions", { sensor: tile.sensor.address, profile, athlete: athlete || undefined });
    beginSession(tile, session);
  } catch (error) {
    showError(error);
  } finally {
    button.disabled = false;
  }
}

async function stop(tile) {
  if (!tile.session) return;
  const button = tile.element.querySelector('[data-action="stop"]');
  button.disabled = true;
  try {
    await api("POST", `/v1/sessions/${tile.session.id}/stop`);
    endSession(tile);
  } catch (error) {
    showError(error);
  } finally {
    button.disabled = false;
  }
}

function beginSession(tile, session) {
  if (tile.session?.id !== session.id) {
    tile.counters = null;
    tile.bestHeight = null;
    tile.lastHeight = null;
    tile.lastReceived = -1;
    tile.lastDataAt = Date.now();
    field(tile, "trust").hidden = true;
  }
  tile.session = session;
  render(tile);
}

function endSession(tile) {
  if (tile.session) {
    endedSessions.add(tile.session.id);
    // The next session most likely is the same athlete's, with the same profile.
    const profile = tile.element.querySelector('[data-control="profile"]');
    const athlete = tile.element.querySelector('[data-control="athlete"]');
    if (profile && tile.session.profile) profile.value = tile.session.profile;
    if (athlete) athlete.value = tile.session.athlete ?? "";
  }
  tile.session = null;
  tile.counters = null;
  render(tile);
}

/** Reloads sensors and live sessions: at start and after every reconnect of the stream. */
async function reload() {
  const [sensors, sessions] = await Promise.all([api("GET", "/v1/sensors"), api("GET", "/v1/sessions?live=true")]);
  const paired = new Set(sensors.map(label));
  for (const [key, tile] of tiles) {
    if (!paired.has(key)) {
      tile.element.remove();
      tiles.delete(key);
    }
  }
  for (const sensor of sensors) {
    const tile = tileFor(sensor);
    const session = sessions.find((candidate) => candidate.sensor === sensor.address);
    if (session) beginSession(tile, session); else endSession(tile);
  }
}

function connect() {
  const events = new EventSource("/v1/events");
  events.addEventListener("open", () => {
    streamState.dataset.state = "live";
    streamState.textContent = "live";
    reload().catch(showError);
  });
  events.addEventListener("error", () => {
    streamState.dataset.state = "reconnecting";
    streamState.textContent = "reconnecting…";
  });
  events.addEventListener("counters", (message) => {
    const counters = JSON.parse(message.data);
    const tile = tileByLabel(counters.sensor);
    if (!tile || endedSessions.has(counters.session_id)) return;
    if (!tile.session || tile.session.id !== counters.session_id) {
      beginSession(tile, { id: counters.session_id, profile: counters.profile, athlete: counters.athlete });
    }
    const received = counters.received_samples;
    if (typeof received !== "number" || received > tile.lastReceived) tile.lastDataAt = Date.now();
    if (typeof received === "number") tile.lastReceived = received;
    tile.counters = counters;
    render(tile);
  });
  events.addEventListener("detection", (message) => {
    const detection = JSON.parse(message.data);
    const tile = tileByLabel(detection.sensor);
    if (!tile) return;
    tile.lastDataAt = Date.now();
    const height = detection.event?.height_m;
    if (typeof height === "number") {
      tile.lastHeight = height;
      tile.bestHeight = Math.max(tile.bestHeight ?? 0, height);
    }
    const flags = shownFlags(detection.event);
    const trust = field(tile, "trust");
    trust.textContent = `Last event: ${flags.join(", ").replaceAll("_", " ")}`;
    // The line keeps its place when empty, so the Stop button below it never moves under a click.
    trust.classList.toggle("quiet", flags.length === 0);
    render(tile);
  });
  events.addEventListener("link", (message) => {
    const link = JSON.parse(message.data);
    const tile = tileByLabel(link.sensor) ?? tileByLabel(link.address);
    if (!tile) return;
    tile.sensor.link_state = link.state;
    if (tile.counters) tile.counters.link_state = link.state;
    render(tile);
  });
  events.addEventListener("session", (message) => {
    const session = JSON.parse(message.data);
    const tile = tileByLabel(session.alias ?? session.sensor) ?? tileByLabel(session.sensor);
    if (!tile) { reload().catch(showError); return; }
    if (session.is_live) beginSession(tile, session); else if (tile.session?.id === session.id) endSession(tile);
  });
  events.addEventListener("record", (message) => {
    const record = JSON.parse(message.data);
    const tile = tileByLabel(record.sensor);
    if (tile) flash(tile, `New personal best: ${record.metric ?? ""} ${fixed(record.value, 2)}!`);
  });
  events.addEventListener("target", (message) => {
    const target = JSON.parse(message.data);
    const tile = tileByLabel(target.sensor);
    if (tile) flash(tile, `Target reached: ${target.metric ?? ""} ${fixed(target.target, 0)}!`);
  });
}

function setUpPairing() {
  const open = document.getElementById("pair-open");
  if (!open || role !== "coach") return;
  const panel = document.getElementById("pair-panel");
  const list = document.getElementById("scan-list");
  document.getElementById("pair-close").addEventListener("click", () => { panel.hidden = true; });
  open.addEventListener("click", async () => {
    panel.hidden = false;
    list.replaceChildren();
    open.disabled = true;
    try {
      const found = await api("POST", "/v1/scan?seconds=3");
      const paired = new Set([...tiles.values()].map((tile) => tile.sensor.address));
      for (const discovery of found.filter((item) => !paired.has(item.address))) {
        const item = document.createElement("li");
        const name = document.createElement("span");
        name.textContent = `${discovery.name ?? "unnamed"} · ${discovery.address}${discovery.rssi != null ? ` · ${discovery.rssi} dBm` : ""}`;
        const button = document.createElement("button");
        button.type = "button";
        button.textContent = "Pair";
        button.addEventListener("click", async () => {
          button.disabled = true;
          try {
            const sensor = await api("POST", "/v1/sensors", {
              address: discovery.address, address_type: discovery.address_type, alias: discovery.name ?? undefined,
            });
            tileFor(sensor);
            render(tiles.get(label(sensor)));
            item.remove();
          } catch (error) {
            showError(error);
            button.disabled = false;
          }
        });
        item.append(name, button);
        list.append(item);
      }
      if (!list.children.length) list.textContent = "No unpaired sensors in range.";
    } catch (error) {
      showError(error);
    } finally {
      open.disabled = false;
    }
  });
}

setInterval(() => {
  const now = Date.now();
  for (const tile of tiles.values()) updateStale(tile, now);
}, 500);
setUpPairing();
reload().catch(showError).finally(connect);
