// Chinese / English strings.  Pattern names always keep their Chinese form (the server
// sends names {zh, en}); `bi()` shows both where a term is a game term.

const STRINGS = {
  title: ["杭州麻将", "Hangzhou Mahjong"],
  lang: ["English", "中文"],
  lang_short: ["EN", "中文"],
  lobby: ["大厅", "Lobby"],
  create_room: ["创建房间", "Create a room"],
  room_name: ["房间名", "Room name"],
  private_room: ["私人房间", "Private room"],
  private_help: ["不在大厅列出，朋友凭链接加入或观战", "Not listed in the lobby: friends join or watch by the link"],
  create: ["创建", "Create"],
  advanced: ["高级", "Advanced"],
  seed: ["随机种子（可选，固定发牌）", "Seed (optional, fixes the deal)"],
  open_rooms: ["开放的房间", "Open rooms"],
  no_rooms: ["暂无房间", "No open rooms"],
  refresh: ["刷新", "Refresh"],
  your_name: ["你的名字", "Your name"],
  join: ["入座", "Take seat"],
  watch: ["观战", "Watch"],
  enter: ["进入", "Enter"],
  free_seats: ["空位", "free seats"],
  seat: ["座位", "Seat"],
  empty: ["空", "empty"],
  add_bot: ["加机器人", "Add bot"],
  start: ["开始", "Start"],
  leave: ["离开", "Leave"],
  leave_confirm: ["比赛进行中：离开后由机器人托管；三连庄时按逃跑扣分。确定离开？",
    "The match is running: a bot will play your seat, and at dealer level 3 leaving costs the escape penalty. Leave?"],
  share: ["分享链接", "Share link"],
  copied: ["已复制", "Copied"],
  owner: ["房主", "owner"],
  you: ["你", "you"],
  you_chip: ["你", "You"],
  bot: ["机器人", "bot"],
  waiting: ["等待房主开始…", "Waiting for the owner to start…"],
  press_start: ["座位已坐满：点“开始”开局", "Every seat is filled: press Start"],
  spectating: ["观战中", "Spectating"],
  hand_no: ["第{0}局", "Hand {0}"],
  of_total: ["/{0}", " of {0}"],
  live: ["余牌", "Wall"],
  caishen: ["财神", "Wild"],
  indicator: ["翻牌", "Flipped"],
  turn_of: ["{0} 出牌", "{0} to play"],
  your_turn: ["轮到你出牌", "Your turn"],
  claim_window: ["{0} 打出", "{0} discarded"],
  dealer: ["庄", "Dealer"],
  // after "Dealer" on the badge and the factor in the settlement: the level, no factor
  level1: ["平庄", "level 1"],
  level2: ["二连庄", "level 2"],
  level3: ["三连庄", "level 3"],
  concealed: ["手牌", "in hand"],
  piao: ["财飘", "wild discarded"],
  lock: ["锁", "lock"],
  locked_by: ["{0} 打财神：抓打圈", "{0} discarded the wild: others draw-and-discard"],
  auto: ["托管", "Auto-play"],
  // the toolbar's switch (its title says what it does): the English toolbar took two rows
  // at 390 px
  auto_switch: ["托管", "Auto"],
  auto_by_server: ["你超时或掉线了，现由机器人托管；取消勾选“托管”即可自己打",
    "You ran out of time or lost the connection, so a bot plays for you (托管); untick Auto to play again"],
  hint: ["提示", "Hint"],
  shanten: ["向听", "Shanten"],
  tenpai: ["听牌", "Ready hand"],
  waits: ["听", "Waits"],
  left: ["剩{0}", "{0} left"],
  no_hints: ["服务器暂不提供提示", "Hints are not available on this server"],
  suggest: ["建议", "Suggested"],
  win: ["胡", "Win"],
  kong: ["杠", "Kong"],
  pong: ["碰", "Pong"],
  chow: ["吃", "Chow"],
  pass: ["过", "Pass"],
  discard: ["打出", "Discard"],
  // the table's log: "seat 2 Bob discards 5 Dots"
  log_discard: ["打出", "discards"],
  log_chow: ["吃", "chows"],
  log_pong: ["碰", "pongs"],
  log_win: ["胡", "wins on a discard:"],
  log_self_draw: ["自摸", "wins by self-draw:"],
  concealed_kong: ["暗杠", "concealed kong"],
  added_kong: ["补杠", "added kong"],
  exposed_kong: ["明杠", "exposed kong"],
  settlement: ["结算", "Settlement"],
  draw_game: ["流局（荒庄）", "Draw (wall exhausted)"],
  winner: ["{0} 胡牌", "{0} wins"],
  self_draw: ["自摸", "self-draw"],
  on_discard: ["点冲：{0} 放铳", "on {0}'s discard"],
  multiplier: ["倍数", "Multiplier"],
  dealer_factor: ["庄家倍数", "Dealer factor"],
  payments: ["支付", "Payments"],
  pays: ["{0} → {1}", "{0} → {1}"],
  no_payments: ["无人支付", "Nobody pays"],
  points: ["分", "pts"],
  point: ["分", "pt"],
  delta: ["得失", "Change"],
  next_hand: ["下一局", "Next hand"],
  final: ["终局", "Final table"],
  rank: ["名次", "Rank"],
  total: ["总分", "Points"],
  replay: ["回放", "Replay"],
  back_lobby: ["回大厅", "Back to lobby"],
  disconnected: ["连接断开，正在重连…", "Disconnected, reconnecting…"],
  hands_revealed: ["亮牌", "Hands"],
  reading: ["牌型", "Reading"],
  first: ["开头", "Start"],
  prev: ["上一步", "Back"],
  next: ["下一步", "Forward"],
  last: ["结尾", "End"],
  show_hand: ["显示手牌", "Show hand"],
  all: ["全部", "All"],
  none: ["不显示", "None"],
  jump_hand: ["跳到", "Jump to"],
  step: ["步", "step"],
  replay_missing: ["服务器暂不提供回放数据", "The server does not offer replay data yet"],
  not_over: ["比赛尚未结束", "The match is not over yet"],
  seed_word: ["种子", "seed"],
  seed_invalid: ["种子须为 0 到 9223372036854775807 的整数", "The seed must be a whole number from 0 to 9223372036854775807"],
  fair_ok: ["公平：种子与盐的 SHA-256 与开局公布的承诺 {0}… 一致",
    "Fair: the SHA-256 of the seed and salt matches the commitment {0}… published at the start"],
  fair_bad: ["不一致：种子与盐不符合开局公布的承诺 {0}…",
    "MISMATCH: the seed and salt do not open the commitment {0}… published at the start"],
  review: ["AI 复盘", "AI review"],
  review_seat: ["复盘座位", "Review seat"],
  reviewing: ["AI 复盘中…", "Reviewing…"],
  review_summary: ["{0} 个决定，一致率 {1}，损失共 {2}（本人打的 {4} 局，每局 {3}）",
    "{0} decisions, agreement {1}, loss {2} in total ({3} per hand over the {4} you played)"],
  review_unit: ["（单位：{0}）", " (values in {0})"],
  review_first_hands: ["（只复盘前 {0} 局，共 {1} 局）", " (the first {0} of {1} hands only)"],
  replay_first_hands: ["只回放前 {0} 局（共 {1} 局）", "The first {0} of {1} hands only"],
  replay_dissolved: ["这局无人在桌 {0} 后解散，停在这里：不计名次和等级分。",
    "This match was dissolved after {0} with nobody at the table: it stops here, with no winner and no rating."],
  review_skipped: ["；跳过 {0} 个非本人的决定（托管 {1}，超时 {2}）",
    "; {0} decisions not the player's skipped ({1} by auto-play, {2} by timeout)"],
  review_skipped_here: ["这一步不是本人的决定（{0}），不复盘。", "Not the player's decision ({0}): not reviewed."],
  made_by_bot_help: ["这一步由机器人托管代打（开启托管、离线过久、连续超时或离开之后）",
    "The bot played this move for the player (auto-play on, away too long, repeated timeouts, or after leaving)"],
  made_by_clock_help: ["这一步是超时后自动打出的（规则 §8.7）", "The clock made this move when the time ran out (RULES §8.7)"],
  top_choices: ["AI 的选择（按 AI 排序，首选在前）及估值", "The AI's choices (its pick first) and their values"],
  costliest: ["损失最大的决定", "Costliest decisions"],
  played: ["实打", "Played"],
  best: ["AI 首选", "AI's pick"],
  loss: ["损失", "Loss"],
  choose: ["选择", "Choose"],
  cancel: ["取消", "Cancel"],
  close: ["关闭", "Close"],
  log: ["记录", "Log"],
  seconds: ["{0}秒", "{0}s"],
  escape: ["{0} 离开（托管）", "{0} left (bot plays)"],
  copy: ["复制", "Copy"],
  copy_link: ["复制链接", "Copy the link"],
  rules: ["规则", "Rules"],
  rel_next: ["下家", "Next"],
  rel_opposite: ["对家", "Opposite"],
  rel_prev: ["上家", "Previous"],
  seat_wind: ["门风", "Seat wind"],
  seat_no: ["{0}号位", "seat {0}"],
  to_play: ["出牌中", "to play"],
  ready: ["继续", "Ready"],
  ready_mark: ["已准备", "ready"],
  not_ready: ["未准备", "not ready"],
  prepare: ["准备", "Ready"],
  unprepare: ["取消准备", "Not ready"],
  gate_wait: ["第{0}局 {1}秒后开始", "Hand {0} starts in {1}s"],
  gate_waiting_for: ["等待：{0}", "Waiting for: {0}"],
  offline: ["离线", "offline"],
  left_seat: ["已逃跑", "escaped"],
  spectators: ["观众 {0}", "{0} watching"],
  escaped_banner: ["{0} 逃跑了，机器人接手", "{0} escaped; a bot plays on"],
  escaped_penalty: ["{0} 逃跑：按财飘赔付", "{0} escaped and pays as for 财飘"],
  claim_on: ["{0} 打出 {1}：要吗？", "{0} discarded {1}: claim it?"],
  remove: ["移出", "Remove"],
  bot_level: ["机器人等级", "Bot level"],
  bot_name: ["{0}机器人", "{0} bot"],
  bot_efficiency: ["效率", "Efficiency"],
  bot_strong: ["高手", "Strong"],
  bot_random: ["随机", "Random"],
  default_room: ["{0}的房间", "{0}'s table"],
  room_unknown: ["房间 {0} 不存在或已关闭。", "There is no room {0} (or it was closed)."],
  room_unknown_title: ["找不到房间", "Room not found"],
  room_over_title: ["这局已经打完了", "This match is over"],
  room_over: ["房间 {0} 的对局已结束：回放里有每一步、每局的结算和终局得分。",
    "The match in room {0} has ended: its replay has every move, each hand's settlement and the final scores."],
  room_dissolved_title: ["房间已解散", "This room was dissolved"],
  room_dissolved: ["房间 {0} 无人在桌 {1}，已解散，对局不再继续，也不计名次和等级分。已打的牌在回放里都能看到。",
    "Room {0} was dissolved after {1} with nobody at the table: the match stops here, with no winner and no rating. Its replay stays available."],
  paused_nobody: ["没有玩家在线，对局已暂停；若无人回来，房间将于 {0} 解散。",
    "No player is at the table: the match is paused, and the room is dissolved at {0} unless one comes back."],
  span_minutes: ["{0} 分钟", "{0} minutes"],
  span_seconds: ["{0} 秒", "{0} seconds"],
  span_second: ["1 秒", "1 second"],
  qr: ["二维码", "QR code"],
  share_help: ["朋友用手机扫码或打开链接即可入座", "Friends scan the code or open the link to join"],
  history: ["战绩", "Scores"],
  log: ["记录", "Log"],
  log_empty: ["这一局还没有记录", "Nothing has happened in this hand yet"],
  hand_col: ["局", "Hand"],
  result_col: ["结果", "Result"],
  my_seats: ["我的座位", "My seats"],
  no_seats: ["这个浏览器现在没有座位", "This browser holds no seat now"],
  all_my_matches: ["全部对局与回放 →", "All my matches and replays →"],
  status_open: ["等待中", "waiting"],
  status_running: ["进行中", "playing"],
  status_over: ["已结束", "finished"],
  status_dissolved: ["已解散", "dissolved"],
  status_expired: ["已过期", "expired"],
  open: ["打开", "Open"],
  rules_link: ["规则", "Rules"],
  rules_book: ["杭州麻将规则全文", "The rules of Hangzhou Mahjong"],
  rule_ref: ["规则 {0}", "rule {0}"],
  mute: ["静音", "Mute"],
  sound: ["声音", "Sound"],
  phrases: ["快捷语", "Chat"],
  // "▶ Autoplay" took the English step buttons onto two rows at 390 px, "▶ 自动播放" at 320
  autoplay: ["播放", "Play"],
  pause: ["暂停", "Pause"],
  speed: ["速度", "Speed"],
  live_view: ["观战", "Watch live"],
  next_hand_in: ["下一局", "Next hand"],
  dice: ["骰子", "Dice"],
  flip: ["翻财神", "Flipped wild"],
  winning_hand: ["胡牌", "Winning hand"],
  baotou_line: ["爆头：将（对子）= 胡的那张 + 一张财神，×2 起", "爆头 (baotou): the pair is the winning tile plus a 财神; ×2 and up"],
  plays_as: ["当{0}", "as {0}"],
  standin_note: ["白板当{0}", "White Dragon as {0}"],
  share_formula: ["{0} × M {1} × 底分 {2}", "{0} × M {1} × base {2}"],
  factor_line: ["庄家倍数", "Dealer factor"],
  m_line: ["番数 M", "Multiplier M"],
  chain_line: ["链", "Chain"],
  self_drawn: ["{0} 自摸", "{0} self-drew"],
  dealt_in: ["{0} 放铳", "{0} dealt in"],
  won_on: ["{0} 胡 {1} 的牌", "{0} won on {1}'s discard"],
  total_col: ["合计", "Total"],
  seat_short: ["{0}号", "#{0}"],
  err_between_hands: ["下一局还没开始：请点“继续”", "The next hand has not started: press Ready"],
  err_dealing: ["正在发牌，马上轮到你", "Dealing: your clock starts in a moment"],
  err_stale: ["操作已过期（局面已变化）", "Too late: the table has moved on"],
  err_not_your_turn: ["还没轮到你", "It is not your turn"],
  err_not_legal: ["现在不能这样做", "That move is not allowed now"],
  err_spectator: ["观众不能操作", "Spectators cannot act"],
  err_over: ["比赛已结束", "The match is over"],
  err_left: ["你已离开本局，由机器人代打", "You left; a bot plays your seat"],
  err_bot_seat: ["这个座位由机器人打，你只能观看", "A bot plays this seat: you can watch, not act"],
  err_started: ["比赛已开始", "The match has started"],
  err_full: ["房间已满", "The room is full"],
  err_seat_taken: ["该座位已有人", "That seat is taken"],
  closed_removed: ["房主已将你移出座位，你现在是观众", "The owner removed you from your seat; you are watching now"],
  closed_token: ["你的座位凭证已失效，你现在是观众", "Your seat's token is no longer valid; you are watching now"],
  err_name_taken: ["桌上已有看起来相同的名字，请换一个名字", "Someone at this table has a name that looks the same; choose another name"],
  err_display_name_taken: ["桌上已有人用了和你的昵称看起来相同的名字：请房主移出那个座位，或退出登录后换个名字入座", "Someone at this table has a name that looks like your display name: ask the room's owner to free that seat, or sign out to sit under another name"],
  err_too_many_rooms: ["你开的房间太多了，请先结束或离开一个（没人坐的房间闲置一段时间后自动关闭）", "You have too many rooms open; finish or leave one first (a room where nobody sits closes after a while unused)"],
  err_owner_only: ["只有房主可以这样做", "Only the room's owner can do that"],
  err_token_needed: ["请先入座", "Take a seat first"],
  err_seats_free: ["还有空位，先坐满再开始", "Fill every seat first"],
  err_no_room: ["房间不存在", "No such room"],
  err_not_over: ["比赛尚未结束", "The match is not over yet"],
  err_no_gate: ["正在对局中", "The hand is being played"],
  err_settling: ["正在结算这张打出的牌，请稍候", "A discard is being settled; try again in a moment"],
  err_rate_limited: ["操作太频繁，请稍后再试", "Too many requests; try again later"],
  err_removed: ["房主已将你这个网络的玩家移出本房间", "The owner removed a player from your address from this room"],
  err_busy: ["正在生成的复盘太多，请一分钟后再试", "Too many reviews are being made; try again in a minute"],
  err_bad_bot: ["不能用这个机器人复盘", "That bot cannot review"],
  err_full_server: ["服务器已满，请稍后再试", "The server is full; try again later"],
  err_storage: ["服务器暂时无法保存，未作任何改动，请再试一次", "The server could not save that just now; nothing changed, try again"],
  review_unit_points: ["本局预期得分", "expected points of this hand"],
  review_unit_m: ["预期番数 M", "expected multiplier M"],
  review_unit_score: ["效率分", "efficiency score"],
  review_values_help: ["估值 = AI 只看该座位当时能看到的牌，模拟若干种牌局后本局的平均得分；损失 = AI 首选的估值 − 实打的估值。",
    "Value = the seat's average points in this hand over several simulated deals, seen from what the seat could see then; loss = value of the AI's pick − value of the move played."],
  review_tie_note: ["实打的估值不低于 AI 首选：算作一致，损失为 0（模拟有波动，AI 只在另一步明显更好时才改变首选）。",
    "The move played is valued at least as high as the AI's pick: it counts as agreeing, loss 0 (simulations are noisy; the AI changes its pick only when another move is clearly better)."],
  review_declined_win: ["AI 首选不胡，继续做更大的牌（如爆头）：在模拟中平均得分更高。",
    "The AI would not win here but play on for a bigger hand (such as 爆头): in the simulations that scores more on average."],
  review_only_move: ["AI 只考虑这一步（其他选择明显更差）。", "The AI considered only this move (the others are clearly worse)."],
  ai_pick: ["AI 首选", "AI's pick"],
  win_self: ["自摸胡", "Self-draw win"],
  // docs/bots.md measures the search bot no stronger than 高手 (strong): named for what it
  // does, and marked experimental where it is chosen
  bot_expert: ["搜索", "Search"],
  experimental: ["（实验）", " (experimental)"],
  owner_no_ready: ["房主无需准备", "the owner needs no ready mark"],
  owner_start_help: ["座位坐满后点“开始”即可开局（机器人也算）；其他玩家的“准备”只是告诉你他们已就绪。",
    "Press Start once every seat is filled (bots count); the other players' Ready only tells you they are set."],
  player_ready_help: ["点“准备”告诉房主你已就绪；坐满后由房主开始。",
    "Press Ready to tell the owner you are set; the owner starts once every seat is filled."],
  seats_to_fill: ["还有 {0} 个空位", "Seats to fill: {0}"],
  running_total: ["累计", "total"],
  history_empty: ["还没有打完的局：每局结束后，这里列出各家得失",
    "No hand has ended yet: each hand's scores show here once it ends"],
  history_cell_help: ["大字：本局得失；小字：累计总分", "Large: this hand's change; small: the running total"],
  your_turn_help: ["轮到你出牌：点一张牌选中，再点一次打出（或双击；键盘 ←→ 选牌、Enter 打出）；长按或悬停一张牌，看打出它之后听什么",
    "Your turn: tap a tile, tap it again to discard (or double-click; keyboard ←→ then Enter); press and hold, or hover, a tile to see what you would wait on without it"],
  useful_count: ["有效牌 {0} 张", "{0} useful tiles"],
};

