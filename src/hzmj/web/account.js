// Accounts in the browser (docs/protocol.md "Accounts"): the header's sign-in link, the
// account page (/account: sign up, log in, your profile, log out, delete), "my matches"
// (/matches), public profiles (/players/{id}) and the lobby's leaderboard.

import { ApiError, api, loadMe, setCsrf } from "./api.js";
import { botName, getLang, rulesSummary } from "./i18n.js";
import { headerTools } from "./feedback.js";
import { h, homeLink, icon, ratingText } from "./render.js";

const STRINGS = {
  account: ["账号", "Account"],
  sign_in: ["登录", "Sign in"],
  sign_up: ["注册", "Sign up"],
  log_in: ["登录", "Log in"],
  log_out: ["退出登录", "Log out"],
  username: ["用户名", "User name"],
  display_name: ["昵称", "Display name"],
  password: ["密码", "Password"],
  guest_note: ["不注册也能以游客身份直接开局；注册后，本浏览器的游客对局会归入账号。",
    "You can always play as a guest; signing up keeps this browser's guest matches."],
  my_matches: ["我的对局", "My matches"],
  profile: ["个人资料", "Profile"],
  public_profile: ["公开资料", "Public profile"],
  rating: ["等级分", "Rating"],
  leaderboard: ["排行榜", "Leaderboard"],
  no_ratings: ["还没有评分", "No ratings yet"],
  no_matches: ["还没有完成的对局", "No finished matches yet"],
  dissolved: ["已解散", "Dissolved"],
  dissolved_note: ["无人在桌，房间已解散：不计名次和等级分", "Dissolved with nobody at the table: no place, no rating"],
  date: ["日期", "Date"],
  rules: ["规则", "Rules"],
  place: ["名次", "Place"],
  points: ["得分", "Points"],
  rating_change: ["等级分变化", "Rating change"],
  replay: ["回放", "Replay"],
  matches: ["对局", "Matches"],
  hands: ["局数", "Hands"],
  hands_won: ["胡牌", "Hands won"],
  self_draws: ["自摸", "Self-draws (自摸)"],
  baotou: ["爆头", "Baotou (爆头)"],
  caipiao: ["财飘", "Caipiao (财飘)"],
  gangkai: ["杠开", "Gangkai (杠开)"],
  average_m: ["平均倍数 M", "Average M"],
  points_per_hand: ["每局得分", "Points per hand"],
  first_places: ["第一名", "First places"],
  history: ["等级分记录", "Rating history"],
  delete_account: ["删除账号", "Delete account"],
  delete_note: ["删除后，你的对局显示为“deleted player”。请输入密码确认。",
    "Your matches will show \"deleted player\". Enter your password to confirm."],
  deleted: ["账号已删除", "Account deleted"],
  signed_in_as: ["已登录：", "Signed in as "],
  bot: ["机器人", "bot"],
  no_player: ["没有这个玩家", "No such player"],
};

function tr(key) {
  const pair = STRINGS[key];
  return pair ? pair[getLang() === "zh" ? 0 : 1] : key;
}

function when(epochSeconds) {
  return new Date(epochSeconds * 1000).toLocaleString(getLang() === "zh" ? "zh-CN" : "en");
}

function signed(n) {
  return n > 0 ? `+${n}` : String(n);
}

/** Header links: "sign in" or your name and rating, and "my matches". */
export function accountLinks(me) {
  const acc = me?.account;
  return h("nav.account-nav", {},
    // at 320 px its icon alone (the words wrapped the header onto a second row)
    h("a.my-matches-link", { href: "/matches", title: tr("my_matches"), "aria-label": tr("my_matches") },
      icon("matches"), h("span.label", {}, tr("my_matches"))),
    acc ? h("a.account-link", { href: "/account" }, acc.display_name, " ",
      h("span.seat-rating", {}, `≈${ratingText(acc.rating)}`))
      : h("a.account-link.sign-in", { href: "/account" }, tr("sign_in")));
}

