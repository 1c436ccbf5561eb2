// HTTP calls to the table server and the per-room seat token kept in localStorage.

import { serverError } from "./i18n.js";

export class ApiError extends Error {
  constructor(status, body) {
    super(errorText(body) || `HTTP ${status}`);
    this.status = status;
    this.body = body;
  }

  /** The refusal in the UI's language (by the server's stable code), else its text. */
  get text() {
    return serverError(this.body?.code, this.message);
  }

  /** The room option a 422 names, if any (FastAPI `loc` or a `field`/`option` key). */
  get field() {
    const detail = this.body?.detail;
    if (Array.isArray(detail)) {
      const loc = detail[0]?.loc || [];
      return loc[loc.length - 1];
    }
    if (detail && typeof detail === "object") return detail.option || detail.field || detail.key;
    return this.body?.option || this.body?.field;
  }
}

function errorText(body) {
  if (!body) return "";
  if (typeof body === "string") return body;
  const d = body.detail ?? body.error ?? body.message ?? body.reason;
  if (typeof d === "string") return d;
  if (Array.isArray(d)) return d.map((x) => x.msg || JSON.stringify(x)).join("; ");
  if (d && typeof d === "object") return d.message || d.msg || d.reason || JSON.stringify(d);
  return JSON.stringify(body);
}

let csrfToken = null;

/** The signed-in player ({account, guest, csrf}, docs/protocol.md "Accounts"); keeps the
 * CSRF token that every POST/DELETE made with the session cookie must carry. */
export async function loadMe() {
  try {
    const me = await api("GET", "/api/me");
    csrfToken = me.csrf;
    return me;
  } catch {
    return { account: null, guest: false, csrf: null };
  }
}

export function setCsrf(token) {
  csrfToken = token;
}

/** A whole number sent as its exact digits: a JavaScript number is a double, exact only
 * below 2^53, and seeds go up to 2^63 − 1. */
export class Digits {
  constructor(text) {
    if (!/^[0-9]{1,19}$/.test(text)) throw new RangeError(`not a whole number: ${text}`);
    this.text = text;
  }
}

/** JSON text of `body`, with every {@link Digits} written as a bare number. */
export function toJson(body) {
  const digits = [];
  const text = JSON.stringify(body, (_, v) => {
    if (!(v instanceof Digits)) return v;
    digits.push(v.text);
    return `\u0000digits${digits.length - 1}`;
  });
  return text.replace(/"\\u0000digits(\d+)"/g, (_, i) => digits[Number(i)]);
}

export async function api(method, path, body, token) {
  const headers = {};
  if (body !== undefined) headers["Content-Type"] = "application/json";
  if (token) headers.Authorization = `Bearer ${token}`;
  if (method !== "GET" && csrfToken) headers["X-CSRF-Token"] = csrfToken;
  const res = await fetch(path, {
    method, headers, body: body === undefined ? undefined : toJson(body),
  });
  const text = await res.text();
  let data = null;
  try {
    data = text ? JSON.parse(text) : null;
  } catch {
    data = text;
  }
  if (!res.ok) throw new ApiError(res.status, data);
  return data;
}

const key = (roomId) => `hzmj.seat.${roomId}`;

/** {seat, token, name} stored for a room, or null. */
export function loadSeat(roomId) {
  try {
    return JSON.parse(localStorage.getItem(key(roomId)) || "null");
  } catch {
    return null;
  }
}

export function saveSeat(roomId, seat) {
  localStorage.setItem(key(roomId), JSON.stringify({ ...seat, at: seat.at || Date.now() }));
}

/** Every room this browser holds a seat in, newest first: [{roomId, seat, name, at}]. */
export function mySeats() {
  const out = [];
  for (let i = 0; i < localStorage.length; i += 1) {
    const k = localStorage.key(i);
    if (!k?.startsWith("hzmj.seat.")) continue;
    const roomId = k.slice("hzmj.seat.".length);
    const seat = loadSeat(roomId);
    if (seat) out.push({ roomId, ...seat });
  }
  return out.sort((a, b) => (b.at || 0) - (a.at || 0));
}

export function forgetSeat(roomId) {
  localStorage.removeItem(key(roomId));
}

export function savedName() {
  return localStorage.getItem("hzmj.name") || "";
}

export function saveName(name) {
  localStorage.setItem("hzmj.name", name);
}

export function wsUrl(path) {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  return `${proto}//${location.host}${path}`;
}