// Labels of the RULES §3 options and their values.
export const OPTION_LABELS = {
  players: ["人数", "Players"],
  drop_bamboo: ["缺一门（仅限 2 人，去掉条子）", "Drop bamboo (2 players only)"],
  match_mode: ["模式", "Match mode"],
  hands: ["局数", "Hands"],
  start_points: ["起始分", "Starting points"],
  base_score: ["底分", "Base score"],
  caishen_mode: ["财神", "Wild tile"],
  dealer_start_level: ["起庄", "Dealer start level"],
  discard_win: ["胡牌方式", "Winning"],
  three_tan_contract: ["三摊承包", "三摊承包 three-tan (摊) contract"],
  pong_counts_as_tan: ["碰算摊", "碰算摊 pongs count as tan (摊)"],
  must_baotou_with_caishen: ["有财必拷响", "有财必拷响 with a 财神 (wild), win only by baotou (爆头)"],
  cap: ["封顶", "Cap per share"],
  claim_seconds: ["吃碰时间（秒）", "Claim time (s)"],
  turn_seconds: ["出牌时间（秒）", "Turn time (s)"],
};

export const VALUE_LABELS = {
  match_mode: { hands: ["打局", "fixed hands"], points: ["打分", "until broke"] },
  caishen_mode: { flip: ["翻财神", "flip"], white: ["白板财神", "White Dragons"] },
  dealer_start_level: { 1: ["平庄起", "level 1"], 2: ["篤二老庄", "level 2"], 3: ["篤三老庄", "level 3"] },
  discard_win: { false: ["自摸胡", "self-draw only"], true: ["庄闲放铳", "discard wins (level 3)"] },
  cap: { null: ["不封顶", "none"] },
};

