/* GoTown's service worker (served at /sw.js, its scope the whole site; registered by
   js/notify.js when a person asks for notices on this device). It only shows the server's
   "your turn" notices and opens their table on a click: no cache, no fetch handler, so the
   page loads as it does without it.

   A push's data is JSON {title, body, url, tag} (gotown/server/notify/push.py PushMessage):
   shown with its tag, so that a newer notice of the same table and seat replaces an older
   one. A click focuses a tab that shows the table; else takes a GoTown tab at the home page
   there; else opens a new window. */

self.addEventListener("install", () => self.skipWaiting());
// (Controls the pages open now, so that a click can take one of them to the table.)
self.addEventListener("activate", (event) => event.waitUntil(self.clients.claim()));

self.addEventListener("push", (event) => {
  let data = {};
  try {
    data = event.data ? event.data.json() : {};
  } catch {
    data = { body: event.data ? event.data.text() : "" };
  }
  const options = {
    body: data.body || "",
    tag: data.tag || "gotown",
    renotify: Boolean(data.tag),
    icon: "/static/icons/icon-192.png",
    data: { url: data.url || "/" },
  };
  event.waitUntil(self.registration.showNotification(data.title || "GoTown", options));
});

/* The table's address on this site (the server's links may name another host for it). */
function tableUrl(url) {
  try {
    const u = new URL(url, self.location.origin);
    return u.origin === self.location.origin
      ? u.href
      : new URL(u.pathname + u.search, self.location.origin).href;
  } catch {
    return `${self.location.origin}/`;
  }
}

async function openTable(url) {
  const path = new URL(url).pathname;
  const tabs = await self.clients.matchAll({ type: "window", includeUncontrolled: true });
  const showing = tabs.find((c) => new URL(c.url).pathname === path);
  if (showing) return showing.focus().catch(() => showing);
  // (Only a tab at the home page, or at a device link's or an e-mail's page: never one at a
  // table, a replay, a lesson or an invitation.)
  const free = tabs.find(
    (c) =>
      c.url.startsWith(`${self.location.origin}/`) &&
      /^\/((d|unsubscribe)\/.*)?$/.test(new URL(c.url).pathname),
  );
  if (free) {
    try {
      const taken = await free.navigate(url);
      if (taken) return taken.focus().catch(() => taken);
    } catch {
      /* not controlled by this worker: a window of its own */
    }
  }
  return self.clients.openWindow(url);
}

self.addEventListener("notificationclick", (event) => {
  event.notification.close();
  event.waitUntil(openTable(tableUrl(event.notification.data?.url)));
});
