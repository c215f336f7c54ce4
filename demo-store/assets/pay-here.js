// Mounts the embedded checkout (docs/checkout-page.md, "Embedded checkout") in the order's page; the
// checkout sends the customer on to the order's return URL when it is done.
(function () {
  'use strict';
  var element = document.getElementById('checkout');
  if (element && window.HostedCheckout) window.HostedCheckout.mount(element, { cartId: element.getAttribute('data-cart-id') });
})();
