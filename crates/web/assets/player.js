// The call page's player: the recording, streamed through a short-lived link, and the moment
// being played reported to whoever follows it (the transcript's highlight).

import { api } from "/app/api.js";
import { h, toast } from "/app/dom.js";
import { t } from "/app/i18n.js";

/**
 * The player of the call at `base`. `follow(ms)` is told the moment played, every frame while
 * playing and after each seek; `fresh()` says whether the page is still shown.
 */
export function player(base, call, follow, fresh) {
  const audio = h("audio", {
    controls: true,
    preload: "metadata",
    id: "player",
    "aria-label": `${t("recording")}: ${call.title}`,
  });

  // timeupdate comes a few times a second; while playing, follow every frame instead.
  let frame = 0;
  const onFrame = () => {
    follow(audio.currentTime * 1000);
    frame = requestAnimationFrame(onFrame);
  };
  audio.addEventListener("play", () => {
    cancelAnimationFrame(frame);
    frame = requestAnimationFrame(onFrame);
  });
  audio.addEventListener("pause", () => cancelAnimationFrame(frame));
  audio.addEventListener("seeked", () => follow(audio.currentTime * 1000));

  // The player streams the recording with Range requests (an hour of audio is tens of
  // megabytes) through a short-lived link, since an <audio> element cannot send the key. A link
  // that expires while the page stays open is replaced, and playback goes on where it was.
  let [relinks, linkedAt] = [0, 0];
  const linkAudio = async () => {
    linkedAt = Date.now();
    const link = await api("POST", `${base}/audio/link`);
    if (!fresh()) return;
    const [at, playing] = [audio.currentTime, !audio.paused];
    audio.src = link.url;
    if (at > 0) audio.currentTime = at;
    if (playing) audio.play().catch(() => {});
  };
  // A link that played for a minute worked: the next failure may be its expiry again.
  audio.addEventListener("playing", () => {
    if (Date.now() - linkedAt > 60_000) relinks = 0;
  });
  audio.addEventListener("error", () => {
    // A few tries, so that a recording that keeps failing does not ask forever.
    if (fresh() && relinks++ < 2) linkAudio().catch((e) => toast(e.message, "error"));
  });

  return {
    element: audio,
    /** Starts loading the recording (once the page is mounted). */
    load: () => linkAudio().catch((e) => toast(e.message, "error")),
    /** Moves to `ms`, and plays from there unless `play` is false. */
    seek: (ms, play = true) => {
      audio.currentTime = ms / 1000;
      follow(ms);
      if (play) audio.play().catch(() => {});
    },
  };
}
