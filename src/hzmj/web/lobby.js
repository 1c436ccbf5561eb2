// The lobby (/): create a room with every RULES §3 option, list open rooms.

import { leaderboardElement } from "./account.js";
import { Digits, api, forgetSeat, mySeats, saveName, saveSeat, savedName } from "./api.js";
import { optionError, optionLabel, rulesSummary, t, valueLabel } from "./i18n.js";
import { h, replayHref, roomTitle, ruleLink, rulesHref } from "./render.js";

// RULES §3: every option, its choices, its default and the rule book paragraph it changes.
const OPTIONS = [
  ["players", "select", [2, 3, 4], 4, "2.1"],
  ["match_mode", "select", ["hands", "points"], "hands", "12"],
  ["hands", "select", [8, 16], 8, "12.1"],
  ["start_points", "select", [40, 50, 60], 50, "12.2"],
  ["base_score", "number", null, 1, "10.2"],
  ["caishen_mode", "select", ["flip", "white"], "flip", "4.5"],
  ["dealer_start_level", "select", [1, 2, 3], 1, "11"],
  ["discard_win", "select", [false, true], false, "8.4"],
  ["cap", "select", [null, 64, 128, 256], null, "10.2"],
  ["drop_bamboo", "checkbox", null, false, "1.1"],
  ["three_tan_contract", "checkbox", null, true, "10.4"],
  ["pong_counts_as_tan", "checkbox", null, true, "6.5"],
  ["must_baotou_with_caishen", "checkbox", null, false, "7.5"],
  ["claim_seconds", "number", null, 3, "6.3"],
  ["turn_seconds", "number", null, 15, "8.7"],
];

function field([key, kind, choices, def, section]) {
  let input;
  if (kind === "select") {
    input = h("select", { name: key, id: `opt-${key}` }, choices.map((c) => h("option", {
      value: JSON.stringify(c), selected: c === def ? true : null,
    }, valueLabel(key, c))));
  } else if (kind === "checkbox") {
    input = h("input", { type: "checkbox", name: key, id: `opt-${key}`, checked: def ? true : null });
  } else {
    input = h("input", { type: "number", name: key, id: `opt-${key}`, value: def, min: 1, step: 1 });
  }
  return h(`div.field.field-${kind}`, { dataset: { option: key } },
    h("label", { for: `opt-${key}` }, optionLabel(key)), input, ruleLink(section),
    h("span.field-error", { role: "alert" }));
}

function readRules(form) {
  const rules = {};
  for (const [key, kind] of OPTIONS) {
    const input = form.elements[key];
    if (kind === "checkbox") rules[key] = input.checked;
    else if (kind === "number") rules[key] = Number(input.value);
    else rules[key] = JSON.parse(input.value);
  }
  return rules;
}

/** Show which fields apply to the chosen match mode. */
function syncFields(form) {
  const mode = JSON.parse(form.elements.match_mode.value);
  form.querySelector('[data-option="hands"]').hidden = mode !== "hands";
  form.querySelector('[data-option="start_points"]').hidden = mode !== "points";
  // RULES §3: 缺一门 only with 2 players
  const two = JSON.parse(form.elements.players.value) === 2;
  const bamboo = form.elements.drop_bamboo;
  bamboo.disabled = !two;
  if (!two) bamboo.checked = false;
}

/** Forget every error shown: the user changed something or submits again. */
function clearErrors(form) {
  form.querySelectorAll(".field-error, .form-error").forEach((n) => { n.textContent = ""; });
}

async function createRoom(form) {
  clearErrors(form);
  const general = form.querySelector(".form-error");
  const name = form.elements.player_name.value.trim();
  if (!name) {
    form.querySelector(".name-error").textContent = t("your_name");
    return;
  }
  saveName(name);
  try {
    const seed = form.elements.seed.value.trim();
    if (seed !== "" && !/^[0-9]{1,19}$/.test(seed)) {
      const box = form.querySelector('[data-option="seed"] .field-error');
      box.textContent = t("seed_invalid");
      box.closest("details").open = true;
      return;
    }
    const { room_id: roomId } = await api("POST", "/api/rooms", {
      rules: readRules(form), name: form.elements.room_name.value.trim(),
      private: form.elements.private.checked,
      seed: seed === "" ? null : new Digits(seed), // exact: a Number rounds above 2^53
    });
    const seat = await api("POST", `/api/rooms/${roomId}/seats`, { name });
    saveSeat(roomId, { seat: seat.seat, token: seat.token, name });
    location.href = `/room/${roomId}`;
  } catch (e) {
    const target = e.field && form.querySelector(`[data-option="${e.field}"] .field-error`);
    // a refusal with a code (too_many_rooms, rate_limited, full_server) in the page's words
    (target || general).textContent = e.field ? optionError(e.field, e.message) : e.text ?? e.message;
    if (target) target.closest(".field").hidden = false;
  }
}

