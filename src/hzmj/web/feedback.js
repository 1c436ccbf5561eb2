// Feedback at the table: big banners (吃 碰 杠 胡 财飘 爆头, the dice and the flip at the
// deal), short Web Audio sounds with a mute switch the browser remembers, and the quick
// phrases (快捷语) players send each other.

import { bi, t } from "./i18n.js";
import { h, icon, rulesHref } from "./render.js";
import { tileElement } from "./tiles.js";

const MUTE_KEY = "hzmj.mute";

export const PHRASES = [
  ["快点吧，等得花儿都谢了", "Hurry up, please"],
  ["好牌！", "Nice hand!"],
  ["不好意思，我要胡了", "Sorry, I'm about to win"],
  ["又断线了", "My connection dropped"],
  ["再来一局", "One more match"],
  ["谢谢老板", "Thanks, boss"],
  ["稳住，我们能赢", "Steady, we can win"],
  ["财神保佑", "May the God of Wealth bless us"],
];

export function phraseText(i) {
  const pair = PHRASES[i];
  return pair ? bi(pair[0], pair[1]) : "";
}

export function muted() {
  return localStorage.getItem(MUTE_KEY) === "1";
}

export function setMuted(on) {
  localStorage.setItem(MUTE_KEY, on ? "1" : "0");
}

/** The header's tools: the rule book, the remembered sound switch, the language. */
export function headerTools(rerender, toggleLang) {
  const toggleMute = () => {
    setMuted(!muted());
    rerender();
  };
  return h("span.header-tools", {},
    h("a.rules-nav", { href: rulesHref(), target: "_blank", rel: "noopener" }, t("rules_link")),
    // on a phone the icon alone (the words wrapped the header onto a second row)
    h("button.mute", { onclick: toggleMute, "aria-pressed": muted() ? "true" : "false",
      title: t("sound"), "aria-label": t("sound") },
    icon(muted() ? "mute" : "sound"), h("span.label", {}, t(muted() ? "mute" : "sound"))),
    // at 320 px "English" is "EN" (the header wrapped onto a second row)
    h("button.lang", { onclick: toggleLang, lang: t("lang") === "English" ? "en" : "zh-CN",
      title: "中文 / English", "aria-label": t("lang") },
    h("span.label", {}, t("lang")), h("span.label-short", { "aria-hidden": "true" }, t("lang_short"))));
}

let audio = null;

// A few notes per sound: [frequency Hz, start s, length s].
const SOUNDS = {
  discard: [[520, 0, 0.06]],
  claim: [[660, 0, 0.08], [880, 0.08, 0.1]],
  win: [[523, 0, 0.12], [659, 0.12, 0.12], [784, 0.24, 0.2]],
  deal: [[392, 0, 0.05], [440, 0.07, 0.05], [494, 0.14, 0.05]],
  turn: [[740, 0, 0.07]],
  phrase: [[600, 0, 0.05], [600, 0.09, 0.05]],
};

/** Play a short sound unless muted; silently nothing where Web Audio is missing. */
export function sound(name) {
  if (muted() || !SOUNDS[name]) return;
  try {
    audio = audio || new (window.AudioContext || window.webkitAudioContext)();
    const now = audio.currentTime;
    for (const [freq, start, len] of SOUNDS[name]) {
      const osc = audio.createOscillator();
      const gain = audio.createGain();
      osc.frequency.value = freq;
      osc.type = "triangle";
      gain.gain.setValueAtTime(0.0001, now + start);
      gain.gain.exponentialRampToValueAtTime(0.15, now + start + 0.01);
      gain.gain.exponentialRampToValueAtTime(0.0001, now + start + len);
      osc.connect(gain).connect(audio.destination);
      osc.start(now + start);
      osc.stop(now + start + len + 0.02);
    }
  } catch {
    // no audio device: feedback stays visual
  }
}

/** A large banner over the table for `ms` milliseconds; it replaces the one still shown
 * (two at one place, a pong and the next, or a win and the next deal, read as neither).
 * It stands over the table's centre when that is on screen: at the screen's fixed 38% a
 * phone's banner (碰!) covered the side seats' concealed counts and discards, the meld it
 * announced among them. */
export function banner(content, kind = "", ms = 1300) {
  document.querySelectorAll(".fx-banner").forEach((n) => n.remove());
  const node = h(`div.fx-banner${kind ? `.fx-${kind}` : ""}`, { role: "status" }, content);
  const centre = document.querySelector(".table .centre-info")?.getBoundingClientRect();
  const middle = centre ? (centre.top + centre.bottom) / 2 : -1;
  // on screen and above your area (a phone keeps it at the screen's foot, over the table)
  const own = document.querySelector(".table .own-area")?.getBoundingClientRect();
  if (middle > 0 && middle < Math.min(window.innerHeight, own ? own.top : Infinity)) {
    node.style.top = `${Math.round(middle)}px`;
  }
  document.body.append(node);
  setTimeout(() => node.remove(), ms);
  return node;
}

const CLAIM_WORDS = { chow: ["吃", "Chow"], pong: ["碰", "Pong"], kong: ["杠", "Kong"] };

/** The banner and sound an event deserves, if any. `who(i)` names a seat. */
export function eventFeedback(board, e, who, mine) {
  switch (e.type) {
    case "hand_start": {
      sound("deal");
      const dice = (e.dice || []).map((d) => h("span.die", {}, "⚀⚁⚂⚃⚄⚅"[d - 1] || String(d)));
      banner([h("div", {}, t("hand_no", e.hand_no)),
        h("div.fx-dice", {}, `${t("dice")} `, dice, ` = ${(e.dice || []).reduce((a, x) => a + x, 0)}`),
        // each tile with its word: a phone's line broke between 财神 and its tile
        e.indicator ? h("div.fx-flip", {},
          h("span", {}, `${t("flip")} `, tileElement(e.indicator, { small: true })), "→",
          h("span", {}, `${bi("财神", "wild")} `, tileElement(e.caishen, { small: true, caishen: e.caishen })))
          : h("div.fx-flip", {}, `${bi("白板财神", "White Dragons are wild")}`)], "deal", 2200);
      return;
    }
    case "discard":
      sound("discard");
      if (e.caishen) banner(`${who(e.seat)} ${bi("财飘", "wild discarded")}`, "piao");
      return;
    case "chow": case "pong":
      sound("claim");
      banner(`${who(e.seat)} ${bi(...CLAIM_WORDS[e.type])}!`, e.type);
      return;
    case "kong":
      sound("claim");
      banner(`${who(e.seat)} ${bi(...CLAIM_WORDS.kong)}!`, "kong");
      return;
    case "win": {
      sound("win");
      const name = e.score?.names?.zh;
      const bt = e.score?.baotou ? ` · ${bi("爆头", "baotou")}` : "";
      banner([h("div.fx-big", {}, `${who(e.seat)} ${bi(e.self_draw ? "自摸" : "胡", e.self_draw ? "self-draw" : "win")}!`),
        h("div", {}, `${name || ""}${bt}`)], "win", 1800);
      return;
    }
    case "escape":
      banner(t(e.deltas?.some((d) => d !== 0) ? "escaped_penalty" : "escaped_banner", who(e.seat)),
        "escape", 3500);
      return;
    case "draw":
      if (e.seat === mine && board.phase === "turn") sound("turn");
      return;
    default:
  }
}