// The server's English rule errors (hzmj.rules.RulesError), in Chinese.
const MESSAGE_ZH = [
  [/is only allowed with (\d+) players/, "仅限$1人"],
  [/^must be a positive integer \(got (.*)\)$/, "须为正整数（当前 $1）"],
  [/^must be an integer from (\d+) to (\d+) \(got (.*)\)$/, "须为 $1 到 $2 的整数（当前 $3）"],
  [/^must be one of (.*) \(got (.*)\)$/, "须为 $1 之一（当前 $2）"],
  [/^expected an integer \(got (.*)\)$/, "须为整数（当前 $1）"],
  [/^(must be|expected) true or false.*$/, "须为是或否"],
  [/^unknown option.*$/, "未知选项"],
];

let lang = localStorage.getItem("hzmj.lang") || "zh";

export function getLang() {
  return lang;
}

/** The UI's language; `remember: false` for this page alone (the rule book in the other). */
export function setLang(value, { remember = true } = {}) {
  lang = value;
  if (remember) localStorage.setItem("hzmj.lang", value);
  document.documentElement.lang = value === "zh" ? "zh-CN" : "en";
}

function pick(pair) {
  return pair[lang === "zh" ? 0 : 1];
}

/** Translate `key`, filling {0}, {1}… with `args`. */
export function t(key, ...args) {
  const pair = STRINGS[key];
  let text = pair ? pick(pair) : key;
  args.forEach((a, i) => {
    text = text.replace(`{${i}}`, a);
  });
  return text;
}