/** Every page's header: the game's name home, the account's links, then the rule book,
 * the sound and the language (the replay had no account links, the account pages neither
 * the rule book nor the short language button). */
export function siteHeader(me, rerender, toggleLang) {
  return [homeLink(), accountLinks(me), headerTools(rerender, toggleLang)];
}

function field(name, label, attrs = {}) {
  return h("div.field", {}, h("label", { for: `acc-${name}` }, label),
    h(`input#acc-${name}`, { name, required: true, ...attrs }));
}

/** A message for a failed call: the first pydantic reason, or the server's detail. */
function reason(e) {
  const detail = e instanceof ApiError ? e.body?.detail : null;
  if (Array.isArray(detail) && detail[0]) {
    const where = detail[0].loc?.[detail[0].loc.length - 1];
    return `${tr(where) || where}: ${String(detail[0].msg).replace(/^Value error, /, "")}`;
  }
  return e.message;
}

function authForm(kind, onDone) {
  const up = kind === "register";
  const error = h("p.form-error", { role: "alert" });
  const form = h(`form.auth.${kind}`, {
    onsubmit: async (ev) => {
      ev.preventDefault();
      error.textContent = "";
      const data = Object.fromEntries(new FormData(form).entries());
      try {
        const res = await api("POST", up ? "/api/auth/register" : "/api/auth/login", data);
        setCsrf(res.csrf);
        onDone(res);
      } catch (e) {
        error.textContent = reason(e);
      }
    },
  },
  h("h2", {}, up ? tr("sign_up") : tr("log_in")),
  field("username", tr("username"), { autocomplete: "username", maxlength: 24 }),
  up ? field("display_name", tr("display_name"), { maxlength: 24 }) : null,
  field("password", tr("password"), {
    type: "password", autocomplete: up ? "new-password" : "current-password", maxlength: 128,
  }),
  error,
  h(`button.${up ? "sign-up" : "log-in"}`, { type: "submit" }, up ? tr("sign_up") : tr("log_in")));
  return form;
}

function statsTable(s) {
  const rows = [
    ["matches", s.matches], ["hands", s.hands], ["hands_won", s.hands_won],
    ["self_draws", s.self_draws], ["baotou", s.baotou], ["caipiao", s.caipiao],
    ["gangkai", s.gangkai], ["average_m", s.average_multiplier ?? "–"],
    ["points_per_hand", s.points_per_hand ?? "–"], ["first_places", s.first_places],
  ];
  return h("table.stats", {}, h("tbody", {}, rows.map(([k, v]) => h("tr", { dataset: { stat: k } },
    h("th", {}, tr(k)), h("td", {}, String(v))))));
}

function profileElement(p) {
  const history = p.rating_history.slice(0, 10);
  return h("section.profile", { dataset: { player: p.id } },
    h("h2.display-name", {}, p.kind === "bot" ? botName(p.id.replace(/^bot:/, "")) : p.display_name),
    h("p.rating-line", {}, `${tr("rating")}: `, h("b.rating", {}, ratingText(p.rating)),
      ` ± ${p.rating_sigma}`),
    statsTable(p.summary),
    history.length ? h("div.rating-history", {}, h("h3", {}, tr("history")),
      h("ul", {}, history.map((x) => h("li.rating-point", {},
        `${when(x.finished_at)}: ${ratingText(x.before)} → `,
        h("b", {}, ratingText(x.after)), ` (${signed(x.after - x.before)})`)))) : null);
}

