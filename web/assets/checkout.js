// Progressive enhancement for the hosted checkout. The page works without this file: forms post
// normally, and the server is the judge of every value. Loaded from our origin (the CSP forbids
// inline script).
(function () {
  'use strict';

  // Numbers and times in the page's language (<html lang>), as the server wrote them.
  var lang = document.documentElement.lang || 'en';
  var number = new Intl.NumberFormat(lang, { useGrouping: false });
  var twoDigits = new Intl.NumberFormat(lang, { minimumIntegerDigits: 2, useGrouping: false });
  // m:ss, and h:mm:ss from an hour up (a merchant may give a session up to 24 hours), as the server renders it.
  function clockText(seconds) {
    var minutes = Math.floor(seconds / 60);
    if (minutes < 60) return number.format(minutes) + ':' + twoDigits.format(seconds % 60);
    return number.format(Math.floor(minutes / 60)) + ':' + twoDigits.format(minutes % 60) + ':' + twoDigits.format(seconds % 60);
  }

  // The session clock. At zero the page reloads, and the server answers with the expired page.
  function tickCountdown() {
    var el = document.querySelector('[data-expires-at]');
    if (!el || document.querySelector('#step[data-step="processing"]')) return;
    var left = Math.floor((Date.parse(el.getAttribute('data-expires-at')) - Date.now()) / 1000);
    var clock = el.querySelector('.countdown-clock');
    if (left <= 0) {
      if (clock) clock.textContent = clockText(0);
      if (!el.hasAttribute('data-reloading')) {
        el.setAttribute('data-reloading', '');
        // The server's timer may be a moment behind ours: give it a second before asking.
        setTimeout(function () {
          window.location.reload();
        }, 1000);
      }
      return;
    }
    if (clock) clock.textContent = clockText(left);
    var at = el.querySelector('.countdown-at');
    if (at && !at.hasAttribute('data-local')) {
      // The server can only say UTC; the browser knows the customer's own clock.
      var local = new Date(el.getAttribute('data-expires-at'));
      var time = new Intl.DateTimeFormat(lang, { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }).format(local);
      at.textContent = (el.getAttribute('data-at-text') || '(at {time})').replace('{time}', time);
      at.setAttribute('data-local', '');
    }
    el.classList.toggle('urgent', left < 120);
    announceTimeLeft(el, left);
  }

  // Screen readers get the time left from a polite live region, not the per-second clock (hidden from
  // them): rewritten only as the time left passes one of these marks, so it is said a few times at most.
  var ANNOUNCE_AT_MINUTES = [30, 15, 10, 5, 2, 1];
  function announceTimeLeft(el, left) {
    var summary = el.querySelector('.countdown-summary');
    if (!summary) return;
    var minutes = Math.ceil(left / 60);
    var mark = 0;
    for (var i = 0; i < ANNOUNCE_AT_MINUTES.length; i++) if (minutes <= ANNOUNCE_AT_MINUTES[i]) mark = ANNOUNCE_AT_MINUTES[i];
    var last = summary.getAttribute('data-mark');
    summary.setAttribute('data-mark', String(mark));
    // The first tick only notes where the clock stands: the page as served already says it.
    if (last === null || last === String(mark) || mark === 0) return;
    var texts = JSON.parse(el.getAttribute('data-announcements') || '{}');
    summary.textContent = texts[mark] || (minutes === 1 ? 'Less than a minute left to pay.' : minutes + ' minutes left to pay.');
  }

  // "Resend code" waits for the 30 s the workflow enforces, so the customer is not refused.
  function tickResend() {
    var buttons = document.querySelectorAll('button[data-available-at]');
    for (var i = 0; i < buttons.length; i++) {
      var button = buttons[i];
      var wait = Math.ceil((Date.parse(button.getAttribute('data-available-at')) - Date.now()) / 1000);
      var hint = button.parentNode.querySelector('.resend-wait');
      button.disabled = wait > 0;
      var waitText = button.getAttribute('data-wait-text') || 'available in {seconds} s';
      if (hint) hint.textContent = wait > 0 ? waitText.replace('{seconds}', number.format(wait)) : '';
    }
  }

  // Groups card digits in fours and adds the slash in MM/YY as the customer types.
  function formatInput(event) {
    var input = event.target;
    var kind = input.getAttribute && input.getAttribute('data-format');
    if (!kind || event.inputType === 'deleteContentBackward') return;
    var digits = input.value.replace(/\D/g, '');
    if (kind === 'card-number') {
      input.value = digits.slice(0, 19).replace(/(\d{4})(?=\d)/g, '$1 ');
    } else if (kind === 'expiry') {
      input.value = digits.length > 2 ? digits.slice(0, 2) + '/' + digits.slice(2, 4) : digits.length === 2 ? digits + '/' : digits;
    }
  }

  // A merchant image that does not load shows the tile behind it instead of a broken-image icon.
  function hideBrokenImage(img) {
    img.classList.add('img-failed');
  }
  document.addEventListener(
    'error',
    function (event) {
      if (event.target && event.target.tagName === 'IMG') hideBrokenImage(event.target);
    },
    true,
  );
  var images = document.images;
  for (var i = 0; i < images.length; i++) {
    if (images[i].complete && images[i].naturalWidth === 0) hideBrokenImage(images[i]);
  }

  function tick() {
    tickCountdown();
    tickResend();
  }

  // After htmx swaps a step in, put the cursor where the customer has to type next (or fix a mistake),
  // else on the choice already made: a returning customer's saved card, whose card fields stay folded
  // away. A folded field takes no focus, which would leave it on the page's body: the next one is tried.
  var FOCUS_ORDER = ['input[aria-invalid="true"]', 'input[type="text"]', 'input[type="radio"]:checked'];
  function focusStep() {
    var step = document.getElementById('step');
    if (!step) return;
    for (var i = 0; i < FOCUS_ORDER.length; i++) {
      var found = step.querySelectorAll(FOCUS_ORDER[i]);
      for (var j = 0; j < found.length; j++) {
        found[j].focus();
        if (document.activeElement === found[j]) return;
      }
    }
  }

  // Once the server has sent the customer on (HX-Redirect), a poll that was already due must not ask
  // again: its answer would send them a second time, and the merchant would see two landings.
  var leaving = false;
  document.addEventListener('htmx:beforeOnLoad', function (event) {
    var xhr = event.detail && event.detail.xhr;
    if (xhr && xhr.getResponseHeader('HX-Redirect')) leaving = true;
  });
  document.addEventListener('htmx:beforeRequest', function (event) {
    if (leaving) event.preventDefault();
  });

  // On a phone, a long order would push the payment form below the fold: fold the lines (the amount
  // stays in view, and one tap shows them). Without JavaScript they stay open.
  var lines = document.querySelector('details.lines');
  if (lines && window.matchMedia('(max-width: 859px)').matches && lines.querySelectorAll('.item').length > 2) lines.open = false;

  document.addEventListener('input', formatInput);
  document.addEventListener('htmx:afterSwap', tick);
  // Only once settled: htmx wires up the new step's form in its settle phase, and a customer quick on
  // the keyboard who pressed Enter before then would post it as a plain form, reloading the whole page.
  document.addEventListener('htmx:afterSettle', focusStep);
  tick();
  setInterval(tick, 1000);
})();