function roomRow(room) {
  const r = room.rules;
  const summary = rulesSummary(r);
  return h("li.room-row", { dataset: { room: room.room_id } },
    h("b", {}, roomTitle(room)), " ", h("span.summary", {}, summary), " ",
    h("span.free", {}, `${room.free_seats.length} ${t("free_seats")}`), " ",
    h("a.button", { href: `/room/${room.room_id}` }, room.free_seats.length ? t("join") : t("watch")));
}

/** The lobby; `me` is the signed-in player (GET /api/me): they sit under their display
 * name, which the server uses whatever is typed. */
export async function renderLobby(root, me = null) {
  const account = me?.account;
  const form = h("form.create", { onsubmit: (e) => { e.preventDefault(); createRoom(form); } },
    h("h2", {}, t("create_room")),
    h("div.field", {}, h("label", { for: "player-name" }, t("your_name")),
      h("input#player-name", {
        name: "player_name", value: account ? account.display_name : savedName(), maxlength: 40,
        required: true, readonly: account ? true : null,
      }),
      h("span.field-error.name-error", { role: "alert" })),
    h("div.field", {}, h("label", { for: "room-name" }, t("room_name")),
      h("input#room-name", { name: "room_name", maxlength: 60 })),
    h("div.field.field-checkbox.private-field", {},
      h("label", { for: "opt-private" }, t("private_room")),
      h("input#opt-private", { type: "checkbox", name: "private" }),
      h("span.field-help", {}, t("private_help"))),
    h("div.options", {}, OPTIONS.map(field)),
    h("details.advanced", {}, h("summary", {}, t("advanced")),
      h("div.field", { dataset: { option: "seed" } }, h("label", { for: "opt-seed" }, t("seed")),
        h("input#opt-seed", { name: "seed", inputmode: "numeric",
          maxlength: 19, autocomplete: "off" }),
        h("span.field-error", { role: "alert" }))),
    h("p.form-error", { role: "alert" }),
    h("button.create-room", { type: "submit" }, t("create")));
  form.addEventListener("change", () => syncFields(form));
  // a server error is stale once the user edits the form, or once the browser itself
  // blocks a submit (e.g. 底分 = 0 fails the field's min)
  form.addEventListener("input", () => clearErrors(form));
  form.addEventListener("change", () => clearErrors(form));
  form.addEventListener("invalid", () => clearErrors(form), true);
  syncFields(form);
  const list = h("ul.rooms");
  const refresh = async () => {
    try {
      const data = await api("GET", "/api/rooms");
      const rooms = data.rooms || data;
      list.replaceChildren(...(rooms.length ? rooms.map(roomRow) : [h("li", {}, t("no_rooms"))]));
    } catch (e) {
      list.replaceChildren(h("li.error", {}, e.message));
    }
  };
  const mine = h("ul.my-matches");
  root.replaceChildren(h("main.lobby", {}, form,
    h("div.lobby-side", {},
      // 刷新 beside the heading, a button like the others (inside the h2 it took its font)
      h("section.room-list", {}, h("div.section-head", {}, h("h2", {}, t("open_rooms")),
        h("button.refresh", { onclick: refresh }, t("refresh"))), list, leaderboardElement()),
      h("section.my-list", {}, h("h2", {}, t("my_seats")), mine,
        h("p.all-matches", {}, h("a", { href: "/matches" }, t("all_my_matches")))),
      // the served rule book, by its title (it showed the repository's path to players)
      h("p.rules-entry", {}, h("a.button", {
        href: rulesHref(), target: "_blank", rel: "noopener" }, t("rules_book"))))));
  await Promise.all([refresh(), listMine(mine)]);
}

/** "My seats": rooms this browser holds a seat in (its own record), with replay links; a
 * seat left is gone from here, and every finished match is on /matches ("all my matches"). */
async function listMine(list) {
  const seats = mySeats().slice(0, 20);
  if (!seats.length) {
    list.replaceChildren(h("li", {}, t("no_seats")));
    return;
  }
  const rows = await Promise.all(seats.map(async (s) => {
    let room = null;
    try {
      room = await api("GET", `/api/rooms/${s.roomId}`);
    } catch (e) {
      if (e.status === 404) forgetSeat(s.roomId); // the server no longer knows it
      return null;
    }
    const status = t(`status_${room.status}`);
    return h("li.my-match", { dataset: { room: s.roomId } },
      h("b", {}, roomTitle(room)), ` · ${t("seat_no", s.seat + 1)} ${s.name || ""} · ${status} `,
      h("a.button", { href: `/room/${s.roomId}` }, t("open")), " ",
      room.status === "over" || room.status === "dissolved"
        ? h("a.button.replay-link", { href: replayHref(s.roomId) }, t("replay")) : null);
  }));
  const shown = rows.filter(Boolean);
  list.replaceChildren(...(shown.length ? shown : [h("li", {}, t("no_seats"))]));
}