/** A span of time in words, as the server says it: `600` → "10 分钟" / "10 minutes",
 * `90` → "90 秒" / "90 seconds", `1` → "1 秒" / "1 second". */
export function durationText(seconds) {
  if (seconds >= 120) return t("span_minutes", Math.round(seconds / 60));
  const n = Math.max(1, Math.round(seconds));
  return n === 1 ? t("span_second") : t("span_seconds", n);
}

/** A score with its unit: "3 分", "3 pts", "-1 pt" (it read "1 pts"). */
export function pointsText(n) {
  return `${n} ${t(Math.abs(n) === 1 ? "point" : "points")}`;
}

/** A game term: Chinese always, with the English in parentheses in English mode. */
export function bi(zh, en) {
  return lang === "zh" || !en ? zh : `${zh} (${en})`;
}

export function optionLabel(key) {
  return pick(OPTION_LABELS[key] || [key, key]);
}

export function valueLabel(key, value) {
  const pair = VALUE_LABELS[key]?.[String(value)];
  return pair ? pick(pair) : String(value);
}

/**
 * A server error about room option `key` ("drop_bamboo: 缺一门 is only allowed with 2
 * players") with the option's label in front: Chinese label and message (the server's
 * English kept when no translation is known) in Chinese mode, the English label and the
 * server's text plus the Chinese term in English mode.
 */