async function accountPage(root, me) {
  if (!me.account) {
    const done = () => { location.href = "/account"; };
    root.replaceChildren(h("main.account-page", {},
      h("p.note", {}, tr("guest_note")),
      h("div.auth-forms", {}, authForm("register", done), authForm("login", done))));
    return;
  }
  const profile = await api("GET", `/api/players/${me.account.id}`);
  const pw = h("input#delete-password", { type: "password", autocomplete: "current-password" });
  const error = h("p.form-error", { role: "alert" });
  root.replaceChildren(h("main.account-page", {},
    h("p", {}, tr("signed_in_as"), h("b", {}, me.account.username)),
    profileElement(profile),
    h("p.links", {}, h("a", { href: "/matches" }, tr("my_matches")), " · ",
      h("a.public-profile", { href: `/players/${me.account.id}` }, tr("public_profile"))),
    h("button.log-out", {
      onclick: async () => {
        await api("POST", "/api/auth/logout", {});
        setCsrf(null);
        location.href = "/";
      },
    }, tr("log_out")),
    h("details.delete-account", {}, h("summary", {}, tr("delete_account")),
      h("p", {}, tr("delete_note")), pw, " ",
      h("button.delete", {
        onclick: async () => {
          try {
            await api("DELETE", "/api/me", { password: pw.value });
            location.href = "/";
          } catch (e) {
            error.textContent = reason(e);
          }
        },
      }, tr("delete_account")), error)));
}

function matchRow(m) {
  const moved = m.rating_after !== null && m.rating_before !== null
    ? `${ratingText(m.rating_before)} → ${ratingText(m.rating_after)} (${signed(m.rating_after - m.rating_before)})`
    : "–";
  const others = m.seats.filter((s) => s.seat !== m.seat).map((s) => (s.bot ? botName(s.bot) : s.name)).join(", ");
  return h("li.match-row", { dataset: { room: m.room_id } },
    h("div.match-head", {},
      m.status === "dissolved" ? h("b.place.dissolved", { title: tr("dissolved_note") }, tr("dissolved"))
        : h("b.place", {}, `${tr("place")} ${m.place}/${m.players}`), " ",
      h("span.match-points", {}, `${tr("points")} ${m.points} (${signed(m.delta)})`), " ",
      h("span.rating-change", {}, `${tr("rating")} ${moved}`), " ",
      h("a.replay-link", { href: m.replay }, tr("replay"))),
    h("div.match-meta", {},
      h("span.date", {}, when(m.finished_at)), " · ",
      h("span", {}, m.name || m.room_id), " · ", h("span.others", {}, others)),
    h("div.rules-line", {}, rulesSummary(m.rules)));
}

async function matchesPage(root) {
  const { matches } = await api("GET", "/api/me/matches");
  root.replaceChildren(h("main.matches-page", {}, h("h2", {}, tr("my_matches")),
    matches.length ? h("ul.my-matches", {}, matches.map(matchRow))
      : h("p.empty", {}, tr("no_matches"))));
}

async function playerPage(root, id) {
  try {
    root.replaceChildren(h("main.player-page", {},
      profileElement(await api("GET", `/api/players/${encodeURIComponent(id)}`))));
  } catch {
    root.replaceChildren(h("main.player-page", {}, h("p.error", {}, tr("no_player"))));
  }
}

/** The lobby's leaderboard (accounts and bot levels), filled once loaded. */
export function leaderboardElement() {
  const list = h("ol.leaderboard");
  const section = h("section.leaderboard-box", {}, h("h2", {}, tr("leaderboard")), list);
  api("GET", "/api/leaderboard?limit=20").then(({ entries }) => {
    list.replaceChildren(...(entries.length ? entries.map((e) => h("li.leader", {
      dataset: { kind: e.kind },
    }, h("a", { href: `/players/${encodeURIComponent(e.id)}` },
      e.kind === "bot" ? botName(e.id.replace(/^bot:/, "")) : e.display_name), " ",
    h("span.seat-rating", {}, `≈${ratingText(e.rating)}`), " ",
    h("small", {}, `(${e.matches} ${tr("matches")})`))) : [h("li.empty", {}, tr("no_ratings"))]));
  }).catch((e) => list.replaceChildren(h("li.error", {}, e.message)));
  return section;
}

/** Render the account pages at `path` (/account, /matches, /players/{id}). */
export async function renderAccountPages(root, path) {
  const me = await loadMe();
  const player = path.match(/^\/players\/([^/]+)/);
  if (player) await playerPage(root, decodeURIComponent(player[1]));
  else if (path.startsWith("/matches")) await matchesPage(root);
  else await accountPage(root, me);
  return me;
}
