"""The delivery of "your turn" notices: Web Push and e-mail, one notice at a time.

It knows nothing of games, the database or the clock beyond what its caller passes in: the
caller decides when to notify, and whom, and keeps the subscriptions and the queue; this
package checks a subscription that a client hands in, says what a notice says in the reader's
language, sends it, and tells what became of it, never raising for a delivery that failed.

- :mod:`.endpoints`: which push endpoints the server will send to (the allow-list, no request
  into the operator's network) and the check of a subscription's keys;
- :mod:`.vapid`: the server's VAPID key, made once and kept in a file;
- :mod:`.push`: one push message, encrypted for the browser (RFC 8291), signed (RFC 8292);
- :mod:`.mail`: one e-mail, with its one-click unsubscribe (RFC 8058);
- :mod:`.texts`: the notices' words in eight languages;
- :mod:`.results`: what became of a delivery, and the back-off before trying again.

How the caller uses it (the settings are :class:`~gotown.server.config.Settings`')::

    key = VapidKey.load_or_create(settings.vapid_key_file)     # at start; the page's key:
    key.application_server_key                                 # for pushManager.subscribe
    services = PushServices.from_entries(settings.push_services)
    subscription = await check_subscription(body, services)     # SubscriptionError: refuse it
    async with PushSender(key, settings.vapid_contact, services, ttl=settings.push_ttl,
                          timeout=settings.notify_timeout) as push:
        delivery = await push.send(subscription, PushMessage.from_notice(notice, lang))
    if delivery.outcome is Outcome.RETRY:
        wait = Backoff().delay(attempts, rng, delivery.retry_after)  # None: give up

Its modules are imported one by one (``from gotown.server.notify.push import PushSender``), so
that reading the settings, which checks the allow-list, loads no HTTP or SMTP client.
"""
