// The API under /v1 with the signed-in key. The key lives in this tab's session storage only
// (gone when the tab closes); it is sent as the X-API-Key header, never in a URL.

const KEY = "callscope.key";

export const session = {
  get key() {
    return sessionStorage.getItem(KEY);
  },
  signIn(key) {
    sessionStorage.setItem(KEY, key);
  },
  signOut() {
    sessionStorage.removeItem(KEY);
  },
};

/** An API error with the problem document's title and detail, and for a 429 or 503 the seconds
 *  the server asked to wait (its Retry-After). */
export class ApiError extends Error {
  constructor(status, problem, retryAfter = null) {
    super(problem?.detail || problem?.title || `HTTP ${status}`);
    this.status = status;
    this.problem = problem;
    const seconds = Number(retryAfter);
    this.retryAfter = status === 429 || status === 503 ? (Number.isFinite(seconds) && seconds > 0 ? seconds : 5) : null;
  }
}

/** A JSON request; resolves to the parsed body (null for 204). A 401 signs the tab out. */
export async function api(method, path, body) {
  const headers = { "X-API-Key": session.key || "" };
  if (body !== undefined) headers["Content-Type"] = "application/json";
  const response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  if (response.status === 204) return null;
  const data = await response.json().catch(() => null);
  if (!response.ok) {
    if (response.status === 401) {
      session.signOut();
      window.dispatchEvent(new Event("signedout"));
    }
    throw new ApiError(response.status, data, response.headers.get("Retry-After"));
  }
  return data;
}

/** Bytes of a path as a blob (the recording), with the key in the header. */
export async function blob(path) {
  const response = await fetch(path, { headers: { "X-API-Key": session.key || "" } });
  if (!response.ok) throw new ApiError(response.status, await response.json().catch(() => null));
  return response.blob();
}

/** Uploads one file with its query; `progress(fraction)` follows the bytes sent. XHR, because
 *  fetch cannot report upload progress. Resolves to the accepted job. */
export function upload(project, file, query, progress) {
  return new Promise((resolve, reject) => {
    const xhr = new XMLHttpRequest();
    xhr.open("POST", `/v1/projects/${project}/calls/upload?${new URLSearchParams(query)}`);
    xhr.setRequestHeader("X-API-Key", session.key || "");
    xhr.upload.onprogress = (e) => e.lengthComputable && progress(e.loaded / e.total);
    xhr.onload = () => {
      let data = null;
      try {
        data = JSON.parse(xhr.responseText);
      } catch {
        /* not JSON */
      }
      if (xhr.status >= 200 && xhr.status < 300) resolve(data);
      else reject(new ApiError(xhr.status, data, xhr.getResponseHeader("Retry-After")));
    };
    xhr.onerror = () => reject(new ApiError(0, { title: "network error" }));
    const form = new FormData();
    form.append("file", file, file.name);
    xhr.send(form);
  });
}
