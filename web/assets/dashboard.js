// The dashboard's one script, loaded from our origin (the CSP forbids inline script). The dashboard
// works without it: every form also posts normally.
(function () {
  'use strict';
  // After htmx swaps a section in, the keyboard goes where the person has to look: a field to fix,
  // else the section's message, else its heading. Only after a post: a filter or a timeline refresh
  // leaves the keyboard where it was.
  document.addEventListener('htmx:afterSettle', function (event) {
    var detail = event.detail || {};
    var root = detail.elt;
    if (!detail.requestConfig || detail.requestConfig.verb !== 'post' || !root || !root.querySelector) return;
    var target = root.querySelector('[aria-invalid="true"]') || root.querySelector('[role="status"], [role="alert"]') || root.querySelector('h2');
    if (!target) return;
    if (!target.matches('input, textarea, select, button, a')) target.setAttribute('tabindex', '-1');
    target.focus();
  });
})();
