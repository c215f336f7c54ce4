// The embedded checkout for a merchant's page (docs/checkout-page.md, "Embedded checkout"):
//   <script src="{checkout}/embed.js" integrity="sha384-…" crossorigin="anonymous"></script>
//   HostedCheckout.mount(element, { cartId, locale })
// Loaded from the checkout's origin, which is the only origin it listens to or talks to.
(function () {
  'use strict';

  var PROTOCOL = 'hosted-checkout';
  var VERSION = 1;
  var script = document.currentScript;
  var CHECKOUT = new URL(script && script.src ? script.src : '/', window.location.href).origin;
  var MAX_HEIGHT = 10000;

  function isMessage(data) {
    return data !== null && typeof data === 'object' && data.protocol === PROTOCOL && data.version === VERSION && typeof data.type === 'string';
  }

  // Only http(s): a message that got this far came from our frame, but a URL is still checked before going there.
  function topLevelUrl(value) {
    if (typeof value !== 'string') return undefined;
    try {
      var url = new URL(value);
      return url.protocol === 'https:' || url.protocol === 'http:' ? url.href : undefined;
    } catch {
      return undefined;
    }
  }

  function mount(element, options) {
    if (!element || typeof element.appendChild !== 'function' || !options || typeof options.cartId !== 'string')
      throw new TypeError('HostedCheckout.mount(element, { cartId, locale? })');
    var src = new URL('/', CHECKOUT);
    src.searchParams.set('token', options.cartId);
    src.searchParams.set('embed', '1');
    if (typeof options.locale === 'string') src.searchParams.set('lang', options.locale);

    var frame = document.createElement('iframe');
    frame.src = src.href;
    frame.title = typeof options.title === 'string' ? options.title : 'Secure checkout';
    frame.style.width = '100%';
    frame.style.height = '480px';
    frame.style.border = '0';
    frame.style.display = 'block';

    // Every page the frame loads is greeted: its answer goes to the origin this greeting came from, ours alone.
    frame.addEventListener('load', function () {
      frame.contentWindow.postMessage({ protocol: PROTOCOL, version: VERSION, type: 'hello' }, CHECKOUT);
    });

    function onMessage(event) {
      if (event.origin !== CHECKOUT || event.source !== frame.contentWindow || !isMessage(event.data)) return;
      var message = event.data;
      if (message.type === 'resize') {
        if (typeof message.height !== 'number' || !(message.height > 0)) return;
        frame.style.height = Math.min(Math.ceil(message.height), MAX_HEIGHT) + 'px';
      } else if (message.type === 'navigate') {
        var url = topLevelUrl(message.url);
        if (url) window.location.assign(url);
        return;
      } else if (message.type !== 'ready' && message.type !== 'step' && message.type !== 'completed') {
        return;
      }
      element.dispatchEvent(new CustomEvent('hosted-checkout', { detail: message }));
    }
    window.addEventListener('message', onMessage);
    element.appendChild(frame);

    return {
      frame: frame,
      unmount: function () {
        window.removeEventListener('message', onMessage);
        frame.remove();
      },
    };
  }

  window.HostedCheckout = { mount: mount, protocolVersion: VERSION };
})();
