// sportsensord dashboard: what every page's script shares (the API calls with the CSRF token).

/** The session's CSRF token, which every state change echoes in X-CSRF-Token. */
export const csrfToken = document.querySelector('meta[name="csrf-token"]')?.content ?? "";

/** The role of the logged-in account: "coach" or "viewer". */
export const role = document.body.dataset.role ?? "viewer";

/** An error the API answered, with its message and fix. */
export class APIError extends Error {
  constructor(status, body) {
    super(body?.fix ? `${body.error}: ${body.fix}` : body?.error ?? `HTTP ${status}`);
    this.status = status;
  }
}

/** Calls the control API on this origin; JSON in, JSON out; throws APIError on a non-2xx answer. */
export async function api(method, path, body) {
  const headers = { Accept: "application/json" };
  if (method !== "GET") headers["X-CSRF-Token"] = csrfToken;
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, {
    method, headers, body: body === undefined ? undefined : JSON.stringify(body),
    credentials: "same-origin",
  });
  if (response.status === 401) {
    window.location.assign("/login");
    throw new APIError(401, { error: "logged out" });
  }
  const text = await response.text();
  const json = text ? JSON.parse(text) : null;
  if (!response.ok) throw new APIError(response.status, json);
  return json;
}

/** A number with `digits` decimals, or an en dash when absent. */
export function fixed(value, digits) {
  return typeof value === "number" && Number.isFinite(value) ? value.toFixed(digits) : "–";
}