export function optionError(key, message) {
  const pair = OPTION_LABELS[key];
  let rest = String(message || "");
  if (rest.startsWith(`${key}: `)) rest = rest.slice(key.length + 2);
  if (!pair) return rest === message ? rest : `${key}: ${rest}`;
  if (lang === "zh") {
    const known = MESSAGE_ZH.find(([re]) => re.test(rest));
    if (!known) return `${pair[0]}：${rest}`;
    const m = rest.match(known[0]);
    const zh = known[1].replace(/\$(\d)/g, (_, i) => m[Number(i)]);
    return `${pair[0]}：${zh}（${rest}）`;
  }
  return `${pair[1]} (${pair[0]}): ${rest}`;
}

/** The room rules (RULES §3) as a short localised list: "4人 · 打局 8局 · 底分1 · …". */
export function rulesSummary(r) {
  if (!r) return "";
  const zh = lang === "zh";
  const v = (key) => valueLabel(key, r[key]);
  const parts = [zh ? `${r.players}人` : `${r.players} players`];
  if (r.drop_bamboo) parts.push(zh ? "缺一门" : "no bamboo (缺一门)");
  if (r.match_mode === "points") {
    parts.push(zh ? `打分 起始${r.start_points}分` : `until broke, ${r.start_points} points each`);
  } else {
    parts.push(zh ? `打局 ${r.hands}局` : `${r.hands} hands`);
  }
  parts.push(zh ? `底分${r.base_score}` : `base score ${r.base_score}`);
  parts.push(zh ? v("caishen_mode") : r.caishen_mode === "flip" ? "flipped wild (翻财神)"
    : "White Dragons wild (白板财神)");
  parts.push(zh ? v("dealer_start_level") : `dealer starts at level ${r.dealer_start_level}`);
  parts.push(zh ? v("discard_win") : r.discard_win ? "discard wins at level 3" : "self-draw wins only");
  parts.push(zh ? (r.three_tan_contract ? "三摊承包" : "无三摊承包")
    : r.three_tan_contract ? "three-tan (三摊承包) contract" : "no tan (摊) contract");
  parts.push(zh ? (r.pong_counts_as_tan ? "碰算摊" : "碰不算摊")
    : r.pong_counts_as_tan ? "pongs count as tan (碰算摊)" : "pongs are not tan (碰不算摊)");
  if (r.must_baotou_with_caishen) parts.push(zh ? "有财必拷响" : "with a 财神 only baotou (爆头) wins");
  parts.push(r.cap === null || r.cap === undefined ? (zh ? "不封顶" : "no cap")
    : zh ? `封顶${r.cap}` : `cap ${r.cap}`);
  parts.push(zh ? `吃碰${r.claim_seconds}秒 · 出牌${r.turn_seconds}秒`
    : `claims ${r.claim_seconds}s · turn ${r.turn_seconds}s`);
  return parts.join(" · ");
}

/** A server refusal in the UI's language: by its stable `code`, else its English text. */
export function serverError(code, reason) {
  const key = `err_${code}`;
  return code && STRINGS[key] ? pick(STRINGS[key]) : String(reason || "");
}

/** A bot's display name: "效率机器人" / "Efficiency bot". */
export function botName(bot) {
  return t("bot_name", STRINGS[`bot_${bot}`] ? t(`bot_${bot}`) : bot);
}

export function levelName(level) {
  return t(`level${Math.min(3, Math.max(1, level))}`);
}

setLang(lang);
