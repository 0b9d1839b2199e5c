// The upload queue: files sent a few at a time, sent again after the server says when, and their
// jobs followed by one gentle poller until they end.

import { api, upload } from "/app/api.js";
import { h, mount } from "/app/dom.js";
import { t } from "/app/i18n.js";

/** Uploads sent at once: the rest wait their turn, so that a folder of calls does not open a
 *  connection (and spend an upload of the key's budget) each at the same moment. */
const UPLOADS_AT_ONCE = 2;
/** Tries of an upload the server turns away for now (429, 503), each after its Retry-After. */
const UPLOAD_TRIES = 6;

const wait = (ms) => new Promise((r) => setTimeout(r, ms));

/** Drag-and-drop upload of several files with language, channel roles and recording date, then
 *  each job's stage and progress until its call can be opened. */
export function uploader(project, uploaded) {
  const language = h(
    "select",
    { id: "upload-language" },
    ["en", "pl"].map((l) => h("option", { value: l, selected: l === project.defaultLanguage }, t(`language.${l}`))),
  );
  const roles = h("input", { id: "upload-roles", placeholder: "agent,customer", "aria-describedby": "roles-help" });
  const recorded = h("input", { id: "upload-recorded", type: "date" });
  const files = h("input", {
    id: "upload-files",
    type: "file",
    multiple: true,
    accept: "audio/*,.wav,.mp3,.flac,.ogg,.m4a",
  });
  const list = h("ul", { class: "uploads", "aria-live": "polite" });
  const queue = [];
  let sending = 0;
  const next = () => {
    while (sending < UPLOADS_AT_ONCE && queue.length) {
      sending += 1;
      const task = queue.shift();
      sendOne(task).finally(() => {
        sending -= 1;
        next();
      });
    }
  };
  const sendOne = async ({ file, query, bar, state, row }) => {
    for (let attempt = 1; ; attempt += 1) {
      state.textContent = t("uploading");
      try {
        const accepted = await upload(project.id, file, query, (f) => {
          bar.value = f;
        });
        // Followed apart from the queue: the next upload need not wait for this one's job.
        follow(project, accepted, bar, state, row).then((done) => done && uploaded());
        return;
      } catch (error) {
        if (error.retryAfter && attempt < UPLOAD_TRIES && row.isConnected) {
          bar.value = 0;
          state.textContent = `${t("serverBusyRetry")} ${error.retryAfter} s`;
          await wait(error.retryAfter * 1000);
          continue;
        }
        row.classList.add("failed");
        if (error.status === 409 && error.problem?.transcriptId) {
          mount(
            state,
            `${t("duplicate")} `,
            h("a", { href: `#/p/${project.id}/calls/${error.problem.transcriptId}` }, t("open")),
          );
        } else {
          state.textContent = `${t("failed")}: ${error.message}`;
        }
        return;
      }
    }
  };
  const send = (chosen) => {
    for (const file of chosen) {
      const bar = h("progress", { max: 1, value: 0 });
      const state = h("span", { class: "state" }, t("waitingToUpload"));
      const row = h("li", { class: "upload" }, h("span", { class: "file" }, file.name), bar, state);
      list.append(row);
      const query = { language: language.value };
      if (roles.value.trim()) query.channel_roles = roles.value.trim();
      if (recorded.value) query.recorded_at = new Date(recorded.value).toISOString();
      queue.push({ file, query, bar, state, row });
    }
    next();
  };
  files.addEventListener("change", () => {
    send([...files.files]);
    files.value = "";
  });
  const zone = h(
    "div",
    {
      class: "dropzone",
      id: "dropzone",
      ondragover: (e) => {
        e.preventDefault();
        zone.classList.add("over");
      },
      ondragleave: () => zone.classList.remove("over"),
      ondrop: (e) => {
        e.preventDefault();
        zone.classList.remove("over");
        send([...e.dataTransfer.files]);
      },
    },
    h("p", {}, t("dropHere")),
    h("label", { class: "button", for: "upload-files" }, t("chooseFiles")),
    files,
  );
  return h(
    "section",
    { class: "card", "aria-labelledby": "upload-title" },
    h("h2", { id: "upload-title" }, t("upload")),
    h(
      "div",
      { class: "row" },
      h("label", { for: "upload-language" }, t("language")),
      language,
      h("label", { for: "upload-roles" }, t("channelRoles")),
      roles,
      h("label", { for: "upload-recorded" }, t("recordedAt")),
      recorded,
    ),
    h("p", { id: "roles-help", class: "muted help" }, t("channelRolesHelp")),
    zone,
    list,
  );
}

/** The jobs followed to their end, by one poller: one request at a time; each job asked again
 *  after an interval that doubles (1 s up to 15 s) while its progress stands still, and after a
 *  429's or 503's Retry-After. A page following twenty uploads asks a few times a second, not
 *  twenty. */
const followed = new Map();
let polling = false;

function follow(project, accepted, bar, state, row) {
  const jobId = accepted.jobId || accepted.existingJobId;
  return new Promise((resolve) => {
    followed.set(jobId, { project, bar, state, row, resolve, due: 0, interval: 1000, progress: null });
    if (!polling) poll();
  });
}

async function poll() {
  polling = true;
  while (followed.size) {
    for (const [jobId, f] of [...followed]) {
      // The row is gone (the page was left): stop following.
      if (!f.row.isConnected) {
        followed.delete(jobId);
        f.resolve(false);
        continue;
      }
      if (f.due > Date.now()) continue;
      try {
        const job = await api("GET", `/v1/projects/${f.project.id}/calls/jobs/${jobId}`);
        f.bar.value = job.progress;
        f.state.textContent = `${job.status === "PENDING" ? t("queued") : t(`stage.${job.stage}`)} ${Math.round(job.progress * 100)}%`;
        if (job.status === "COMPLETED" || job.status === "FAILED") {
          followed.delete(jobId);
          f.row.classList.add(job.status === "COMPLETED" ? "completed" : "failed");
          if (job.status === "COMPLETED") {
            mount(
              f.state,
              `${t("completed")} `,
              h("a", { href: `#/p/${f.project.id}/calls/${job.transcriptId}` }, t("open")),
            );
          } else {
            f.state.textContent = `${t("failed")}: ${job.errorMessage || ""}`;
          }
          f.resolve(job.status === "COMPLETED");
          continue;
        }
        f.interval = job.progress !== f.progress ? 1000 : Math.min(f.interval * 2, 15000);
        f.progress = job.progress;
        f.due = Date.now() + f.interval;
      } catch (error) {
        f.due = Date.now() + (error.retryAfter || 5) * 1000;
      }
    }
    await wait(250);
  }
  polling = false;
}

// --- action items ---
