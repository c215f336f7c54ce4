// The embedded checkout's side of the message protocol (docs/checkout-page.md, "Embedded checkout").
// Loaded only by the embedded page, which only the merchant's proven domains may frame (CSP
// frame-ancestors): the parent that greets it is one of them, and it answers that parent's origin alone.
(function () {
  'use strict';

  var PROTOCOL = 'hosted-checkout';
  var VERSION = 1;
  if (window.parent === window || !document.body.hasAttribute('data-embedded')) return;

  var parentOrigin = null;
  var lastHeight = 0;

  function send(type, payload) {
    if (!parentOrigin) return;
    var message = { protocol: PROTOCOL, version: VERSION, type: type };
    for (var key in payload) if (Object.prototype.hasOwnProperty.call(payload, key)) message[key] = payload[key];
    window.parent.postMessage(message, parentOrigin);
  }

  function height() {
    return Math.ceil(document.documentElement.getBoundingClientRect().height);
  }

  function resize() {
    if (!parentOrigin) return;
    var now = height();
    if (now === lastHeight) return;
    lastHeight = now;
    send('resize', { height: now });
  }

  function step() {
    var panel = document.getElementById('step');
    var name = panel && panel.getAttribute('data-step');
    if (name) send('step', { name: name });
  }

  // completed proves nothing (anyone can post it to the merchant's page): the merchant trusts order_created alone.
  function finish() {
    var end = document.querySelector('[data-embed-end]');
    if (!end) return;
    send('completed', { cartId: end.getAttribute('data-cart-id'), status: end.getAttribute('data-status') });
    send('navigate', { url: end.getAttribute('data-return-url') });
  }

  window.addEventListener('message', function (event) {
    var data = event.data;
    if (event.source !== window.parent || !data || data.protocol !== PROTOCOL || data.version !== VERSION || data.type !== 'hello') return;
    if (parentOrigin) return;
    parentOrigin = event.origin;
    send('ready', {});
    resize();
    step();
    finish();
  });

  if (typeof ResizeObserver === 'function') new ResizeObserver(resize).observe(document.documentElement);
  document.addEventListener('htmx:afterSettle', function () {
    resize();
    step();
  });
})();
